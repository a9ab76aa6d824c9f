import { splitNarration, type NarratedRecord } from '@/lib/ui/narration'

/**
 * A step's narration with its logs drawn as rows of cells (offset above, the record below), so "0 DATA 4001
 * A=1 · 1 DATA 4001 B=2 · …" reads like the KIP's tables. Markers carry a glyph and a word, not only a colour.
 */
export function NarrationText({ narration, className }: { narration: string; className: string }) {
  const parts = splitNarration(narration)
  return (
    <div className={className}>
      {parts.map((part, index) =>
        part.kind === 'text' ? (
          <span key={index}>{index > 0 && parts[index - 1]?.kind === 'log' ? part.text.replace(/^[.,;:]\s*/, '') : part.text}</span>
        ) : (
          <ol key={index} aria-label="Log" className="my-1.5 flex flex-wrap gap-1">
            {part.records.map((record) => (
              <RecordCell key={record.offset} record={record} />
            ))}
          </ol>
        ),
      )}
    </div>
  )
}

const MARKER = {
  COMMIT: { glyph: '✓', word: 'COMMIT', tone: 'border-emerald-400 bg-emerald-50 text-emerald-900 dark:border-emerald-700 dark:bg-emerald-950/60 dark:text-emerald-100' },
  ABORT: { glyph: '✕', word: 'ABORT', tone: 'border-red-400 bg-red-50 text-red-900 dark:border-red-700 dark:bg-red-950/60 dark:text-red-100' },
  MIRROR_PID_RESET: { glyph: '⟲', word: 'PID reset', tone: 'border-violet-400 bg-violet-50 text-violet-900 dark:border-violet-700 dark:bg-violet-950/60 dark:text-violet-100' },
  CONTROL: { glyph: '◆', word: 'CONTROL', tone: 'border-slate-400 bg-slate-50 text-slate-900 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100' },
} as const

function RecordCell({ record }: { record: NarratedRecord }) {
  const marker = record.type === 'DATA' ? null : MARKER[record.type]
  const tone = marker?.tone ?? 'border-slate-300 bg-white text-slate-900 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100'
  return (
    <li aria-label={record.text} className={`min-w-[4.75rem] rounded border px-1.5 py-1 font-mono text-xs leading-tight ${tone}`}>
      <span className="block opacity-75">{record.offset}</span>
      <span className="block font-semibold">{marker === null ? (record.content ?? 'DATA') : `${marker.glyph} ${marker.word}`}</span>
      <span className="block opacity-75">{record.producerId === null ? 'no pid' : `pid ${record.producerId}`}</span>
    </li>
  )
}
