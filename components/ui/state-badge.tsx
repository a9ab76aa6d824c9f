import type { MirrorPartitionState } from '@/lib/mirror/states'
import { STATE_STYLE, stateExplanation, TONE_STYLE } from '@/lib/ui/state-style'
import { formatInteger } from '@/lib/ui/format'

/** A partition state as a badge: glyph and name, coloured by tone, described on hover. */
export function StateBadge({ state, count, size = 'md' }: { state: MirrorPartitionState; count?: number; size?: 'sm' | 'md' }) {
  const style = STATE_STYLE[state]
  return (
    <span
      data-state={state}
      title={stateExplanation(state)}
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded-full font-medium ring-1 ring-inset ${TONE_STYLE[style.tone].badge} ${
        size === 'sm' ? 'px-1.5 py-0 text-[11px]' : 'px-2 py-0.5 text-xs'
      }`}
    >
      <span aria-hidden className="font-mono leading-none">
        {style.icon}
      </span>
      {style.short}
      {count !== undefined && <span className="tabular-nums">{formatInteger(count)}</span>}
    </span>
  )
}
