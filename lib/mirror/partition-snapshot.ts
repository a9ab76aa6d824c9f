/**
 * The figures of the partition page, all from one reading (issue #33 "one snapshot, one answer"): the mirror's
 * partition as the engine holds it, and both logs' extents read at the same moment. The header's lag and records
 * at risk and the log tapes' boundaries (log start, high watermark, log end, mirrored position, at-risk range)
 * come from here, so the header cannot say 41 while the tapes show 45. The records at risk go through
 * lib/mirror/at-risk.ts's `sourceReadingAtRisk`, the very function the failover plan calls, with the plan's
 * mirrored position (the destination's log end; after a failover the last mirror position).
 *
 * Pure: the logs' extents, the oldest unmirrored record's timestamp and the clock are passed in.
 */
import { rowLastFetch, sourceReadingAtRisk, type AtRisk, type AtRiskRow } from './at-risk'
import { timeLagAt } from './partition-lag'

export interface LogExtentReading {
  readonly logStartOffset: number
  readonly highWatermark: number
  readonly logEndOffset: number
}

export interface SnapshotRow extends AtRiskRow {
  readonly destinationHighWatermark: number
  readonly offsetLag: number | null
  readonly lastMirrorPosition: { readonly epoch: number; readonly offset: number } | null
}

export interface PartitionSnapshotInput {
  readonly now: number
  readonly row: SnapshotRow
  /** The source log read now; null when the source did not answer. */
  readonly source: LogExtentReading | null
  /** The destination log read now; null when it did not answer. */
  readonly destination: LogExtentReading | null
  /** Timestamp of the source record at the mirrored position (the oldest not mirrored); null when unknown or none. */
  readonly oldestUnmirroredTimestamp: number | null
}

export interface PartitionSnapshotFigures {
  /** Below this offset the destination holds the source's records (the plan's `mirroredOffset`). */
  readonly mirroredOffset: number
  /** Null once the partition no longer mirrors (STOPPING, STOPPED, UNKNOWN): failed over, nothing more to lose. */
  readonly atRisk: AtRisk | null
  /** Source high watermark − destination high watermark; exact when `offsetLagKnown`, else a lower bound; null when unknown or stopped. */
  readonly offsetLag: number | null
  readonly offsetLagKnown: boolean
  /** Age of the oldest record not mirrored; a lower bound when not `timeLagKnown`. */
  readonly timeLagMs: number | null
  readonly timeLagKnown: boolean
}

const NOT_MIRRORING = new Set(['STOPPING', 'STOPPED', 'UNKNOWN'])

/** Where the destination stands against its source, as the failover plan puts it (lib/mirror/failover-plan.ts). */
export function snapshotMirroredOffset(row: SnapshotRow, destination: LogExtentReading | null): number {
  const position = row.lastMirrorPosition
  if ((row.state === 'STOPPING' || row.state === 'STOPPED') && position !== null && position.epoch >= 0 && position.offset >= 0) return position.offset
  return destination?.logEndOffset ?? row.destinationLogEndOffset
}

export function partitionSnapshotFigures(input: PartitionSnapshotInput): PartitionSnapshotFigures {
  const { now, row, source, destination } = input
  const mirroredOffset = snapshotMirroredOffset(row, destination)
  if (NOT_MIRRORING.has(row.state)) return { mirroredOffset, atRisk: null, offsetLag: null, offsetLagKnown: false, timeLagMs: null, timeLagKnown: false }
  const atRisk = sourceReadingAtRisk({
    now,
    mirroredOffset,
    source: source === null ? null : { logEndOffset: source.logEndOffset, oldestUnmirroredTimestamp: input.oldestUnmirroredTimestamp },
    lastFetch: rowLastFetch(row, now),
  })
  if (source !== null) {
    const destinationHighWatermark = destination?.highWatermark ?? row.destinationHighWatermark
    // The time at risk is exact only when the oldest record's timestamp was read (or nothing is at risk).
    const timeKnown = atRisk.timeMs !== null
    return {
      mirroredOffset,
      atRisk,
      offsetLag: Math.max(0, source.highWatermark - destinationHighWatermark),
      offsetLagKnown: true,
      timeLagMs: timeKnown ? atRisk.timeMs : timeLagAt(row, now),
      timeLagKnown: timeKnown || row.lagKnown !== false,
    }
  }
  const known = row.lagKnown !== false && row.state === 'MIRRORING'
  return { mirroredOffset, atRisk, offsetLag: row.offsetLag, offsetLagKnown: known, timeLagMs: timeLagAt(row, now), timeLagKnown: known }
}
