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
  private readonly said = new Set<string>()
  private drainSeen = ''
  private aborted = 0

  constructor(private readonly style: Style) {}

  /**
   * What happened since the last update, in the order it happened, whatever events were missed: a switchover
   * can pass every phase between two reads, so the phases are said from the timestamps, each once. `before` is
   * what precedes the STOPPING steps (the caller prints those next), `after` what follows them.
   */
  update(switchover: SwitchoverProgress, line: Line, stage: 'before' | 'after'): void {
    const rolling = switchover.phase === 'rollingBack' || switchover.phase === 'rolledBack'
    if (stage === 'before') {
      this.phaseLine('fenceSource', switchover, line)
      this.once('fenced', switchover.fencedAt !== null, line, () => `source fenced ${paint('✓', 'healthy', this.style)}${switchover.fenceMethod === 'none' ? ' (no fence: writes must have stopped)' : ''}`)
      if (switchover.transactionsAbortedAtSource > this.aborted) {
        this.aborted = switchover.transactionsAbortedAtSource
        line(`switchover  ${counted(this.aborted, 'transaction')} aborted by the source after the ${formatDuration(switchover.transactionGraceMs)} grace`)
      }
      if (switchover.drainStartedAt !== null) this.phaseLine('drain', switchover, line)
      this.drainLine(switchover, line)
      this.once('drained', switchover.drainedAt !== null, line, () => {
        const took = switchover.drainStartedAt === null || switchover.drainedAt === null ? '' : ` in ${formatDuration(Math.max(0, switchover.drainedAt - switchover.drainStartedAt))}`
        return `drained ${paint('✓', 'healthy', this.style)}${took}: every destination log end equals the source's`
      })
      this.once('groups', switchover.groupsActiveOnSource.length > 0, line, () => `${paint('▲', 'paused', this.style)} consumer groups still active on the source when it drained: ${switchover.groupsActiveOnSource.join(', ')}`)
      if (switchover.drainedAt !== null && !rolling) this.phaseLine('stopping', switchover, line)
      if (rolling) this.phaseLine('rollingBack', switchover, line)
      return
    }
    if (switchover.phase === 'done') this.phaseLine('done', switchover, line)
    if (switchover.phase === 'rolledBack') this.phaseLine('rolledBack', switchover, line)
    this.once('lost', switchover.recordsLost !== null, line, () => {
      const total = switchover.recordsLost?.total ?? null
      return `records lost: ${paint(total === null ? 'could not be measured' : formatCount(total), total === 0 ? 'healthy' : 'danger', this.style)} (measured at STOPPED)`
    })
  }

  private once(key: string, due: boolean, line: Line, text: () => string): void {
    if (!due || this.said.has(key)) return
    this.said.add(key)
    line(`switchover  ${text()}`)
  }

  private drainLine(switchover: SwitchoverProgress, line: Line): void {
    const drain = switchover.drain
    if (drain === null || switchover.drainedAt !== null || switchover.phase !== 'drain') return
    const text =
      drain.partitionsBehind === 0 && drain.openTransactions === 0
        ? 'destination caught up; checking once more'
        : `${counted(drain.partitionsBehind, 'partition')} behind by ${counted(drain.recordsBehind, 'record')}${drain.openTransactions > 0 ? `, ${counted(drain.openTransactions, 'open transaction')}` : ''}`
    if (text === this.drainSeen) return
    this.drainSeen = text
    line(`switchover  drain: ${text} (rolls back after ${formatDuration(switchover.drainTimeoutMs)})`)
  }

  private phaseLine(phase: SwitchoverProgress['phase'], switchover: SwitchoverProgress, line: Line): void {
    const look = SWITCHOVER_PHASE_STYLE[phase]
    const tone = look.tone === 'neutral' ? null : look.tone
    const why = (phase === 'rollingBack' || phase === 'rolledBack') && switchover.reason !== null ? `: ${switchover.reason}` : ''
    const extra = phase === 'fenceSource' ? ` (${FENCE_METHOD_TEXT[switchover.fenceMethod]})` : phase === 'rolledBack' ? '; the source takes writes again and the mirror mirrors on, nothing lost' : ''
    this.once(`phase:${phase}`, true, line, () => `${paint(`${look.icon} ${look.label}`, tone, this.style)}${why}${extra}`)
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
