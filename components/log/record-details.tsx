import type { RecordEntry } from '@/lib/api/records'
import { exactTime, formatOffset } from '@/lib/ui/format'
import { EMPTY_TEXT, RECORD_LOOK, type LogColumn, type LogCell } from '@/lib/ui/log-strip'
import type { LaneId, LaneName } from './log-strips'

/** Everything about one offset on both tapes, side by side: the details panel of the selected cell. */
export function RecordDetails({ column, names, mirroredOffset }: { column: LogColumn | null; names: Readonly<Record<LaneId, LaneName>>; mirroredOffset: number | null }) {
  if (column === null) {
    return <p className="text-sm text-slate-600 dark:text-slate-300">Select an offset on the tapes (click, or Tab into them and use the arrow keys) to see both records in full.</p>
  }
  return (
    <div aria-live="polite">
      <h3 className="mb-2 text-sm font-semibold text-slate-900 dark:text-white">
        Offset <span className="font-mono">{formatOffset(column.offset)}</span>
        <span className="ml-2 text-xs font-normal text-slate-600 dark:text-slate-300">{relation(column, mirroredOffset)}</span>
      </h3>
      <div className="grid gap-3 sm:grid-cols-2">
        {(['source', 'destination'] as const).map((lane) => (
          <CellCard key={lane} title={`${names[lane].title} · ${names[lane].cluster}`} cell={column[lane]} />
        ))}
      </div>
    </div>
  )
}

function relation(column: LogColumn, mirroredOffset: number | null): string {
  if (column.source.atRisk) return 'at risk: on the source, not mirrored'
  if (column.destination.removed !== null) return 'removed from the destination by truncation'
  if (mirroredOffset !== null && column.offset < mirroredOffset) return 'mirrored'
  return ''
}

function CellCard({ title, cell }: { title: string; cell: LogCell }) {
  return (
    <section aria-label={title} className="min-w-0 rounded-md border border-slate-200 p-3 dark:border-slate-700">
      <h4 className="truncate text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{title}</h4>
      {cell.record === null ? (
        <p className="mt-1 text-sm text-slate-700 dark:text-slate-200">{cell.atRisk ? 'Not here: the mirror had not copied it.' : `No record: ${EMPTY_TEXT[cell.empty ?? 'noRecord']}.`}</p>
      ) : (
        <RecordFields record={cell.record} />
      )}
      {cell.removed !== null && (
        <div className="mt-2 border-t border-dashed border-red-300 pt-2 dark:border-red-800">
          <p className="text-xs font-semibold text-red-800 dark:text-red-200">Removed by the truncation</p>
          <RecordFields record={cell.removed} />
        </div>
      )}
    </section>
  )
}

function RecordFields({ record }: { record: RecordEntry }) {
  const look = RECORD_LOOK[record.type]
  const rows: Array<[string, string]> = [
    ['type', `${look.glyph} ${record.type}${record.transactional && record.type === 'DATA' ? ' (transactional)' : ''}`],
    ['producer id', record.producerId === null ? 'none' : String(record.producerId)],
    ['producer epoch', record.producerEpoch === null ? 'none' : String(record.producerEpoch)],
    ['leader epoch', String(record.leaderEpoch)],
    ['timestamp', exactTime(record.timestamp)],
  ]
  if (record.type === 'DATA') {
    rows.push(['key', record.key ?? 'null'], ['value', record.value ?? 'null'])
    if (record.encoding === 'base64') rows.push(['encoding', 'base64'])
    for (const header of record.headers) rows.push([`header ${header.key}`, header.value ?? 'null'])
  }
  return (
    <dl className="mt-1 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-sm">
      {rows.map(([name, value]) => (
        <div key={name} className="contents">
          <dt className="text-slate-500 dark:text-slate-400">{name}</dt>
          <dd className="break-all font-mono text-slate-900 dark:text-slate-100">{value}</dd>
        </div>
      ))}
    </dl>
  )
}
