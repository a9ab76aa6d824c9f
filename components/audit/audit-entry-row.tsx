import type { AuditEntry } from '@/lib/api/audit'
import { dateTime, exactTime } from '@/lib/ui/format'
import { AUDIT_OUTCOME_STYLE } from '@/lib/ui/status-style'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'

/** One audit entry: who did what to what and how it ended; opens to the request, the plan and the error. */
export function AuditEntryRow({ entry }: { entry: AuditEntry }) {
  return (
    <li data-outcome={entry.outcome} data-action={entry.action}>
      <details className="group">
        <summary className="grid cursor-pointer list-none grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 rounded-md px-2 py-2 text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 sm:grid-cols-[7.5rem_6rem_minmax(0,1fr)_minmax(0,14rem)] sm:items-center dark:hover:bg-slate-800/60 [&::-webkit-details-marker]:hidden">
          <span className="text-xs text-slate-600 tabular-nums dark:text-slate-300" title={exactTime(entry.at)}>
            <span aria-hidden className="mr-1 inline-block text-slate-400 transition-transform group-open:rotate-90">
              ▸
            </span>
            <RelativeTime at={entry.at} />
          </span>
          <span className="justify-self-end sm:justify-self-start">
            <StatusBadge look={AUDIT_OUTCOME_STYLE[entry.outcome]} />
          </span>
          <span className="col-span-2 min-w-0 sm:col-span-1">
            <span className="font-mono text-sm font-medium text-slate-900 dark:text-white">{entry.action}</span>
            {entry.dryRun && <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-200">dry run</span>}
            {entry.count !== undefined && entry.count > 1 && (
              <span
                title={`${entry.count} refused requests without credentials, collapsed into this entry`}
                className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/60 dark:text-amber-100"
              >
                <span aria-hidden>× </span>
                {entry.count}
                <span className="sr-only"> requests</span>
              </span>
            )}
            <span className="block truncate font-mono text-xs text-slate-600 dark:text-slate-300" title={entry.target}>
              {entry.target}
            </span>
          </span>
          <span className="col-span-2 min-w-0 truncate text-xs text-slate-600 sm:col-span-1 sm:text-right dark:text-slate-300" title={entry.actor}>
            {entry.actorName ?? entry.actor}
            {entry.role !== null && <span className="text-slate-500 dark:text-slate-400"> · {entry.role}</span>}
            {entry.source !== undefined && <span className="font-mono text-slate-500 dark:text-slate-400"> · {entry.source}</span>}
          </span>
        </summary>
        <div className="mt-1 mb-2 ml-2 space-y-3 border-l-2 border-slate-200 pl-3 text-sm sm:ml-6 dark:border-slate-700">
          <p className="text-xs text-slate-600 dark:text-slate-300">
            Entry {entry.id} · {dateTime(entry.at)}
            {entry.source !== undefined && (
              <>
                {' '}
                · {entry.count === 1 ? 'first refusal this minute' : `${entry.count ?? 0} more refusals that minute`} from <span className="font-mono">{entry.source}</span>
              </>
            )}
          </p>
          {entry.error !== null && (
            <p className="text-red-900 dark:text-red-200">
              <code className="rounded bg-red-100 px-1 py-0.5 font-mono text-xs font-semibold dark:bg-red-900/70">{entry.error.code}</code> {entry.error.message}
            </p>
          )}
          <JsonBlock title="Request" value={entry.request} />
          {entry.plan !== undefined && <JsonBlock title="Plan (dry run)" value={entry.plan} />}
        </div>
      </details>
    </li>
  )
}

function JsonBlock({ title, value }: { title: string; value: unknown }) {
  return (
    <div className="min-w-0">
      <h3 className="text-xs font-semibold text-slate-700 dark:text-slate-200">{title}</h3>
      {value === null || value === undefined ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">{value === null ? 'No body (or it could not be read).' : 'None.'}</p>
      ) : (
        <pre tabIndex={0} className="mt-1 max-h-80 max-w-full overflow-auto rounded-md bg-slate-100 p-2 font-mono text-xs text-slate-800 dark:bg-slate-950 dark:text-slate-200">
          {JSON.stringify(value, null, 2)}
        </pre>
      )}
    </div>
  )
}
