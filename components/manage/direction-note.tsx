import type { MirrorDirection } from '@/lib/ui/mirror-direction'

/**
 * What the chosen source and destination mean beside the mirrors that exist, before anything is sent: a
 * reverse mirror is the failback pair (legal once the other way is STOPPED), a loop sends records back where
 * they came from (the server refuses topics still mirrored the other way).
 */
export function DirectionNote({ direction, source, destination }: { direction: MirrorDirection; source: string; destination: string }) {
  switch (direction.kind) {
    case 'plain':
      return null
    case 'same-cluster':
      return (
        <Note tone="bad" icon="✕" title="Source and destination are the same cluster">
          A mirror copies topics between two clusters; choose another destination.
        </Note>
      )
    case 'reverse':
      return (
        <Note tone="warn" icon="⇄" title={`A reverse mirror of ${direction.mirrors.join(', ')}`}>
          {direction.mirrors.join(', ')} already mirrors {destination} → {source}. This one goes back, {source} → {destination}: the failback pair. It
          is refused for every topic the other mirror still mirrors (not STOPPED), since records would circle between the two clusters; after a
          failover those topics are STOPPED and this mirror truncates {destination} to what the two share, then copies what was written since.
        </Note>
      )
    case 'loop':
      return (
        <Note tone="warn" icon="↻" title="This mirror closes a loop">
          Records written on {source} would come back to it: {direction.path.join(' → ')}. A topic in every mirror of the loop would be copied around
          it for ever; the server refuses topics still mirrored the other way, so keep the loop’s topic lists disjoint.
        </Note>
      )
    case 'parallel':
      return (
        <Note tone="info" icon="ℹ" title={`${direction.mirrors.join(', ')} already mirrors ${source} → ${destination}`}>
          A second mirror between the same clusters is fine for other topics; a topic already mirrored by one of them is refused.
        </Note>
      )
  }
}

const TONES = {
  bad: 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-50',
  warn: 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50',
  info: 'border-slate-300 bg-slate-50 text-slate-900 dark:border-slate-700 dark:bg-slate-800/60 dark:text-slate-100',
} as const

function Note({ tone, icon, title, children }: { tone: keyof typeof TONES; icon: string; title: string; children: React.ReactNode }) {
  return (
    <div role="note" aria-label={title} className={`flex gap-2 rounded-md border px-3 py-2 text-sm ${TONES[tone]}`}>
      <span aria-hidden className="font-semibold">
        {icon}
      </span>
      <div className="min-w-0">
        <p className="font-semibold">{title}</p>
        <p className="mt-0.5">{children}</p>
      </div>
    </div>
  )
}
