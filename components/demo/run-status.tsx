import type { RunStatus } from '@/lib/api/demo'
import { TONE_STYLE, type StateTone } from '@/lib/ui/state-style'

/** A run's or a step's status: a glyph and a word as well as a colour, so it never depends on colour alone. */
const RUN_STATUS_STYLE = {
  pending: { label: 'Pending', icon: '○', tone: 'neutral' },
  running: { label: 'Running', icon: '◔', tone: 'progress' },
  succeeded: { label: 'Succeeded', icon: '✓', tone: 'healthy' },
  failed: { label: 'Failed', icon: '✕', tone: 'danger' },
} as const satisfies Record<RunStatus, { label: string; icon: string; tone: StateTone }>

export function runStatusLabel(status: RunStatus): string {
  return RUN_STATUS_STYLE[status].label
}

export function RunStatusBadge({ status, className = '' }: { status: RunStatus; className?: string }) {
  const style = RUN_STATUS_STYLE[status]
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONE_STYLE[style.tone].badge} ${className}`}>
      <span aria-hidden className={status === 'running' ? 'motion-safe:animate-pulse' : undefined}>
        {style.icon}
      </span>
      <span>{style.label}</span>
    </span>
  )
}

/** The round marker of a step in the narration: the glyph alone, with the status as its accessible name. */
export function StepMarker({ status, number }: { status: RunStatus; number: number }) {
  const style = RUN_STATUS_STYLE[status]
  return (
    <span
      role="img"
      aria-label={`Step ${number}: ${style.label.toLowerCase()}`}
      className={`grid h-7 w-7 shrink-0 place-items-center rounded-full text-sm font-semibold ring-1 ring-inset ${TONE_STYLE[style.tone].badge}`}
    >
      <span aria-hidden className={status === 'running' ? 'motion-safe:animate-pulse' : undefined}>
        {status === 'pending' ? number : style.icon}
      </span>
    </span>
  )
}
