import type { SwitchoverProgress } from '@/lib/api/operations'
import { counted, formatCount, formatDuration } from '@/lib/ui/format'
import { SWITCHOVER_PHASE_STYLE } from '@/lib/ui/status-style'
import { paint, type Style } from './format'

/**
 * A planned switchover's phases as lines, for `--watch` and `--stop --type planned`: each phase as it is entered
 * (fencing, draining, stopping, rolling back with its reason), the fence once the source refuses writes, the
 * drain whenever what is still behind changes, and at the end the records lost (measured at STOPPED) or why it
 * rolled back. The same facts the operation page's SwitchoverPhases shows, in the same words.
 */

export const FENCE_METHOD_TEXT = {
  broker: 'the broker refuses writes (TOPIC_WRITE_FENCED)',
  acl: 'DENY WRITE ACLs on the source',
  none: 'no fence: producers stopped by hand, the drain waits for the log ends to stand still',
} as const

type Line = (text: string) => void

export class SwitchoverPrinter {
  private phase: SwitchoverProgress['phase'] | null = null
  private fenced = false
  private drainSeen = ''
  private drained = false
  private lost = false
  private aborted = 0
  private groupsSaid = false

  constructor(private readonly style: Style) {}

  /** Lines in the order things happened: a phase is said after what ended the one before (fenced, then Draining). */
  update(switchover: SwitchoverProgress, line: Line): void {
    this.phaseLine(switchover, line, ['fenceSource'])
    if (!this.fenced && switchover.fencedAt !== null) {
      this.fenced = true
      line(`switchover  source fenced ${paint('✓', 'healthy', this.style)}${switchover.fenceMethod === 'none' ? ' (no fence: writes must have stopped)' : ''}`)
    }
    if (switchover.transactionsAbortedAtSource > this.aborted) {
      this.aborted = switchover.transactionsAbortedAtSource
      line(`switchover  ${counted(this.aborted, 'transaction')} aborted by the source after the ${formatDuration(switchover.transactionGraceMs)} grace`)
    }
    this.phaseLine(switchover, line, ['drain'])
    const drain = switchover.drain
    if (drain !== null && switchover.drainedAt === null && switchover.phase === 'drain') {
      const text =
        drain.partitionsBehind === 0 && drain.openTransactions === 0
          ? 'destination caught up; checking once more'
          : `${counted(drain.partitionsBehind, 'partition')} behind by ${counted(drain.recordsBehind, 'record')}${drain.openTransactions > 0 ? `, ${counted(drain.openTransactions, 'open transaction')}` : ''}`
      if (text !== this.drainSeen) {
        this.drainSeen = text
        line(`switchover  drain: ${text} (rolls back after ${formatDuration(switchover.drainTimeoutMs)})`)
      }
    }
    if (!this.drained && switchover.drainedAt !== null) {
      this.drained = true
      const took = switchover.drainStartedAt === null ? '' : ` in ${formatDuration(Math.max(0, switchover.drainedAt - switchover.drainStartedAt))}`
      line(`switchover  drained ${paint('✓', 'healthy', this.style)}${took}: every destination log end equals the source's`)
    }
    if (!this.groupsSaid && switchover.groupsActiveOnSource.length > 0) {
      this.groupsSaid = true
      line(`switchover  ${paint('▲', 'paused', this.style)} consumer groups still active on the source when it drained: ${switchover.groupsActiveOnSource.join(', ')}`)
    }
    this.phaseLine(switchover, line, ['stopping', 'done', 'rollingBack', 'rolledBack'])
    if (!this.lost && switchover.recordsLost !== null) {
      this.lost = true
      const total = switchover.recordsLost.total
      line(`switchover  records lost: ${paint(total === null ? 'could not be measured' : formatCount(total), total === 0 ? 'healthy' : 'danger', this.style)} (measured at STOPPED)`)
    }
  }

  private phaseLine(switchover: SwitchoverProgress, line: Line, now: ReadonlyArray<SwitchoverProgress['phase']>): void {
    if (switchover.phase === this.phase || !now.includes(switchover.phase)) return
    this.phase = switchover.phase
    const look = SWITCHOVER_PHASE_STYLE[switchover.phase]
    const tone = look.tone === 'neutral' ? null : look.tone
    const why = (switchover.phase === 'rollingBack' || switchover.phase === 'rolledBack') && switchover.reason !== null ? `: ${switchover.reason}` : ''
    const extra = switchover.phase === 'fenceSource' ? ` (${FENCE_METHOD_TEXT[switchover.fenceMethod]})` : switchover.phase === 'rolledBack' ? '; the source takes writes again and the mirror mirrors on, nothing lost' : ''
    line(`switchover  ${paint(`${look.icon} ${look.label}`, tone, this.style)}${why}${extra}`)
  }
}

/** The closing words of a switchover's outcome line: how long writes were refused, or why it rolled back. */
export function switchoverOutcome(switchover: SwitchoverProgress): string {
  const end = switchover.stoppedAt ?? switchover.rolledBackAt
  const refused = switchover.fencedAt === null || end === null ? '' : `writes refused on the source for ${formatDuration(Math.max(0, end - switchover.fencedAt))}`
  if (switchover.phase === 'rolledBack') return `rolled back${switchover.reason === null ? '' : ` (${switchover.reason})`}; nothing lost${refused === '' ? '' : `, ${refused}`}`
  const lost = switchover.recordsLost === null ? '' : `records lost: ${switchover.recordsLost.total === null ? 'unknown' : formatCount(switchover.recordsLost.total)}`
  return [lost, refused].filter((part) => part !== '').join(', ')
}
