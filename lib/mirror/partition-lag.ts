/**
 * A partition's lag as every screen, the API and the metrics show it, honest when the source is silent.
 * lag.ts says what lag is (offset lag, time lag); this says how much of it is known right now.
 *
 * - `known`: MIRRORING, and the source answered a fetch within `LAG_FRESH_MS`: the figures are current.
 * - `lowerBound`: the source answered once but not lately (FAILED with the source unreachable, PAUSED, a
 *   MIRRORING partition whose fetches stall...). Offset lag is the last known figure, as of the last fetch:
 *   what was written since is not counted, so the truth is at least that. Time lag keeps growing with the
 *   clock: nothing the source took since the last fetch has reached the destination, so the destination's
 *   copy is at least `now − lastFetchAt` old, or `now − oldest unmirrored record` when the last known high
 *   watermark was already ahead of the destination.
 * - `unknown`: the source never answered (no high watermark known): there is no figure to give.
 * - `none`: STOPPING, STOPPED or UNKNOWN: the partition is not mirroring (any more, or yet); it has no lag,
 *   and screens say so in words, never "0".
 *
 * Pure: every time is passed in.
 */
import { offsetLag as computeOffsetLag, timeLagMs as computeTimeLag } from './lag'
import type { MirrorPartitionState } from './states'

/** A MIRRORING partition whose last successful fetch is older than this shows lower bounds. */
export const LAG_FRESH_MS = 10_000

export type LagBasis = 'known' | 'lowerBound' | 'unknown' | 'none'

/** States that have no lag: the partition does not mirror, and was not meant to. */
const NO_LAG_STATES: ReadonlySet<MirrorPartitionState> = new Set(['UNKNOWN', 'STOPPING', 'STOPPED'])

export interface PartitionLagInput {
  readonly state: MirrorPartitionState
  readonly now: number
  /** The source high watermark the last successful fetch saw; null before the first. */
  readonly sourceHighWatermark: number | null
  readonly destinationHighWatermark: number
  /** Timestamp of the source record at the destination high watermark, as the last fetch saw it. */
  readonly oldestUnmirroredTimestamp: number | null
  readonly lastFetchAt: number | null
  /**
   * When Mirrorboard last read the source's high watermark itself while the mirror could not (its link cut, the
   * dashboard's own view still answering: server/engine/lag/source-observer.ts); null when never, or before the
   * last fetch. `sourceHighWatermark` is then that reading, and the lower bound's figures stand as of it.
   */
  readonly sourceObservedAt?: number | null
}

export interface PartitionLag {
  readonly basis: LagBasis
  /** Exact when `known`, the last known figure (a lower bound) when `lowerBound`, null otherwise. */
  readonly offsetLag: number | null
  /** Exact when `known`, a lower bound that grows with `now` when `lowerBound`; null when not known at all. */
  readonly timeLagMs: number | null
  /** When the source was last read: the moment the figures stand for. */
  readonly asOf: number | null
  /** While `lowerBound`: the time lag is `now − timeLagFrom`, so a screen can keep it growing without asking again. */
  readonly timeLagFrom: number | null
}

const NO_LAG: PartitionLag = { basis: 'none', offsetLag: null, timeLagMs: null, asOf: null, timeLagFrom: null }
const UNKNOWN_LAG: PartitionLag = { basis: 'unknown', offsetLag: null, timeLagMs: null, asOf: null, timeLagFrom: null }

export function partitionLag(input: PartitionLagInput): PartitionLag {
  if (NO_LAG_STATES.has(input.state)) return NO_LAG
  if (input.sourceHighWatermark === null || input.lastFetchAt === null) return UNKNOWN_LAG
  const offsetLag = computeOffsetLag(input.sourceHighWatermark, input.destinationHighWatermark)
  const fresh = input.state === 'MIRRORING' && input.now - input.lastFetchAt <= LAG_FRESH_MS
  if (fresh) {
    const timeLagMs = computeTimeLag({
      now: input.now,
      sourceHighWatermark: input.sourceHighWatermark,
      destinationHighWatermark: input.destinationHighWatermark,
      oldestUnmirroredTimestamp: input.oldestUnmirroredTimestamp,
    })
    return { basis: 'known', offsetLag, timeLagMs, asOf: input.lastFetchAt, timeLagFrom: null }
  }
  const behindSince = offsetLag > 0 && input.oldestUnmirroredTimestamp !== null ? Math.min(input.oldestUnmirroredTimestamp, input.lastFetchAt) : input.lastFetchAt
  return { basis: 'lowerBound', offsetLag, timeLagMs: Math.max(0, input.now - behindSince), asOf: sourceReadAt(input), timeLagFrom: behindSince }
}

/** When the source high watermark in hand was read: the last fetch, or a later reading of Mirrorboard's own. */
export function sourceReadAt(input: Pick<PartitionLagInput, 'lastFetchAt' | 'sourceObservedAt'>): number | null {
  const observed = input.sourceObservedAt ?? null
  if (input.lastFetchAt === null) return observed
  return observed !== null && observed > input.lastFetchAt ? observed : input.lastFetchAt
}

/** The time lag of a partition at `now`: a lower bound keeps growing from `timeLagFrom`, a known figure stays as read. */
export function timeLagAt(lag: { readonly timeLagMs: number | null; readonly timeLagFrom?: number | null }, now: number): number | null {
  if (lag.timeLagFrom === null || lag.timeLagFrom === undefined) return lag.timeLagMs
  return Math.max(lag.timeLagMs ?? 0, now - lag.timeLagFrom)
}

/** What the mirror-wide figures are read from: a partition as the API shows it. */
export interface LagRow {
  readonly state: MirrorPartitionState
  readonly offsetLag: number | null
  readonly timeLagMs: number | null
  readonly lagKnown?: boolean
  readonly lagAsOf?: number | null
  readonly timeLagFrom?: number | null
}

export interface MirrorLag {
  /** Worst partition's offset lag; null when a partition's lag is not known at all, or none has lag. */
  readonly maxOffsetLag: number | null
  /** Offset lag summed: how many records the destination is behind in all. */
  readonly totalOffsetLag: number | null
  readonly maxTimeLagMs: number | null
  /** Every figure is exact; false: they are lower bounds (or null). */
  readonly known: boolean
  /** The oldest source reading among them: the figures are true as of then at least. */
  readonly asOf: number | null
  /** Partitions whose figures are lower bounds. */
  readonly lowerBounds: number
  /** Partitions whose lag counts (not STOPPING, STOPPED or UNKNOWN). */
  readonly counted: number
}

/**
 * The mirror's figures over its partitions, the same for the API's summary, the mirror page's header and the
 * metrics. A partition whose lag is not known at all (its source never answered) makes every figure null, as a
 * mirror that copied nothing yet must never read "caught up"; a mirror with no partition that has lag (all
 * STOPPED) has no figures either.
 */
export function mirrorLag(rows: Iterable<LagRow>, now: number): MirrorLag {
  let maxOffsetLag = 0
  let totalOffsetLag = 0
  let maxTimeLagMs = 0
  let asOf: number | null = null
  let lowerBounds = 0
  let counted = 0
  let unknown = false
  for (const row of rows) {
    if (NO_LAG_STATES.has(row.state)) continue
    counted += 1
    if (row.offsetLag === null) {
      unknown = true
      continue
    }
    if (row.lagKnown === false) lowerBounds += 1
    maxOffsetLag = Math.max(maxOffsetLag, row.offsetLag)
    totalOffsetLag += row.offsetLag
    maxTimeLagMs = Math.max(maxTimeLagMs, timeLagAt(row, now) ?? 0)
    if (row.lagAsOf !== null && row.lagAsOf !== undefined) asOf = asOf === null ? row.lagAsOf : Math.min(asOf, row.lagAsOf)
  }
  if (unknown || counted === 0) return { maxOffsetLag: null, totalOffsetLag: null, maxTimeLagMs: null, known: false, asOf, lowerBounds, counted }
  return { maxOffsetLag, totalOffsetLag, maxTimeLagMs, known: lowerBounds === 0, asOf, lowerBounds, counted }
}
