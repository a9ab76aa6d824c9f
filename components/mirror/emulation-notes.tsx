import type { Emulation } from '@/lib/api/mirrors'
import { formatOffset } from '@/lib/ui/format'

/**
 * What a destination that is not a native mirror (a real Kafka cluster, DESIGN.md §5) does by emulation, as the
 * API's `emulation` notes say it: a labelled, collapsed note on the mirror and partition pages, with the
 * offset translation table where destination offsets differ. Nothing for a native destination.
 */
export function EmulationNotes({ emulation, scope }: { emulation: Emulation | undefined; scope: 'mirror' | 'partition' | 'drill' }) {
  if (!emulation || emulation.notes.length === 0) return null
  const violated = emulation.notes.some((note) => note.code === 'READ_ONLY_VIOLATED')
  const translated = emulation.offsetTranslation ?? []
  return (
    <details data-testid={`emulation-notes-${scope}`} className={`${scope === 'mirror' ? 'mt-3 ' : ''}max-w-3xl rounded-md bg-slate-50 px-3 py-2 text-sm ring-1 ring-inset ring-slate-200 dark:bg-slate-900 dark:ring-slate-700`}>
      <summary className="cursor-pointer rounded font-medium text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-200">
        <span className="mr-1.5 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide text-amber-900 dark:bg-amber-900/60 dark:text-amber-100">Emulated</span>
        {scope === 'mirror' ? 'Kafka destination: how this mirror differs from a native one' : scope === 'drill' ? "Kafka destination: how this drill's copy differs from a native one" : 'What the Kafka destination emulates on this partition'}
        {violated && <span className="ml-1.5 font-semibold text-red-700 dark:text-red-300">(written by another client)</span>}
      </summary>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-slate-700 dark:text-slate-300">
        {emulation.notes.map((note, index) => (
          <li key={`${note.code}-${index}`} className={note.code === 'READ_ONLY_VIOLATED' ? 'font-medium text-red-700 dark:text-red-300' : undefined}>
            {note.message}
          </li>
        ))}
      </ul>
      {translated.length > 0 && (
        <table className="mt-2 text-xs tabular-nums text-slate-700 dark:text-slate-300">
          <caption className="mb-1 text-left font-medium text-slate-800 dark:text-slate-200">Offset translation (from each source offset on)</caption>
          <thead>
            <tr>
              <th scope="col" className="pr-4 text-left font-medium">Source offset</th>
              <th scope="col" className="text-left font-medium">Destination offset</th>
            </tr>
          </thead>
          <tbody>
            {translated.map((segment) => (
              <tr key={segment.sourceOffset}>
                <td className="pr-4 font-mono">{formatOffset(segment.sourceOffset)}</td>
                <td className="font-mono">{formatOffset(segment.destinationOffset)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  )
}
