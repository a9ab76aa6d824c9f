/**
 * Records and time at risk: what the source holds that the destination does not, so destination readers
 * never see it if the mirror fails over now. One function answers it for the failover plan (and so the
 * wizard), the mirror page and the partition page, so the three never disagree on the same reading.
 *
 * - From a current reading of the source (a plan's describe, a partition whose lag is known): exact,
 *   `max(0, source logEndOffset − mirroredOffset)`, and the age of the oldest of those records.
 * - With the source silent, from what the last successful fetch saw: a lower bound. The records it already
 *   knew were not mirrored, `max(0, last high watermark − mirroredOffset)` (anything written since adds to
 *   it), and a time that keeps growing from the last fetch (or from the oldest unmirrored record then).
 * - Neither: unknown (null).
 *
 * Pure: every time is passed in.
 */
import type { MirrorPartitionState } from './states'
import { partitionLag, sourceReadAt, timeLagAt, type PartitionLagInput } from './partition-lag'

export interface AtRisk {
  /** Exact when `known`, else a lower bound; null when nothing is known. */
  readonly records: number | null
  /** Age of the oldest record at risk (0 when none); a lower bound when not `known`; null when unknown. */
  readonly timeMs: number | null
  readonly known: boolean
  /** When the source reading these figures rest on was made. */
  readonly asOf: number | null
}

export interface AtRiskInput {
  readonly now: number
  /** Everything below this offset is on the destination. */
  readonly mirroredOffset: number
  /** A current reading of the source; null when it cannot be read now. */
  readonly source: {
    readonly logEndOffset: number
    /** Age of the oldest record beyond mirroredOffset; null when its timestamp is unknown. */
    readonly timeAtRiskMs: number | null
    readonly at: number
  } | null
  /** What the mirror's last successful fetch saw of the source; null before the first. */
  readonly lastFetch: {
    readonly highWatermark: number
    readonly at: number
    /** The lower bound of the time at risk grows from here: the last fetch, or the oldest record not mirrored then. */
    readonly timeLagFrom: number
  } | null
}

/** The last successful fetch's reading of a partition (the engine's runtime figures), for `AtRiskInput.lastFetch`. */
export function lastFetchReading(input: PartitionLagInput): AtRiskInput['lastFetch'] {
  if (input.sourceHighWatermark === null || input.lastFetchAt === null) return null
  // As a lower bound whatever the state, so its time grows from the fetch (or the oldest record unmirrored then).
  const lag = partitionLag({ ...input, state: 'FAILED' })
  return { highWatermark: input.sourceHighWatermark, at: sourceReadAt(input) ?? input.lastFetchAt, timeLagFrom: lag.timeLagFrom ?? input.lastFetchAt }
}

export const UNKNOWN_AT_RISK: AtRisk = { records: null, timeMs: null, known: false, asOf: null }

export function recordsAtRisk(input: AtRiskInput): AtRisk {
  if (input.source !== null) {
    const records = Math.max(0, input.source.logEndOffset - input.mirroredOffset)
    return { records, timeMs: records === 0 ? 0 : input.source.timeAtRiskMs, known: true, asOf: input.source.at }
  }
  if (input.lastFetch === null) return UNKNOWN_AT_RISK
  return {
    records: Math.max(0, input.lastFetch.highWatermark - input.mirroredOffset),
    timeMs: Math.max(0, input.now - input.lastFetch.timeLagFrom),
    known: false,
    asOf: input.lastFetch.at,
  }
}

/**
 * The failover plan's reading of one partition (lib/mirror/failover-plan.ts) and the partition page's snapshot
 * (lib/mirror/partition-snapshot.ts) both go through here: the source's log end read now, the timestamp of its
 * oldest record not mirrored (null when unknown), or, with the source silent, the last fetch's lower bounds.
 */
export function sourceReadingAtRisk(input: {
  readonly now: number
  readonly mirroredOffset: number
  readonly source: { readonly logEndOffset: number; readonly oldestUnmirroredTimestamp: number | null } | null
  readonly lastFetch: AtRiskInput['lastFetch']
}): AtRisk {
  const { now, source } = input
  return recordsAtRisk({
    now,
    mirroredOffset: input.mirroredOffset,
    source:
      source === null
        ? null
        : { logEndOffset: source.logEndOffset, timeAtRiskMs: source.oldestUnmirroredTimestamp === null ? null : Math.max(0, now - source.oldestUnmirroredTimestamp), at: now },
    lastFetch: input.lastFetch,
  })
}

/** A mirror partition as the API shows it (lib/api/mirrors.ts `MirrorPartition`). */
export interface AtRiskRow {
  readonly state: MirrorPartitionState
  readonly sourceHighWatermark: number | null
  readonly destinationLogEndOffset: number
  readonly timeLagMs: number | null
  readonly lastFetchAt: number | null
  readonly lagKnown?: boolean
  readonly lagAsOf?: number | null
  readonly timeLagFrom?: number | null
}

/**
 * A partition's records at risk from its API figures (the mirror and partition pages): the source's high
 * watermark as the last fetch saw it stands for its log end; exact while the lag is known, a lower bound
 * otherwise. Null for partitions that no longer mirror (STOPPING, STOPPED, UNKNOWN): their failover is done
 * or cannot be planned.
 */
export function partitionAtRisk(row: AtRiskRow, now: number): AtRisk | null {
  if (row.state === 'STOPPING' || row.state === 'STOPPED' || row.state === 'UNKNOWN') return null
  const lastFetch = rowLastFetch(row, now)
  if (row.sourceHighWatermark === null || lastFetch === null) return UNKNOWN_AT_RISK
  const known = row.lagKnown ?? row.state === 'MIRRORING'
  return recordsAtRisk({
    now,
    mirroredOffset: row.destinationLogEndOffset,
    source: known ? { logEndOffset: row.sourceHighWatermark, timeAtRiskMs: row.timeLagMs, at: lastFetch.at } : null,
    lastFetch,
  })
}

/** What the mirror's last successful fetch saw of a partition, from its API figures; null before the first. */
export function rowLastFetch(row: AtRiskRow, now: number): AtRiskInput['lastFetch'] {
  if (row.sourceHighWatermark === null || row.lastFetchAt === null) return null
  return { highWatermark: row.sourceHighWatermark, at: row.lagAsOf ?? row.lastFetchAt, timeLagFrom: row.timeLagFrom ?? now - (timeLagAt(row, now) ?? 0) }
}

/**
 * Many partitions' figures as one: records added up, the oldest time; known only when every part is; as of
 * the oldest reading. Unknown (null) as soon as one part is unknown, since a total that leaves a partition
 * out would read as smaller than it is.
 */
export function totalAtRisk(parts: Iterable<AtRisk | null>): AtRisk {
  let records = 0
  let timeMs = 0
  let known = true
  let asOf: number | null = null
  let unknownRecords = false
  let unknownTime = false
  for (const part of parts) {
    if (part === null) continue
    if (part.records === null) unknownRecords = true
    else records += part.records
    if (part.timeMs === null) {
      if (part.records !== 0) unknownTime = true
    } else timeMs = Math.max(timeMs, part.timeMs)
    known &&= part.known
    if (part.asOf !== null) asOf = asOf === null ? part.asOf : Math.min(asOf, part.asOf)
  }
  return { records: unknownRecords ? null : records, timeMs: unknownTime ? null : timeMs, known, asOf }
}
