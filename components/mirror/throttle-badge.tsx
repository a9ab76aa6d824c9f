import type { Mirror } from '@/lib/api/mirrors'
import { formatBytes } from '@/lib/ui/format'
import { TONE_STYLE } from '@/lib/ui/state-style'

/**
 * The mirror's replication throttle (`mirror.replication.throttled.rate`): a badge saying whether the rate
 * is holding the mirror back now, so a growing lag is not mistaken for a slow link. Nothing when unthrottled.
 */
export function ThrottleBadge({ mirror }: { mirror: Pick<Mirror, 'throttled' | 'throttledRate'> }) {
  if (mirror.throttledRate === null || mirror.throttledRate === undefined) return null
  const rate = `${formatBytes(mirror.throttledRate)}/s`
  const limiting = mirror.throttled === true
  return (
    <span
      data-testid="throttle-badge"
      data-throttled={limiting}
      title={
        limiting
          ? `The replication throttle (${rate}) is holding this mirror's fetches back: lag may grow while the source writes faster.`
          : `Replication throttle of ${rate}; the mirror is fetching below it now.`
      }
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${
        limiting ? TONE_STYLE.paused.badge : TONE_STYLE.neutral.badge
      }`}
    >
      {limiting ? `Throttled at ${rate}` : `Throttle ${rate}`}
    </span>
  )
}
