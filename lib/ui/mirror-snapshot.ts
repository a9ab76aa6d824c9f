/**
 * Everything the mirror page says about a mirror, read from one snapshot of its partitions at one `now`:
 * the state counts, the lag (lib/mirror/partition-lag.ts's mirrorLag: lower bounds while a source is silent),
 * the records and time at risk (lib/mirror/at-risk.ts, the function the failover plan uses), the last fetch and
 * the incident (lib/overview/incident.ts). The header, the chart's trend and the banner read this one answer,
 * so the page cannot say "caught up" in one place and "≥ 142 behind" in another.
 *
 * Pure: the rows and the clock are passed in.
 */
import type { MirrorPartition } from '../api/mirrors'
import { partitionAtRisk, totalAtRisk, type AtRisk } from '../mirror/at-risk'
import { mirrorLag, type MirrorLag } from '../mirror/partition-lag'
import type { MirrorPartitionState } from '../mirror/states'
import { incidentOf, type Incident } from '../overview/incident'

export interface MirrorSnapshot {
  /** The moment every figure is read at: the page's "as of" stamp. */
  readonly at: number
  readonly partitions: number
  readonly counts: Partial<Record<MirrorPartitionState, number>>
  readonly lag: MirrorLag
  readonly atRisk: AtRisk
  /** The newest successful fetch of any partition; null when none ever fetched. */
  readonly lastFetchAt: number | null
  readonly incident: Incident | null
  /**
   * Why the lag is not current, or null when it is: the trend and the chart's summary say "unknown: <because>"
   * rather than guess from figures that stopped moving.
   */
  readonly lagUnknown: LagUnknown | null
  /**
   * Why no partition is mirroring ("every partition is STOPPED"), or null while one is: a failed-over mirror's
   * chart ends at its last sample, and reading "steady, every topic caught up" from it would describe a mirror
   * that no longer runs.
   */
  readonly notMirroringBecause: string | null
}

export function mirrorSnapshot(mirror: string, rows: Iterable<MirrorPartition>, now: number): MirrorSnapshot {
  const all = [...rows]
  const counts: Partial<Record<MirrorPartitionState, number>> = {}
  let lastFetchAt: number | null = null
  for (const row of all) {
    counts[row.state] = (counts[row.state] ?? 0) + 1
    if (row.lastFetchAt !== null && (lastFetchAt === null || row.lastFetchAt > lastFetchAt)) lastFetchAt = row.lastFetchAt
  }
  const lag = mirrorLag(all, now)
  // The live store patches a row's lag from lag events but not its watermarks, which are as of the last full
  // read: the records at risk are read from the live offset lag (the source's high watermark is the mirrored
  // position plus it), so they move with the lag instead of standing still at the page's first answer.
  const atRisk = totalAtRisk(all.map((row) => partitionAtRisk(row.offsetLag === null ? row : { ...row, sourceHighWatermark: row.destinationLogEndOffset + row.offsetLag }, now)))
  const incident = incidentOf(mirror, all)
  return { at: now, partitions: all.length, counts, lag, atRisk, lastFetchAt, incident, lagUnknown: lagUnknownReason(lag, incident, counts), notMirroringBecause: notMirroringReason(all.length, counts) }
}

function notMirroringReason(partitions: number, counts: Partial<Record<MirrorPartitionState, number>>): string | null {
  const stopped = counts.STOPPED ?? 0
  const stopping = counts.STOPPING ?? 0
  if (partitions === 0 || stopped + stopping < partitions) return null
  return stopping === 0 ? 'every partition is STOPPED' : `stopping (${stopping} of ${partitions} partitions STOPPING)`
}

/**
 * Why a mirror's lag is not known now. `firstFetchPending`: none of its partitions has had a fetch answered yet —
 * created moments ago (or just restarted), not an incident: there is no last figure to bound, so nothing says
 * "at least …, and growing" (a source that stops answering fails its partitions: `sourceUnreachable`).
 */
export type LagUnknownCause = 'sourceUnreachable' | 'destinationUnreachable' | 'failed' | 'paused' | 'firstFetchPending' | 'fetchesStalled'

export interface LagUnknown {
  readonly cause: LagUnknownCause
  /** In the operator's words: "source unreachable". */
  readonly because: string
}

const LAG_UNKNOWN_BECAUSE: Record<LagUnknownCause, string> = {
  sourceUnreachable: 'source unreachable',
  destinationUnreachable: 'destination unreachable',
  failed: 'partitions FAILED',
  paused: 'partitions paused',
  firstFetchPending: 'no fetch answered yet',
  fetchesStalled: 'fetches stalled',
}

export function lagUnknownOf(cause: LagUnknownCause): LagUnknown {
  return { cause, because: LAG_UNKNOWN_BECAUSE[cause] }
}

function lagUnknownReason(lag: MirrorLag, incident: Incident | null, counts: Partial<Record<MirrorPartitionState, number>>): LagUnknown | null {
  if (lag.counted === 0) return null
  if (lag.known && lag.maxOffsetLag !== null) return null
  const cause = incident?.groups[0]?.cause
  if (cause === 'sourceUnreachable') return lagUnknownOf('sourceUnreachable')
  if (cause === 'destinationUnreachable') return lagUnknownOf('destinationUnreachable')
  if (incident !== null) return lagUnknownOf('failed')
  if ((counts.PAUSED ?? 0) + (counts.PAUSING ?? 0) > 0) return lagUnknownOf('paused')
  if (lag.maxOffsetLag === null) return lagUnknownOf('firstFetchPending')
  return lagUnknownOf('fetchesStalled')
}
