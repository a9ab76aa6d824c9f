'use client'

import { useId } from 'react'
import type { AuditFilterValues } from '@/lib/ui/audit-filters'
import { isFiltered, parseAuditFilters } from '@/lib/ui/audit-filters'
import { buttonClass } from '@/components/ui/button-class'

const FIELD = 'w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:bg-slate-800 dark:[color-scheme:dark]'

/**
 * Filters are applied together (Apply or Enter), so a half-typed action never sends a query. The fields hold their own
 * values (uncontrolled, read on submit): what is typed while the page still hydrates is kept, where controlled fields
 * were set back to the server's values by hydration (a browser journey lost its From date that way under load). Before
 * hydration, Apply submits the form as a plain GET of /audit with the same query the page reads.
 */
export function AuditFiltersForm({
  filters,
  actors,
  actions,
  onApply,
  onClear,
}: {
  filters: AuditFilterValues
  actors: readonly string[]
  actions: readonly string[]
  onApply: (filters: AuditFilterValues) => void
  onClear: () => void
}) {
  const id = useId()
  return (
    <form
      aria-label="Audit filters"
      method="get"
      action="/audit"
      className="grid gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-[1fr_1fr_10rem_13rem_13rem_auto] lg:items-end dark:border-slate-800 dark:bg-slate-900"
      onSubmit={(event) => {
        event.preventDefault()
        const fields: Record<string, string> = {}
        for (const [key, value] of new FormData(event.currentTarget)) if (typeof value === 'string') fields[key] = value
        onApply(parseAuditFilters(fields))
      }}
    >
      <div>
        <label htmlFor={`${id}-actor`} className="mb-1 block text-xs font-medium text-slate-700 dark:text-slate-200">
          Actor
        </label>
        <input id={`${id}-actor`} list={`${id}-actors`} name="actor" defaultValue={filters.actor} placeholder="token:operator" className={FIELD} aria-describedby={`${id}-actor-hint`} />
        <datalist id={`${id}-actors`}>
          {actors.map((actor) => (
            <option key={actor} value={actor} />
          ))}
        </datalist>
        <p id={`${id}-actor-hint`} className="sr-only">
          Exact actor, as shown in the entries
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-action`} className="mb-1 block text-xs font-medium text-slate-700 dark:text-slate-200">
          Action
        </label>
        <input id={`${id}-action`} list={`${id}-actions`} name="action" defaultValue={filters.action} placeholder="mirror.* or topic.create" className={FIELD} aria-describedby={`${id}-action-hint`} />
        <datalist id={`${id}-actions`}>
          {actions.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
        <p id={`${id}-action-hint`} className="sr-only">
          Exact action, or a prefix ending in a star
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-outcome`} className="mb-1 block text-xs font-medium text-slate-700 dark:text-slate-200">
          Outcome
        </label>
        <select id={`${id}-outcome`} name="outcome" defaultValue={filters.outcome} className={FIELD}>
          <option value="">any</option>
          <option value="ok">ok</option>
          <option value="rejected">rejected</option>
          <option value="failed">failed</option>
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-from`} className="mb-1 block text-xs font-medium text-slate-700 dark:text-slate-200">
          From (UTC)
        </label>
        <input id={`${id}-from`} type="datetime-local" name="from" defaultValue={filters.from} className={FIELD} />
      </div>
      <div>
        <label htmlFor={`${id}-to`} className="mb-1 block text-xs font-medium text-slate-700 dark:text-slate-200">
          To (UTC)
        </label>
        <input id={`${id}-to`} type="datetime-local" name="to" defaultValue={filters.to} className={FIELD} />
      </div>
      <div className="flex gap-2 sm:col-span-2 lg:col-span-1">
        <button type="submit" className={buttonClass('primary')}>
          Apply
        </button>
        {isFiltered(filters) && (
          <button type="button" className={buttonClass('secondary')} onClick={onClear}>
            Clear
          </button>
        )}
      </div>
    </form>
  )
}
