'use client'

import { useRouter } from 'next/navigation'
import { useMemo, useState } from 'react'
import { AUDITED_ACTIONS } from '@/lib/api/routes'
import { NO_AUDIT_FILTERS, auditFiltersToQuery, auditFiltersToSearch, isFiltered, type AuditFilterValues } from '@/lib/ui/audit-filters'
import { useAuditEntries } from '@/components/data/use-audit'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { AuditEntryRow } from './audit-entry-row'
import { AuditFiltersForm } from './audit-filters-form'
import { formatInteger } from '@/lib/ui/format'


/** The audit log (UI.md §1): filters in the address, newest first, older pages on demand, entries that open. */
export function AuditLog({ initialFilters }: { initialFilters: AuditFilterValues }) {
  const router = useRouter()
  const [filters, setFilters] = useState(initialFilters)
  const audit = useAuditEntries(useMemo(() => auditFiltersToQuery(filters), [filters]))
  const entries = useMemo(() => audit.data?.pages.flatMap((page) => page.entries) ?? [], [audit.data])
  const actors = useMemo(() => [...new Set(entries.map((entry) => entry.actor))].sort(), [entries])

  const apply = (next: AuditFilterValues) => {
    setFilters(next)
    router.replace(`/audit${auditFiltersToSearch(next)}`, { scroll: false })
  }

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">Every change made through the API, accepted, rejected or failed, with dry runs and their plans. Newest first; times in UTC.</p>
      </div>
      <AuditFiltersForm key={auditFiltersToSearch(filters)} filters={filters} actors={actors} actions={AUDITED_ACTIONS} onApply={apply} onClear={() => apply(NO_AUDIT_FILTERS)} />
      <Panel
        id="audit-entries"
        title={audit.data === undefined ? 'Entries' : `Entries (${formatInteger(entries.length)}${audit.hasNextPage ? '+' : ''})`}
        actions={audit.isFetching && audit.data !== undefined ? <span className="text-xs text-slate-500 dark:text-slate-400">Updating…</span> : undefined}
      >
        {audit.error !== null && audit.data === undefined ? (
          <ErrorPanel error={audit.error} title="Could not load the audit log" onRetry={() => void audit.refetch()} />
        ) : audit.data === undefined ? (
          <div className="space-y-2" aria-hidden>
            {Array.from({ length: 6 }, (_, index) => (
              <Skeleton key={index} className="h-10 w-full" />
            ))}
          </div>
        ) : entries.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">{isFiltered(filters) ? 'No entry matches these filters.' : 'Nothing has been changed yet: the log is empty.'}</p>
        ) : (
          <div className="space-y-3">
            {audit.error !== null && <ErrorPanel error={audit.error} title="Could not load more entries" onRetry={() => void audit.fetchNextPage()} compact />}
            <ol aria-label="Audit entries, newest first" className="divide-y divide-slate-100 dark:divide-slate-800">
              {entries.map((entry) => (
                <AuditEntryRow key={entry.id} entry={entry} />
              ))}
            </ol>
            {audit.hasNextPage ? (
              <button type="button" className={buttonClass('secondary')} disabled={audit.isFetchingNextPage} onClick={() => void audit.fetchNextPage()}>
                {audit.isFetchingNextPage ? 'Loading…' : 'Load older entries'}
              </button>
            ) : (
              <p className="text-xs text-slate-500 dark:text-slate-400">End of the log{isFiltered(filters) ? ' for these filters' : ''}.</p>
            )}
          </div>
        )}
      </Panel>
    </div>
  )
}
