import type { RunStatus } from '@/lib/api/demo'
import { TONE_STYLE } from '@/lib/ui/state-style'
import { RUN_STATUS_STYLE, type StatusStyle } from '@/lib/ui/status-style'
import { StatusBadge } from '@/components/ui/status-badge'

export function runStatusLabel(status: RunStatus): string {
  return RUN_STATUS_STYLE[status].label
}

/** A run's or a step's status: a glyph and a word as well as a colour, so it never depends on colour alone. */
export function RunStatusBadge({ status, className = '' }: { status: RunStatus; className?: string }) {
  return <StatusBadge look={RUN_STATUS_STYLE[status]} className={className} />
}

/** The round marker of a step in the narration: the glyph alone, with the status as its accessible name. */
export function StepMarker({ status, number }: { status: RunStatus; number: number }) {
  const style: StatusStyle = RUN_STATUS_STYLE[status]
  return (
    <span
      role="img"
      aria-label={`Step ${number}: ${style.label.toLowerCase()}`}
      className={`grid h-7 w-7 shrink-0 place-items-center rounded-full text-sm font-semibold ring-1 ring-inset ${TONE_STYLE[style.tone].badge}`}
    >
      <span aria-hidden className={style.active === true ? 'motion-safe:animate-pulse' : undefined}>
        {status === 'pending' ? number : style.icon}
      </span>
    </span>
  )
}
