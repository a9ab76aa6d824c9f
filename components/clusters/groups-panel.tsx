import type { Group } from '@/lib/api/groups'
import { formatInteger, formatOffset } from '@/lib/ui/format'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'

/** Consumer groups with their state, members and committed offsets (per partition on demand). */
export function GroupsPanel({ groups, error, onRetry }: { groups: readonly Group[] | undefined; error: unknown; onRetry: () => void }) {
  return (
    <Panel id="groups" title={groups === undefined ? 'Consumer groups' : `Consumer groups (${formatInteger(groups.length)})`}>
      {error !== null && groups === undefined ? (
        <ErrorPanel error={error} title="Could not load consumer groups" onRetry={onRetry} compact />
      ) : groups === undefined ? (
        <div className="space-y-2" aria-hidden>
          <Skeleton className="h-6 w-full" />
          <Skeleton className="h-6 w-2/3" />
        </div>
      ) : groups.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">No consumer group has committed offsets on this cluster.</p>
      ) : (
        <ul aria-label="Consumer groups" className="divide-y divide-slate-100 dark:divide-slate-800">
          {groups.map((group) => (
            <li key={group.groupId} className="py-2">
              <details className="group">
                <summary className="flex cursor-pointer list-none flex-wrap items-center gap-x-3 gap-y-1 rounded-md py-1 text-sm focus-visible:outline-2 focus-visible:outline-indigo-500 [&::-webkit-details-marker]:hidden">
                  <span aria-hidden className="text-slate-400 transition-transform group-open:rotate-90">
                    ▸
                  </span>
                  <span className="min-w-0 truncate font-mono font-medium text-slate-900 dark:text-white">{group.groupId}</span>
                  <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-200">{group.state}</span>
                  <span className="text-xs text-slate-600 dark:text-slate-300">
                    {group.members.length} {group.members.length === 1 ? 'member' : 'members'}
                  </span>
                  <span className="ml-auto text-xs text-slate-600 dark:text-slate-300">
                    {group.offsets.length} committed {group.offsets.length === 1 ? 'offset' : 'offsets'}
                  </span>
                </summary>
                <div className="mt-2 ml-5 space-y-2">
                  {group.members.length > 0 && (
                    <p className="text-xs break-all text-slate-600 dark:text-slate-300">
                      <span className="font-medium">Members:</span> {group.members.join(', ')}
                    </p>
                  )}
                  {group.offsets.length > 0 && (
                    <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={`Committed offsets of ${group.groupId}`}>
                      <table className="min-w-[18rem] text-left text-xs">
                        <thead className="text-slate-500 dark:text-slate-400">
                          <tr>
                            <th scope="col" className="py-1 pr-4 font-medium">Topic</th>
                            <th scope="col" className="py-1 pr-4 text-right font-medium">Partition</th>
                            <th scope="col" className="py-1 text-right font-medium">Committed offset</th>
                          </tr>
                        </thead>
                        <tbody>
                          {group.offsets.map((offset) => (
                            <tr key={`${offset.topic}-${offset.partition}`}>
                              <td className="py-0.5 pr-4 font-mono">{offset.topic}</td>
                              <td className="py-0.5 pr-4 text-right tabular-nums">{offset.partition}</td>
                              <td className="py-0.5 text-right font-mono tabular-nums">{formatOffset(offset.offset)}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  )}
                </div>
              </details>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  )
}
