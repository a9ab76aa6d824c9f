import { PartitionLinkCell } from '@/components/partitions/partition-link-cell'
import type { TruncationEntryLike } from '@/lib/failover/failback'
import { formatCount, formatOffset } from '@/lib/ui/format'
import { TruncationStrips } from './truncation-strips'

/** Partitions drawn as tapes (the rest are rows of the table). */
const STRIPS = 3
const ROW_LIMIT = 200

/**
 * Where the failback cuts each old-source partition: the first few partitions that lose records as log
 * tapes with the truncation point, and every partition as a row (truncation point, records removed, the
 * last mirror position it aligns on) linking to its partition page.
 */
export function TruncationTable({ linkMirror, entries, oldSource, newSource, before }: { linkMirror: string; entries: readonly TruncationEntryLike[]; oldSource: string; newSource: string; before: boolean }) {
  const sorted = [...entries].sort((a, b) => b.recordsToRemove - a.recordsToRemove || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
  const drawn = sorted.filter((entry) => entry.recordsToRemove > 0).slice(0, STRIPS)
  const shown = sorted.slice(0, ROW_LIMIT)
  return (
    <div className="space-y-4">
      {drawn.map((entry) => (
        <TruncationStrips
          key={`${entry.topic}-${entry.partition}`}
          topic={entry.topic}
          partition={entry.partition}
          newSource={newSource}
          oldSource={oldSource}
          truncation={entry.truncateTo === null ? { offset: 0, removedRecords: entry.recordsToRemove } : { offset: entry.truncateTo, removedRecords: entry.recordsToRemove }}
          live={!before}
        />
      ))}
      <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-700">
        <table className="w-full min-w-[34rem] text-left text-sm">
          <caption className="px-3 py-2 text-left text-xs text-slate-600 dark:text-slate-400">
            {before ? 'Per partition of the old source, what the failback removes' : 'Per partition of the old source, where the failback cut it'}
            {sorted.length > shown.length ? ` (the first ${shown.length} of ${sorted.length})` : ''}
          </caption>
          <thead className="bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-800 dark:text-slate-300">
            <tr>
              <th scope="col" className="px-3 py-2">Partition</th>
              <th scope="col" className="px-3 py-2 text-right">Truncation point</th>
              <th scope="col" className="px-3 py-2 text-right">{before ? 'Records to remove' : 'Records removed'}</th>
              <th scope="col" className="px-3 py-2 text-right">Last mirror position</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {shown.map((entry) => (
              <tr key={`${entry.topic}-${entry.partition}`} data-partition={`${entry.topic}-${entry.partition}`}>
                <PartitionLinkCell mirror={linkMirror} topic={entry.topic} partition={entry.partition} />
                <td className="px-3 py-2 text-right font-mono tabular-nums">
                  {entry.truncateTo === null ? 'whole log' : `✂ ${formatOffset(entry.truncateTo)}`}
                  {entry.rebuild === true && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 font-sans text-[11px] font-medium text-amber-950 dark:bg-amber-900 dark:text-amber-50">rebuild</span>}
                </td>
                <td className={`px-3 py-2 text-right tabular-nums ${entry.recordsToRemove > 0 ? 'font-semibold text-red-800 dark:text-red-300' : ''}`}>{formatCount(entry.recordsToRemove)}</td>
                <td className="px-3 py-2 text-right font-mono tabular-nums">
                  {entry.lastMirrorPosition === null ? '–' : `epoch ${entry.lastMirrorPosition.epoch} · ${formatOffset(entry.lastMirrorPosition.offset)}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
