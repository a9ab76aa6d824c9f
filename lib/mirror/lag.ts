/**
 * Mirror lag per partition (DESIGN.md §4, KIP-1279.md §8) and a bounded in-memory history of it.
 * Every time is passed in (epoch milliseconds): nothing here reads a clock.
 */
import { MirrorError } from './errors'

// POINT-IN-TIME LAG

/**
 * Offset lag as the KIP defines it: `max(0, source highWatermark − destination highWatermark)`. The
 * destination HW (not its log end) counts, because only replicated data is safe over a failover.
 */
export function offsetLag(sourceHighWatermark: number, destinationHighWatermark: number): number {
  return Math.max(0, sourceHighWatermark - destinationHighWatermark)
}

export interface TimeLagInput {
  readonly now: number
  readonly sourceHighWatermark: number
  readonly destinationHighWatermark: number
  /**
   * Timestamp of the oldest source record not yet mirrored (the source record at the destination
   * high watermark); `null` when the engine has not read it.
   */
  readonly oldestUnmirroredTimestamp: number | null
}

/**
 * Time lag: how old the oldest not-yet-mirrored source record is. 0 when caught up, whatever the
 * timestamp; `null` when behind but the record's timestamp is unknown. Never negative, even when the
 * source clock runs ahead of ours.
 */
export function timeLagMs(input: TimeLagInput): number | null {
  if (offsetLag(input.sourceHighWatermark, input.destinationHighWatermark) === 0) return 0
  if (input.oldestUnmirroredTimestamp === null) return null
  return Math.max(0, input.now - input.oldestUnmirroredTimestamp)
}

/** Time since the last successful fetch; `null` before the first one. */
export function freshnessMs(now: number, lastFetchAt: number | null): number | null {
  if (lastFetchAt === null) return null
  return Math.max(0, now - lastFetchAt)
}

/** No successful fetch within `thresholdMs` (or none at all). */
export function isFetchStale(now: number, lastFetchAt: number | null, thresholdMs: number): boolean {
  const freshness = freshnessMs(now, lastFetchAt)
  return freshness === null || freshness > thresholdMs
}

// HISTORY

/** One sample or bucket: `[time, offsetLag, timeLagMs]`, as API.md's lag series points. */
export type LagPoint = readonly [time: number, offsetLag: number, timeLagMs: number | null]

export interface LagHistoryConfig {
  /** Width of a recent slot (default 1 s). */
  readonly fineResolutionMs: number
  /** How far back recent slots reach (default 1 h). */
  readonly fineRetentionMs: number
  /** Width of a downsampled bucket (default 1 min). */
  readonly coarseResolutionMs: number
  /** How far back downsampled buckets reach (default 24 h). */
  readonly coarseRetentionMs: number
}

export const DEFAULT_LAG_HISTORY_CONFIG: LagHistoryConfig = {
  fineResolutionMs: 1000,
  fineRetentionMs: 60 * 60 * 1000,
  coarseResolutionMs: 60 * 1000,
  coarseRetentionMs: 24 * 60 * 60 * 1000,
}

export interface LagQuery {
  /** Inclusive; default: as far back as kept. */
  readonly from?: number
  /** Inclusive; default: the newest sample. */
  readonly to?: number
  /** Re-bucket the answer to this width, keeping the maximum per bucket. */
  readonly stepMs?: number
}

/**
 * Two ring buffers: recent slots at fine resolution and older buckets at coarse resolution. Every
 * sample lands in both. A slot or bucket keeps the worst (maximum) lag seen in it, since the peak is
 * what an operator looks for; an unknown time lag (`null`) only survives if nothing known arrived.
 * Memory is fixed: slots = retention / resolution for each ring (3600 + 1440 by default).
 *
 * A sample older than what a ring still holds at its slot is dropped by that ring; time may go
 * backwards a little (samples from several fetchers) without losing data.
 */
export class LagHistory {
  readonly config: LagHistoryConfig
  private readonly fine: Ring
  private readonly coarse: Ring
  private newest: number | null = null

  constructor(config: LagHistoryConfig = DEFAULT_LAG_HISTORY_CONFIG) {
    assertHistoryConfig(config)
    this.config = config
    this.fine = new Ring(config.fineResolutionMs, Math.ceil(config.fineRetentionMs / config.fineResolutionMs))
    this.coarse = new Ring(config.coarseResolutionMs, Math.ceil(config.coarseRetentionMs / config.coarseResolutionMs))
  }

  record(time: number, offsetLagValue: number, timeLagValue: number | null): void {
    if (!Number.isFinite(time) || !Number.isFinite(offsetLagValue) || offsetLagValue < 0) {
      throw new MirrorError('VALIDATION_FAILED', `lag sample needs a finite time and a non-negative offset lag`)
    }
    if (timeLagValue !== null && (!Number.isFinite(timeLagValue) || timeLagValue < 0)) {
      throw new MirrorError('VALIDATION_FAILED', `time lag must be null or a non-negative number`)
    }
    this.fine.add(time, offsetLagValue, timeLagValue)
    this.coarse.add(time, offsetLagValue, timeLagValue)
    this.newest = this.newest === null ? time : Math.max(this.newest, time)
  }

  /** Time of the newest sample, `null` when empty. */
  get newestTime(): number | null {
    return this.newest
  }

  /**
   * Points in time order: fine slots where they still reach (the last fineRetentionMs before the
   * newest sample), coarse buckets before that. With `stepMs`, points are merged into buckets of that
   * width (bucket start as time, maximum as value).
   */
  points(query: LagQuery = {}): LagPoint[] {
    if (this.newest === null) return []
    const from = query.from ?? Number.NEGATIVE_INFINITY
    const to = query.to ?? this.newest
    const fineHorizon = this.fine.slotStart(this.newest) - (this.fine.size - 1) * this.fine.resolutionMs
    const coarsePoints = this.coarse
      .entries()
      .filter(([time]) => time + this.coarse.resolutionMs <= fineHorizon && time >= this.coarseHorizon())
    const finePoints = this.fine.entries().filter(([time]) => time >= fineHorizon)
    const inRange = [...coarsePoints, ...finePoints].filter(([time]) => time >= from && time <= to)
    if (query.stepMs === undefined) return inRange
    if (!(query.stepMs > 0)) throw new MirrorError('VALIDATION_FAILED', `stepMs must be positive, got ${query.stepMs}`)
    return downsample(inRange, query.stepMs)
  }

  private coarseHorizon(): number {
    if (this.newest === null) return Number.NEGATIVE_INFINITY
    return this.coarse.slotStart(this.newest) - (this.coarse.size - 1) * this.coarse.resolutionMs
  }
}

/** Merges time-ordered points into buckets of `stepMs`, keeping the maximum of each value. */
export function downsample(points: readonly LagPoint[], stepMs: number): LagPoint[] {
  const buckets = new Map<number, [number, number | null]>()
  for (const [time, lag, timeLag] of points) {
    const start = Math.floor(time / stepMs) * stepMs
    const bucket = buckets.get(start)
    buckets.set(start, bucket === undefined ? [lag, timeLag] : [Math.max(bucket[0], lag), maxOrNull(bucket[1], timeLag)])
  }
  return [...buckets.entries()].sort(([a], [b]) => a - b).map(([time, [lag, timeLag]]) => [time, lag, timeLag] as const)
}

class Ring {
  readonly resolutionMs: number
  readonly size: number
  private readonly slotTimes: Float64Array
  private readonly offsetLags: Float64Array
  private readonly timeLags: Float64Array

  constructor(resolutionMs: number, size: number) {
    this.resolutionMs = resolutionMs
    this.size = size
    this.slotTimes = new Float64Array(size).fill(Number.NaN)
    this.offsetLags = new Float64Array(size)
    // NaN stands for an unknown time lag, so the arrays stay flat numbers.
    this.timeLags = new Float64Array(size).fill(Number.NaN)
  }

  slotStart(time: number): number {
    return Math.floor(time / this.resolutionMs) * this.resolutionMs
  }

  add(time: number, offsetLagValue: number, timeLagValue: number | null): void {
    const start = this.slotStart(time)
    const index = positiveModulo(start / this.resolutionMs, this.size)
    const held = this.slotTimes[index] ?? Number.NaN
    if (held > start) return
    const incomingTimeLag = timeLagValue ?? Number.NaN
    if (held === start) {
      this.offsetLags[index] = Math.max(this.offsetLags[index] ?? 0, offsetLagValue)
      const current = this.timeLags[index] ?? Number.NaN
      this.timeLags[index] = Number.isNaN(current) ? incomingTimeLag : Number.isNaN(incomingTimeLag) ? current : Math.max(current, incomingTimeLag)
      return
    }
    this.slotTimes[index] = start
    this.offsetLags[index] = offsetLagValue
    this.timeLags[index] = incomingTimeLag
  }

  entries(): LagPoint[] {
    const points: LagPoint[] = []
    for (let index = 0; index < this.size; index++) {
      const time = this.slotTimes[index] ?? Number.NaN
      if (Number.isNaN(time)) continue
      const timeLag = this.timeLags[index] ?? Number.NaN
      points.push([time, this.offsetLags[index] ?? 0, Number.isNaN(timeLag) ? null : timeLag])
    }
    return points.sort(([a], [b]) => a - b)
  }
}

function maxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return Math.max(a, b)
}

function positiveModulo(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus
}

function assertHistoryConfig(config: LagHistoryConfig): void {
  const values = [config.fineResolutionMs, config.fineRetentionMs, config.coarseResolutionMs, config.coarseRetentionMs]
  if (!values.every((value) => Number.isFinite(value) && value > 0)) {
    throw new MirrorError('VALIDATION_FAILED', 'lag history resolutions and retentions must be positive')
  }
  if (config.fineRetentionMs < config.fineResolutionMs || config.coarseRetentionMs < config.coarseResolutionMs) {
    throw new MirrorError('VALIDATION_FAILED', 'a retention must cover at least one slot')
  }
}
