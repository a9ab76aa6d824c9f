// Over 400 lines on purpose: one model (lag of a partition, its bounded history and the trend over it) whose history and figures share one ring buffer; the renames of #18 were its only change this session.
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

export interface LagHistoryQuery {
  /** Inclusive; default: as far back as kept. */
  readonly from?: number
  /** Inclusive; default: the newest sample. */
  readonly to?: number
  /** Re-bucket the answer to this width, keeping the maximum per bucket. */
  readonly stepMs?: number
}

/**
 * Two histories of the same samples: recent slots at fine resolution and older buckets at coarse
 * resolution. Every sample lands in both. A slot or bucket keeps the worst (maximum) lag seen in it,
 * since the peak is what an operator looks for; an unknown time lag (`null`) only survives if nothing
 * known arrived. Each resolution keeps its slots only as far back as its retention reaches (the newest
 * sample's slot and the `retention / resolution − 1` before it; 3600 + 1440 by default).
 *
 * Storage is run-length encoded: consecutive slots holding the same values share one entry, so
 * memory follows how often the lag changes, not how long it is kept. A mirror of thousands of caught-up
 * partitions (lag 0 nearly all the time) then costs a few entries per partition instead of two full
 * rings; a lag that changes every slot costs about what the rings did.
 *
 * A sample whose slot has already fallen behind a retention is dropped by that resolution; time may
 * go backwards a little (samples from several fetchers) without losing data.
 */
export class LagHistory {
  readonly config: LagHistoryConfig
  private readonly fine: SlotRuns
  private readonly coarse: SlotRuns
  private newest: number | null = null

  constructor(config: LagHistoryConfig = DEFAULT_LAG_HISTORY_CONFIG) {
    assertHistoryConfig(config)
    this.config = config
    this.fine = new SlotRuns(config.fineResolutionMs, Math.ceil(config.fineRetentionMs / config.fineResolutionMs))
    this.coarse = new SlotRuns(config.coarseResolutionMs, Math.ceil(config.coarseRetentionMs / config.coarseResolutionMs))
  }

  record(time: number, offsetLagValue: number, timeLagValue: number | null): void {
    if (!Number.isFinite(time) || !Number.isFinite(offsetLagValue) || offsetLagValue < 0) {
      throw new MirrorError('VALIDATION_FAILED', `lag sample needs a finite time and a non-negative offset lag`)
    }
    if (timeLagValue !== null && (!Number.isFinite(timeLagValue) || timeLagValue < 0)) {
      throw new MirrorError('VALIDATION_FAILED', `time lag must be null or a non-negative number`)
    }
    this.newest = this.newest === null ? time : Math.max(this.newest, time)
    const fineHorizon = this.fine.horizon(this.newest)
    const coarseHorizon = this.coarse.horizon(this.newest)
    // NaN stands for an unknown time lag, so the stores stay flat numbers.
    const incomingTimeLag = timeLagValue ?? Number.NaN
    this.fine.add(time, offsetLagValue, incomingTimeLag, fineHorizon)
    this.coarse.add(time, offsetLagValue, incomingTimeLag, coarseHorizon)
    // After adding: a late sample may split the oldest entry, leaving a piece wholly out of reach.
    this.fine.forgetBefore(fineHorizon)
    this.coarse.forgetBefore(coarseHorizon)
  }

  /** Time of the newest sample, `null` when empty. */
  get newestTime(): number | null {
    return this.newest
  }

  /**
   * Entries held across both resolutions (a run of equal slots or a gap counts once). Exposed so
   * tests can check that memory follows changes rather than time.
   * @internal
   */
  get storedEntries(): number {
    return this.fine.entryCount + this.coarse.entryCount
  }

  /**
   * Points in time order: fine slots where they still reach (the last fineRetentionMs before the
   * newest sample), coarse buckets before that. With `stepMs`, points are merged into buckets of that
   * width (bucket start as time, maximum as value).
   */
  points(query: LagHistoryQuery = {}): LagPoint[] {
    if (this.newest === null) return []
    const from = query.from ?? Number.NEGATIVE_INFINITY
    const to = query.to ?? this.newest
    const fineHorizon = this.fine.horizon(this.newest)
    const inRange: LagPoint[] = []
    // A coarse bucket shows only once it lies wholly before the fine slots, so the two never overlap.
    this.coarse.appendPoints(inRange, Math.max(this.coarse.horizon(this.newest), from), to, fineHorizon)
    this.fine.appendPoints(inRange, Math.max(fineHorizon, from), to, Number.POSITIVE_INFINITY)
    if (query.stepMs === undefined) return inRange
    if (!(query.stepMs > 0)) throw new MirrorError('VALIDATION_FAILED', `stepMs must be positive, got ${query.stepMs}`)
    return downsampleOrdered(inRange, query.stepMs)
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

/**
 * `downsample` for points already sorted by time, in one pass: equal bucket starts are then adjacent.
 * It answers exactly as `downsample` does, including the Map's folding of −0 into +0 and its single
 * NaN bucket when `stepMs` is infinite.
 */
function downsampleOrdered(points: readonly LagPoint[], stepMs: number): LagPoint[] {
  const merged: Array<[number, number, number | null]> = []
  let current: [number, number, number | null] | undefined
  for (const [time, lag, timeLag] of points) {
    const start = Math.floor(time / stepMs) * stepMs
    if (current !== undefined && sameValueZero(current[0], start)) {
      current[1] = Math.max(current[1], lag)
      current[2] = maxOrNull(current[2], timeLag)
      continue
    }
    current = [start === 0 ? 0 : start, lag, timeLag]
    merged.push(current)
  }
  return merged
}

/** Numbers per entry: first slot number, offset lag (NaN for a gap), time lag (NaN when unknown). */
const STRIDE = 3
const MIN_ENTRIES = 2

/**
 * The slots of one resolution as runs. Entry i covers slot numbers `first(i)` up to the next entry's
 * first slot − 1 (the last entry: up to `lastSlot`); a gap entry covers slots that got no sample.
 * Invariants: the first and last entries are never gaps, and neighbours never hold equal values, so
 * the entry count is the number of value changes (plus gaps) within the retention. After each sample
 * every entry kept covers a slot within the retention, so there are never more entries than slots.
 *
 * Entries sit in a circular buffer: the retention drops them from the front while new ones join at
 * the back, with no compaction, so capacity can stop near the slot count even for a lag that
 * changes every slot.
 *
 * A slot number is `floor(time / resolution)`; its time is `slot × resolution`, the very product the
 * ring buffers computed, so slot times and every comparison on them are bit-for-bit the same.
 */
class SlotRuns {
  readonly resolutionMs: number
  /** Slots the retention reaches, counting the newest one. */
  readonly size: number
  private data = new Float64Array(MIN_ENTRIES * STRIDE)
  /** Where entry 0 sits in `data`, in entries. */
  private start = 0
  private count = 0
  private lastSlot = 0

  constructor(resolutionMs: number, size: number) {
    this.resolutionMs = resolutionMs
    this.size = size
  }

  get entryCount(): number {
    return this.count
  }

  slotStart(time: number): number {
    return Math.floor(time / this.resolutionMs) * this.resolutionMs
  }

  /** Time of the oldest slot still kept once `newest` is the newest sample. */
  horizon(newest: number): number {
    return this.slotStart(newest) - (this.size - 1) * this.resolutionMs
  }

  add(time: number, offsetLagValue: number, timeLagValue: number, horizon: number): void {
    const slot = Math.floor(time / this.resolutionMs)
    // Behind the retention: never shown again, since the horizon only moves forward.
    if (slot * this.resolutionMs < horizon) return
    if (this.count === 0) {
      this.start = 0
      this.append(slot, offsetLagValue, timeLagValue)
      this.lastSlot = slot
      return
    }
    if (slot > this.lastSlot) {
      if (slot === this.lastSlot + 1 && this.holds(this.count - 1, offsetLagValue, timeLagValue)) {
        this.lastSlot = slot
        return
      }
      if (slot > this.lastSlot + 1) this.append(this.lastSlot + 1, Number.NaN, Number.NaN)
      this.append(slot, offsetLagValue, timeLagValue)
      this.lastSlot = slot
      return
    }
    if (slot === this.lastSlot) {
      this.mergeIntoNewest(offsetLagValue, timeLagValue)
      return
    }
    const firstHeld = this.first(0)
    if (slot < firstHeld) {
      if (slot + 1 === firstHeld && this.holds(0, offsetLagValue, timeLagValue)) {
        this.data[this.offsetOf(0)] = slot
        return
      }
      const pieces: Piece[] = [[slot, offsetLagValue, timeLagValue]]
      if (slot + 1 < firstHeld) pieces.push([slot + 1, Number.NaN, Number.NaN])
      this.splice(0, 0, pieces)
      return
    }
    this.mergeInto(this.find(slot), slot, offsetLagValue, timeLagValue)
  }

  /** Drops entries whose every slot lies before `horizon`. */
  forgetBefore(horizon: number): void {
    if (this.count === 0) return
    if (this.lastSlot * this.resolutionMs < horizon) {
      this.start = 0
      this.count = 0
      if (this.capacity > MIN_ENTRIES) this.data = new Float64Array(MIN_ENTRIES * STRIDE)
      return
    }
    let dropped = 0
    while (dropped + 1 < this.count && (this.first(dropped + 1) - 1) * this.resolutionMs < horizon) dropped++
    // A leading gap says nothing: slots before the first entry are missing anyway.
    if (this.isGap(dropped)) dropped++
    if (dropped === 0) return
    this.start = (this.start + dropped) % this.capacity
    this.count -= dropped
    if (this.capacity > MIN_ENTRIES && this.count * 4 <= this.capacity) this.reallocate(Math.max(MIN_ENTRIES, this.count * 2))
  }

  /**
   * Appends, in time order, the points of held slots whose time t satisfies `t >= low`, `t <= to` and
   * `t + resolution <= ceiling` (the comparisons the ring buffers made, kept as they were so that
   * rounding cannot tell the two apart). Starts near `low`, so the cost follows the answer's length.
   */
  appendPoints(out: LagPoint[], low: number, to: number, ceiling: number): void {
    if (this.count === 0 || Number.isNaN(low)) return
    const resolution = this.resolutionMs
    // One slot below the estimate absorbs any rounding in the division; the test below is exact.
    const startSlot = Math.floor(low / resolution) - 1
    for (let index = this.findFrom(startSlot); index < this.count; index++) {
      if (this.isGap(index)) continue
      const end = index + 1 < this.count ? this.first(index + 1) - 1 : this.lastSlot
      const offset = this.offsetOf(index)
      const offsetLagValue = this.data[offset + 1] ?? 0
      const timeLag = this.data[offset + 2] ?? Number.NaN
      const timeLagValue = Number.isNaN(timeLag) ? null : timeLag
      for (let slot = Math.max(this.first(index), startSlot); slot <= end; slot++) {
        const time = slot * resolution
        if (!(time >= low)) continue
        if (!(time <= to && time + resolution <= ceiling)) return
        out.push([time, offsetLagValue, timeLagValue])
      }
    }
  }

  private get capacity(): number {
    return this.data.length / STRIDE
  }

  /** Position in `data` of entry `index` (0 ≤ index ≤ capacity). */
  private offsetOf(index: number): number {
    const position = this.start + index
    return (position < this.capacity ? position : position - this.capacity) * STRIDE
  }

  private first(index: number): number {
    return this.data[this.offsetOf(index)] ?? Number.NaN
  }

  private isGap(index: number): boolean {
    return Number.isNaN(this.data[this.offsetOf(index) + 1] ?? Number.NaN)
  }

  /** Same values, telling +0 from −0 as the rings did (they stored whichever arrived). */
  private holds(index: number, offsetLagValue: number, timeLagValue: number): boolean {
    const offset = this.offsetOf(index)
    return Object.is(this.data[offset + 1], offsetLagValue) && Object.is(this.data[offset + 2], timeLagValue)
  }

  /** The entry holding `slot`; `slot` must lie within [first(0), lastSlot]. */
  private find(slot: number): number {
    // Samples nearly always land in the newest entry.
    if (this.first(this.count - 1) <= slot) return this.count - 1
    return this.findFrom(slot)
  }

  /** The last entry starting at or before `slot`, or entry 0 when none does. */
  private findFrom(slot: number): number {
    if (!(this.first(0) < slot)) return 0
    let low = 0
    let high = this.count - 1
    while (low < high) {
      const middle = (low + high + 1) >>> 1
      if (this.first(middle) <= slot) low = middle
      else high = middle - 1
    }
    return low
  }

  /** `mergeInto` for the newest slot, the usual case (several fetchers sampling within one slot). */
  private mergeIntoNewest(offsetLagValue: number, timeLagValue: number): void {
    const index = this.count - 1
    const offset = this.offsetOf(index)
    const heldOffsetLag = this.data[offset + 1] ?? Number.NaN
    const heldTimeLag = this.data[offset + 2] ?? Number.NaN
    const mergedOffsetLag = Math.max(heldOffsetLag, offsetLagValue)
    const mergedTimeLag = maxKnown(heldTimeLag, timeLagValue)
    if (Object.is(mergedOffsetLag, heldOffsetLag) && Object.is(mergedTimeLag, heldTimeLag)) return
    if (this.first(index) < this.lastSlot) {
      // The newest entry now ends one slot earlier, at the next entry's first slot − 1.
      this.append(this.lastSlot, mergedOffsetLag, mergedTimeLag)
    } else if (index > 0 && this.holds(index - 1, mergedOffsetLag, mergedTimeLag)) {
      // The previous entry now reaches the newest slot.
      this.count--
    } else {
      this.data[offset + 1] = mergedOffsetLag
      this.data[offset + 2] = mergedTimeLag
    }
  }

  /** Folds a sample into `slot`, held (or left empty, as a gap) by entry `index`. */
  private mergeInto(index: number, slot: number, offsetLagValue: number, timeLagValue: number): void {
    const offset = this.offsetOf(index)
    const heldOffsetLag = this.data[offset + 1] ?? Number.NaN
    const heldTimeLag = this.data[offset + 2] ?? Number.NaN
    let mergedOffsetLag = offsetLagValue
    let mergedTimeLag = timeLagValue
    if (!Number.isNaN(heldOffsetLag)) {
      mergedOffsetLag = Math.max(heldOffsetLag, offsetLagValue)
      mergedTimeLag = maxKnown(heldTimeLag, timeLagValue)
    }
    if (Object.is(mergedOffsetLag, heldOffsetLag) && Object.is(mergedTimeLag, heldTimeLag)) return
    // The entry splits around the slot: its slots before keep the held values, the slot takes the
    // merged ones (joining a neighbour that holds them), its slots after keep the held values.
    const firstSlot = this.first(index)
    const end = index + 1 < this.count ? this.first(index + 1) - 1 : this.lastSlot
    let replaceFrom = index
    let replaceTo = index + 1
    const pieces: Piece[] = []
    let mergedFirst = slot
    if (firstSlot < slot) pieces.push([firstSlot, heldOffsetLag, heldTimeLag])
    else if (index > 0 && this.holds(index - 1, mergedOffsetLag, mergedTimeLag)) {
      replaceFrom = index - 1
      mergedFirst = this.first(index - 1)
    }
    pieces.push([mergedFirst, mergedOffsetLag, mergedTimeLag])
    if (slot < end) pieces.push([slot + 1, heldOffsetLag, heldTimeLag])
    else if (index + 1 < this.count && this.holds(index + 1, mergedOffsetLag, mergedTimeLag)) replaceTo = index + 2
    this.splice(replaceFrom, replaceTo, pieces)
  }

  private append(slot: number, offsetLagValue: number, timeLagValue: number): void {
    this.reserve(1)
    const offset = this.offsetOf(this.count)
    this.data[offset] = slot
    this.data[offset + 1] = offsetLagValue
    this.data[offset + 2] = timeLagValue
    this.count++
  }

  /** Replaces entries [from, to) with `pieces`, moving the entries after them. */
  private splice(from: number, to: number, pieces: readonly Piece[]): void {
    const growth = pieces.length - (to - from)
    if (growth > 0) {
      this.reserve(growth)
      for (let index = this.count - 1; index >= to; index--) this.move(index, index + growth)
    } else if (growth < 0) {
      for (let index = to; index < this.count; index++) this.move(index, index + growth)
    }
    this.count += growth
    pieces.forEach((piece, position) => this.data.set(piece, this.offsetOf(from + position)))
  }

  private move(source: number, target: number): void {
    const from = this.offsetOf(source)
    const to = this.offsetOf(target)
    this.data[to] = this.data[from] ?? Number.NaN
    this.data[to + 1] = this.data[from + 1] ?? Number.NaN
    this.data[to + 2] = this.data[from + 2] ?? Number.NaN
  }

  /**
   * Makes room for `extra` more entries, growing 1.5× but no further than the slot count (the most
   * entries the retention can need) unless the entries truly need more.
   */
  private reserve(extra: number): void {
    if (this.count + extra <= this.capacity) return
    this.reallocate(Math.max(this.count + extra, Math.min(Math.ceil(this.capacity * 1.5), this.size), MIN_ENTRIES))
  }

  /** Moves the entries into a buffer of `entries` capacity, entry 0 first. */
  private reallocate(entries: number): void {
    const data = new Float64Array(entries * STRIDE)
    const head = this.start * STRIDE
    const wrapped = this.start + this.count - this.capacity
    if (wrapped <= 0) {
      data.set(this.data.subarray(head, head + this.count * STRIDE))
    } else {
      data.set(this.data.subarray(head))
      data.set(this.data.subarray(0, wrapped * STRIDE), this.data.length - head)
    }
    this.data = data
    this.start = 0
  }
}

type Piece = readonly [slot: number, offsetLag: number, timeLag: number]

/** Maximum of two time lags where NaN means unknown: a known one wins over an unknown one. */
function maxKnown(held: number, incoming: number): number {
  if (Number.isNaN(held)) return incoming
  if (Number.isNaN(incoming)) return held
  return Math.max(held, incoming)
}

function sameValueZero(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b))
}

function maxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return Math.max(a, b)
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
