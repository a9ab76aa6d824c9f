import { formatInteger } from '../ui/format'

/**
 * A planned switchover (issue #34, KIP-1279.md §9.2): fence writes on the source, drain until the destination
 * holds every record, then STOPPING — nothing lost, measured. Pure: what the engine's switchover phases
 * (server/engine/switchover/) decide from what they read of both clusters.
 *
 * Phases, in order: `fenceSource` (writes refused on the source; open transactions get a grace, then the
 * source's coordinator aborts them) → `drain` (every partition's destination log end equals the source's,
 * with nothing open on the source) → `stopping` (the STOPPING sequence, as a failover) → `done`. A drain
 * that does not finish in time, or a cancel before `stopping`, goes `rollingBack` (the source is unfenced)
 * → `rolledBack`: the mirror mirrors on as before, nothing lost.
 */

export const SWITCHOVER_PHASES = ['fenceSource', 'drain', 'stopping', 'done', 'rollingBack', 'rolledBack'] as const
export type SwitchoverPhase = (typeof SWITCHOVER_PHASES)[number]

/** How the source refuses writes (server/cluster/ports.ts WriteFenceMethod). */
export type FenceMethod = 'broker' | 'acl' | 'none'

/** API.md §"Round 3": the defaults of a planned failover's two bounds. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 120_000
export const DEFAULT_TRANSACTION_GRACE_MS = 30_000
/** Bounds a caller may ask for: long enough for a large mirror, short enough that a fence is never forgotten. */
export const MAX_DRAIN_TIMEOUT_MS = 3_600_000
export const MAX_TRANSACTION_GRACE_MS = 900_000
/**
 * Without a fence (`none`: a Kafka cluster without an authorizer) the operator stops the producers; the
 * drain then also waits until the source's log ends have stood still this long, so a producer that was
 * forgotten is seen writing instead of losing its records at STOPPED.
 */
export const STANDSTILL_MS = 3_000

/** Phases in which the switchover can still roll back (a cancel is accepted). */
export function canRollBack(phase: SwitchoverPhase): boolean {
  return phase === 'fenceSource' || phase === 'drain'
}

export interface SourcePartitionEnds {
  readonly topic: string
  readonly partition: number
  readonly logEndOffset: number
  readonly highWatermark: number
  readonly lastStableOffset: number
  /** Where the source log starts (0 when not read): what an empty destination would have had to mirror from. */
  readonly logStartOffset?: number
}

export interface DestinationPartitionEnd {
  readonly topic: string
  readonly partition: number
  readonly logEndOffset: number
}

export interface DrainReading {
  /** Every partition's destination log end equals the source's, and no transaction is open on the source. */
  readonly drained: boolean
  readonly partitions: number
  /** Partitions whose destination is still behind the source (or missing on either side). */
  readonly partitionsBehind: number
  /** Offsets the destinations still lack, summed. */
  readonly recordsBehind: number
  /** Source partitions with an open transaction (last stable offset below the high watermark). */
  readonly openTransactions: number
  /** Partitions of the selection the source or the destination did not describe. */
  readonly missing: number
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`

/** Where the drain stands: verified from both sides' log ends, never assumed from the mirror's own lag figure. */
export function drainReading(selection: ReadonlyArray<{ topic: string; partition: number }>, source: readonly SourcePartitionEnds[], destination: readonly DestinationPartitionEnd[]): DrainReading {
  const sourceBy = new Map(source.map((p) => [key(p.topic, p.partition), p]))
  const destinationBy = new Map(destination.map((p) => [key(p.topic, p.partition), p]))
  let partitionsBehind = 0
  let recordsBehind = 0
  let openTransactions = 0
  let missing = 0
  for (const { topic, partition } of selection) {
    const s = sourceBy.get(key(topic, partition))
    const d = destinationBy.get(key(topic, partition))
    if (s === undefined || d === undefined) {
      missing += 1
      partitionsBehind += 1
      continue
    }
    if (s.lastStableOffset < s.highWatermark) openTransactions += 1
    if (d.logEndOffset < s.logEndOffset) {
      partitionsBehind += 1
      recordsBehind += s.logEndOffset - d.logEndOffset
    }
  }
  return {
    drained: selection.length > 0 && partitionsBehind === 0 && openTransactions === 0,
    partitions: selection.length,
    partitionsBehind,
    recordsBehind,
    openTransactions,
    missing,
  }
}

/** Whether the source's log ends are exactly those of an earlier reading (the stand-still check). */
export function sameLogEnds(a: readonly SourcePartitionEnds[], b: readonly SourcePartitionEnds[]): boolean {
  if (a.length !== b.length) return false
  const by = new Map(a.map((p) => [key(p.topic, p.partition), p.logEndOffset]))
  return b.every((p) => by.get(key(p.topic, p.partition)) === p.logEndOffset)
}

export interface RecordsLost {
  readonly total: number
  readonly partitions: ReadonlyArray<{ topic: string; partition: number; recordsLost: number }>
}

/**
 * What a switchover lost, measured at STOPPED: per partition the source's log end (fenced, so it stands)
 * minus the offset the destination mirrored up to (its last mirror position, captured by STOPPING before its
 * markers). `empty`: STOPPING found the destination empty (its last mirror position is undefined): it lost
 * whatever the source holds, from its log start. `lostBelow`: records below that position the destination lost
 * during the switchover (a Kafka destination's orphaned transaction, partly removed by retention before its records
 * could be carried into a new one: the source commits them, the destination never will; null when unknown). A
 * partition whose figures are unknown counts as unknown, never as 0: `total` is then null.
 */
export function measureRecordsLost(
  partitions: ReadonlyArray<{ topic: string; partition: number; mirroredOffset: number | 'empty' | null; lostBelow?: number | null }>,
  source: readonly SourcePartitionEnds[],
): { total: number | null; partitions: Array<{ topic: string; partition: number; recordsLost: number | null }> } {
  const sourceBy = new Map(source.map((p) => [key(p.topic, p.partition), p]))
  let total: number | null = 0
  const measured = partitions.map(({ topic, partition, mirroredOffset, lostBelow = 0 }) => {
    const ends = sourceBy.get(key(topic, partition))
    const from = mirroredOffset === 'empty' ? (ends?.logStartOffset ?? 0) : mirroredOffset
    const lost = ends === undefined || from === null || lostBelow === null ? null : Math.max(0, ends.logEndOffset - from) + lostBelow
    total = lost === null || total === null ? null : total + lost
    return { topic, partition, recordsLost: lost }
  })
  return { total, partitions: measured }
}

/** The sentence an operation's outcome carries when a drain ran out of time. */
export function drainTimeoutReason(timeoutMs: number, reading: DrainReading | null): string {
  const seconds = Math.round(timeoutMs / 100) / 10
  if (reading === null) return `the drain did not finish within ${seconds} s (the clusters could not be read)`
  const parts: string[] = []
  if (reading.partitionsBehind > 0) parts.push(`${reading.partitionsBehind} of ${reading.partitions} partitions still ${formatInteger(reading.recordsBehind)} records behind`)
  if (reading.openTransactions > 0) parts.push(`${reading.openTransactions} source partitions with a transaction still open`)
  return `the drain did not finish within ${seconds} s: ${parts.length > 0 ? parts.join('; ') : 'the source log ends did not stand still'}`
}
