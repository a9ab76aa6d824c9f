// Over 400 lines on purpose: lag, freshness and the lag history's downsampling, with their properties over random series.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { MirrorError } from './errors'
import { DEFAULT_LAG_HISTORY_CONFIG, downsample, freshnessMs, isFetchStale, LagHistory, offsetLag, timeLagMs, type LagHistoryConfig, type LagPoint, type LagHistoryQuery } from './lag'

const T0 = 1_764_400_000_000

describe('point-in-time lag', () => {
  it('#13 reports offset lag as max(0, source HW − destination HW)', () => {
    expect(offsetLag(120, 118)).toBe(2)
    expect(offsetLag(120, 120)).toBe(0)
    expect(offsetLag(120, 125)).toBe(0)
  })

  it('reports the age of the oldest unmirrored source record as time lag', () => {
    expect(timeLagMs({ now: T0 + 350, sourceHighWatermark: 120, destinationHighWatermark: 118, oldestUnmirroredTimestamp: T0 })).toBe(350)
  })

  it('reports 0 time lag when caught up, whatever timestamp is given', () => {
    expect(timeLagMs({ now: T0, sourceHighWatermark: 5, destinationHighWatermark: 5, oldestUnmirroredTimestamp: T0 - 9999 })).toBe(0)
    expect(timeLagMs({ now: T0, sourceHighWatermark: 5, destinationHighWatermark: 5, oldestUnmirroredTimestamp: null })).toBe(0)
  })

  it('reports unknown (null) time lag when behind without the record timestamp, and never a negative one', () => {
    expect(timeLagMs({ now: T0, sourceHighWatermark: 9, destinationHighWatermark: 5, oldestUnmirroredTimestamp: null })).toBeNull()
    expect(timeLagMs({ now: T0, sourceHighWatermark: 9, destinationHighWatermark: 5, oldestUnmirroredTimestamp: T0 + 500 })).toBe(0)
  })

  it('measures freshness from the last successful fetch and calls no fetch at all stale', () => {
    expect(freshnessMs(T0 + 1500, T0)).toBe(1500)
    expect(freshnessMs(T0, null)).toBeNull()
    expect(isFetchStale(T0 + 1500, T0, 1000)).toBe(true)
    expect(isFetchStale(T0 + 500, T0, 1000)).toBe(false)
    expect(isFetchStale(T0, null, 1000)).toBe(true)
  })
})

describe('LagHistory', () => {
  it('keeps the last hour at one-second resolution', () => {
    const history = new LagHistory()
    for (let second = 0; second < 3600; second++) history.record(T0 + second * 1000, second, second * 10)
    const points = history.points()
    expect(points).toHaveLength(3600)
    expect(points[0]).toEqual([T0, 0, 0])
    expect(points.at(-1)).toEqual([T0 + 3_599_000, 3599, 35_990])
  })

  it('keeps the worst sample of a slot and an unknown time lag only when nothing known arrived', () => {
    const history = new LagHistory()
    history.record(T0 + 100, 5, null)
    history.record(T0 + 900, 3, 40)
    history.record(T0 + 950, 4, 20)
    history.record(T0 + 1100, 1, null)
    expect(history.points()).toEqual([
      [T0, 5, 40],
      [T0 + 1000, 1, null],
    ])
  })

  it('serves older data from one-minute buckets holding the maximum, up to 24 hours back', () => {
    const history = new LagHistory()
    const start = T0 - (T0 % 60_000)
    // Three hours at one sample per 10 s, with a spike at 00:30:10.
    for (let t = 0; t < 3 * 3600; t += 10) history.record(start + t * 1000, t === 1810 ? 999 : 1, 0)
    const points = history.points()
    const newest = start + (3 * 3600 - 10) * 1000
    const fineHorizon = newest - 3599 * 1000
    const coarse = points.filter(([time]) => time < fineHorizon)
    expect(coarse.every(([time]) => time % 60_000 === 0)).toBe(true)
    expect(coarse.find(([time]) => time === start + 30 * 60_000)).toEqual([start + 30 * 60_000, 999, 0])
    expect(points.filter(([time]) => time >= fineHorizon).length).toBe(360)
    const times = points.map(([time]) => time)
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it('forgets buckets older than the coarse retention', () => {
    const history = new LagHistory({ fineResolutionMs: 1000, fineRetentionMs: 10_000, coarseResolutionMs: 10_000, coarseRetentionMs: 60_000 })
    history.record(T0, 7, null)
    history.record(T0 + 120_000, 1, null)
    expect(history.points().map(([, lag]) => lag)).toEqual([1])
  })

  it('drops a sample older than what its slot already holds', () => {
    const history = new LagHistory({ fineResolutionMs: 1000, fineRetentionMs: 4000, coarseResolutionMs: 4000, coarseRetentionMs: 8000 })
    history.record(T0 + 10_000, 1, 0)
    history.record(T0 + 2_000, 50, 0)
    expect(history.points().some(([, lag]) => lag === 50)).toBe(false)
  })

  it('answers a time range and re-buckets it to a step, keeping maxima', () => {
    const history = new LagHistory()
    // offset lags 0 1 2 3 0 1 2 3 0 1; time lags unknown every third second
    for (let second = 0; second < 10; second++) history.record(T0 + second * 1000, second % 4, second % 3 === 0 ? null : second)
    expect(history.points({ from: T0 + 2000, to: T0 + 8000 })).toHaveLength(7)
    expect(history.points({ from: T0 + 2000, to: T0 + 8000, stepMs: 5000 })).toEqual([
      [T0, 3, 4],
      [T0 + 5000, 3, 8],
    ])
  })

  it('is empty before the first sample and rejects invalid samples and steps', () => {
    const history = new LagHistory()
    expect(history.points()).toEqual([])
    expect(history.newestTime).toBeNull()
    expect(() => history.record(T0, -1, 0)).toThrow(MirrorError)
    expect(() => history.record(Number.NaN, 1, 0)).toThrow(MirrorError)
    history.record(T0, 1, 0)
    expect(() => history.points({ stepMs: 0 })).toThrow(MirrorError)
    expect(() => new LagHistory({ fineResolutionMs: 0, fineRetentionMs: 1, coarseResolutionMs: 1, coarseRetentionMs: 1 })).toThrow(MirrorError)
  })
})

describe('LagHistory memory', () => {
  it('holds a caught-up hour of one-second samples in a handful of entries', () => {
    const history = new LagHistory()
    for (let second = 0; second < 3600; second++) history.record(T0 + second * 1000, 0, 0)
    expect(history.storedEntries).toBeLessThanOrEqual(4)
    expect(history.points()).toHaveLength(3600)
    expect(history.points().every(([, lag, timeLag]) => lag === 0 && timeLag === 0)).toBe(true)
  })

  it('keeps one entry per change, and shrinks back once the changes fall out of the retention', () => {
    const history = new LagHistory()
    for (let second = 0; second < 3600; second++) history.record(T0 + second * 1000, second, 0)
    // 3600 fine slots, each a change, plus the one-minute buckets they fall into.
    expect(history.storedEntries).toBe(3600 + 61)
    const caughtUp = T0 + 3600 * 1000
    for (let second = 0; second < 25 * 3600; second++) history.record(caughtUp + second * 1000, 0, 0)
    expect(history.storedEntries).toBeLessThanOrEqual(4)
  })

  it('joins a late sample to the equal runs around it and keeps missing slots missing', () => {
    const history = new LagHistory({ fineResolutionMs: 1000, fineRetentionMs: 60_000, coarseResolutionMs: 60_000, coarseRetentionMs: 600_000 })
    history.record(T0, 2, null)
    history.record(T0 + 3000, 2, null)
    expect(history.points().map(([time]) => time - T0)).toEqual([0, 3000])
    history.record(T0 + 1000, 2, null)
    history.record(T0 + 2000, 2, null)
    expect(history.points().map(([time]) => time - T0)).toEqual([0, 1000, 2000, 3000])
    // One run of four equal slots, one coarse bucket.
    expect(history.storedEntries).toBe(2)
  })
})

describe('downsample', () => {
  it('merges points into buckets keeping the maximum of each series', () => {
    expect(
      downsample(
        [
          [0, 1, null],
          [500, 3, 10],
          [1000, 2, 5],
          [1999, 0, null],
        ],
        1000,
      ),
    ).toEqual([
      [0, 3, 10],
      [1000, 2, 5],
    ])
  })
})

// DIFFERENTIAL CHECK AGAINST THE FIXED-RING IMPLEMENTATION

/**
 * The ring-buffer LagHistory as it stood before its storage became run-length encoded, kept verbatim
 * (renamed) as the oracle: the compact storage must answer every query exactly as this one did.
 */
class ReferenceLagHistory {
  readonly config: LagHistoryConfig
  private readonly fine: ReferenceRing
  private readonly coarse: ReferenceRing
  private newest: number | null = null

  constructor(config: LagHistoryConfig = DEFAULT_LAG_HISTORY_CONFIG) {
    referenceAssertHistoryConfig(config)
    this.config = config
    this.fine = new ReferenceRing(config.fineResolutionMs, Math.ceil(config.fineRetentionMs / config.fineResolutionMs))
    this.coarse = new ReferenceRing(config.coarseResolutionMs, Math.ceil(config.coarseRetentionMs / config.coarseResolutionMs))
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

  get newestTime(): number | null {
    return this.newest
  }

  points(query: LagHistoryQuery = {}): LagPoint[] {
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
    return referenceDownsample(inRange, query.stepMs)
  }

  private coarseHorizon(): number {
    if (this.newest === null) return Number.NEGATIVE_INFINITY
    return this.coarse.slotStart(this.newest) - (this.coarse.size - 1) * this.coarse.resolutionMs
  }
}

function referenceDownsample(points: readonly LagPoint[], stepMs: number): LagPoint[] {
  const buckets = new Map<number, [number, number | null]>()
  for (const [time, lag, timeLag] of points) {
    const start = Math.floor(time / stepMs) * stepMs
    const bucket = buckets.get(start)
    buckets.set(start, bucket === undefined ? [lag, timeLag] : [Math.max(bucket[0], lag), referenceMaxOrNull(bucket[1], timeLag)])
  }
  return [...buckets.entries()].sort(([a], [b]) => a - b).map(([time, [lag, timeLag]]) => [time, lag, timeLag] as const)
}

class ReferenceRing {
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
    this.timeLags = new Float64Array(size).fill(Number.NaN)
  }

  slotStart(time: number): number {
    return Math.floor(time / this.resolutionMs) * this.resolutionMs
  }

  add(time: number, offsetLagValue: number, timeLagValue: number | null): void {
    const start = this.slotStart(time)
    const index = referencePositiveModulo(start / this.resolutionMs, this.size)
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

function referenceMaxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return Math.max(a, b)
}

function referencePositiveModulo(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus
}

function referenceAssertHistoryConfig(config: LagHistoryConfig): void {
  const values = [config.fineResolutionMs, config.fineRetentionMs, config.coarseResolutionMs, config.coarseRetentionMs]
  if (!values.every((value) => Number.isFinite(value) && value > 0)) {
    throw new MirrorError('VALIDATION_FAILED', 'lag history resolutions and retentions must be positive')
  }
  if (config.fineRetentionMs < config.fineResolutionMs || config.coarseRetentionMs < config.coarseResolutionMs) {
    throw new MirrorError('VALIDATION_FAILED', 'a retention must cover at least one slot')
  }
}

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: string; readonly message: string }

function outcome<T>(run: () => T): Outcome<T> {
  try {
    return { ok: true, value: run() }
  } catch (error) {
    if (!(error instanceof MirrorError)) throw error
    return { ok: false, code: error.code, message: error.message }
  }
}

/** Strict equality that also tells +0 from −0 and matches NaN, for comparing answers value by value. */
function sameAnswer<T>(actual: Outcome<T>, expected: Outcome<T>): void {
  expect(actual).toStrictEqual(expected)
  if (actual.ok && expected.ok && Array.isArray(actual.value) && Array.isArray(expected.value)) {
    const flat = (value: unknown[]): unknown[] => value.flat()
    const a = flat(actual.value)
    const b = flat(expected.value)
    expect(a.length).toBe(b.length)
    a.forEach((item, index) => expect(Object.is(item, b[index]), `item ${index}: ${String(item)} vs ${String(b[index])}`).toBe(true))
  }
}

type Operation =
  | { readonly kind: 'sample'; readonly dt: number; readonly offsetLag: number; readonly timeLag: number | null }
  | { readonly kind: 'run'; readonly count: number; readonly spacing: number; readonly offsetLag: number; readonly timeLag: number | null }
  | { readonly kind: 'invalid'; readonly dt: number; readonly offsetLag: number; readonly timeLag: number | null }
  | { readonly kind: 'query'; readonly from: number | undefined; readonly to: number | undefined; readonly stepMs: number | undefined }

const offsetLagArbitrary = fc.oneof(
  { arbitrary: fc.constant(0), weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 4 },
  { arbitrary: fc.double({ min: 0, max: 1e6, noNaN: true }), weight: 1 },
  { arbitrary: fc.constant(-0), weight: 1 },
)
const timeLagArbitrary = fc.oneof(
  { arbitrary: fc.constant(0), weight: 5 },
  { arbitrary: fc.constant(null), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 4 }), weight: 3 },
  { arbitrary: fc.double({ min: 0, max: 1e6, noNaN: true }), weight: 1 },
  { arbitrary: fc.constant(-0), weight: 1 },
)

/** Small configurations (a handful of slots per ring) so retention, gaps and ring wrap-around all come up. */
function configArbitrary(): fc.Arbitrary<LagHistoryConfig> {
  return fc
    .record({
      unit: fc.constantFrom(1, 10, 1000),
      fineSlot: fc.integer({ min: 1, max: 3 }),
      fineSlots: fc.integer({ min: 1, max: 12 }),
      fineSpare: fc.integer({ min: 0, max: 2 }),
      coarseSlot: fc.integer({ min: 1, max: 12 }),
      coarseSlots: fc.integer({ min: 1, max: 15 }),
      coarseSpare: fc.integer({ min: 0, max: 4 }),
    })
    .map(({ unit, fineSlot, fineSlots, fineSpare, coarseSlot, coarseSlots, coarseSpare }) => ({
      fineResolutionMs: unit * fineSlot,
      // A spare part of a slot makes the retention no exact multiple of the resolution.
      fineRetentionMs: unit * fineSlot * fineSlots + Math.min(fineSpare, unit * fineSlot - 1),
      coarseResolutionMs: unit * coarseSlot,
      coarseRetentionMs: unit * coarseSlot * coarseSlots + Math.min(coarseSpare, unit * coarseSlot - 1),
    }))
}

function operationsArbitrary(config: LagHistoryConfig): fc.Arbitrary<Operation[]> {
  const fine = config.fineResolutionMs
  const span = Math.max(config.fineRetentionMs, config.coarseRetentionMs)
  const dt = fc.oneof(
    { arbitrary: fc.constant(fine), weight: 8 },
    { arbitrary: fc.constant(0), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: 4 * fine }), weight: 3 },
    { arbitrary: fc.integer({ min: -4 * fine, max: -1 }), weight: 2 },
    { arbitrary: fc.integer({ min: -2 * span, max: 2 * span }), weight: 1 },
    { arbitrary: fc.integer({ min: span, max: 3 * span }), weight: 1 },
    { arbitrary: fc.double({ min: -2 * fine, max: 2 * fine, noNaN: true }), weight: 1 },
  )
  const bound = fc.option(fc.integer({ min: -2 * span, max: fine }), { nil: undefined })
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('sample' as const), dt, offsetLag: offsetLagArbitrary, timeLag: timeLagArbitrary }), weight: 10 },
    {
      arbitrary: fc.record({
        kind: fc.constant('run' as const),
        count: fc.integer({ min: 1, max: 150 }),
        spacing: fc.constantFrom(fine, fine, Math.max(1, Math.floor(fine / 2)), 2 * fine, config.coarseResolutionMs),
        offsetLag: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: offsetLagArbitrary, weight: 1 }),
        timeLag: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: timeLagArbitrary, weight: 1 }),
      }),
      weight: 2,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('invalid' as const),
        dt: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0),
        offsetLag: fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY, 0),
        timeLag: fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY, null),
      }),
      weight: 1,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('query' as const),
        from: bound,
        to: bound,
        stepMs: fc.option(fc.oneof(fc.integer({ min: 1, max: 3 * config.coarseResolutionMs }), fc.constantFrom(0, -5, Number.NaN, Number.POSITIVE_INFINITY, 1e300)), { nil: undefined }),
      }),
      weight: 3,
    },
  )
  return fc.array(operation, { minLength: 1, maxLength: 40 })
}

/** Replays the operations on both implementations, comparing every answer and the final state. */
function replay(config: LagHistoryConfig, operations: readonly Operation[], start: number): void {
  const subject = new LagHistory(config)
  const reference = new ReferenceLagHistory(config)
  let clock = start
  const compare = (query: LagHistoryQuery): void => {
    sameAnswer(
      outcome(() => subject.points(query)),
      outcome(() => reference.points(query)),
    )
  }
  for (const operation of operations) {
    if (operation.kind === 'query') {
      const anchor = reference.newestTime ?? clock
      compare({
        ...(operation.from === undefined ? {} : { from: anchor + operation.from }),
        ...(operation.to === undefined ? {} : { to: anchor + operation.to }),
        ...(operation.stepMs === undefined ? {} : { stepMs: operation.stepMs }),
      })
      continue
    }
    if (operation.kind === 'run') {
      for (let index = 0; index < operation.count; index++) {
        clock += operation.spacing
        subject.record(clock, operation.offsetLag, operation.timeLag)
        reference.record(clock, operation.offsetLag, operation.timeLag)
      }
      continue
    }
    const time = operation.kind === 'invalid' ? clock + operation.dt : (clock += operation.dt)
    sameAnswer(
      outcome(() => subject.record(time, operation.offsetLag, operation.timeLag)),
      outcome(() => reference.record(time, operation.offsetLag, operation.timeLag)),
    )
    expect(subject.newestTime).toBe(reference.newestTime)
  }
  expect(subject.newestTime).toBe(reference.newestTime)
  // Every entry kept covers at least one slot still within its retention.
  const slots = Math.ceil(config.fineRetentionMs / config.fineResolutionMs) + Math.ceil(config.coarseRetentionMs / config.coarseResolutionMs)
  expect(subject.storedEntries).toBeLessThanOrEqual(slots)
  compare({})
  compare({ stepMs: config.coarseResolutionMs })
}

/** Found by the property: a late sample splitting the oldest entry must not leave a piece out of reach. */
const splitOldestEntry: [LagHistoryConfig, Operation[], number] = [
  { fineResolutionMs: 10, fineRetentionMs: 31, coarseResolutionMs: 30, coarseRetentionMs: 61 },
  [
    { kind: 'run', count: 3, spacing: 10, offsetLag: 0, timeLag: 0 },
    { kind: 'sample', dt: 10, offsetLag: 1, timeLag: -0 },
    { kind: 'sample', dt: 10, offsetLag: 0, timeLag: -0 },
    { kind: 'sample', dt: -21, offsetLag: 0, timeLag: 5e-324 },
  ],
  0,
]

describe('LagHistory against the fixed-ring reference', () => {
  it('answers every query exactly as the ring buffers did, for random samples, gaps and out-of-order times', () => {
    fc.assert(
      fc.property(
        configArbitrary().chain((config) => fc.tuple(fc.constant(config), operationsArbitrary(config), fc.integer({ min: -1_000_000, max: 1_000_000 }))),
        ([config, operations, offset]) => replay(config, operations, T0 + offset),
      ),
      { numRuns: 400, examples: [[splitOldestEntry]] },
    )
  })

  it('answers exactly as the ring buffers did with the default configuration and engine-like sampling', () => {
    const minute = 60_000
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('run' as const),
          count: fc.integer({ min: 1, max: 400 }),
          spacing: fc.constantFrom(1000, 1000, 1000, minute, 2000),
          offsetLag: fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: offsetLagArbitrary, weight: 1 }),
          timeLag: fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: timeLagArbitrary, weight: 1 }),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('sample' as const),
          dt: fc.oneof(fc.constantFrom(1000, 0, -1000, -minute, 59 * minute, 61 * minute, 25 * 60 * minute), fc.integer({ min: -3000, max: 3000 })),
          offsetLag: offsetLagArbitrary,
          timeLag: timeLagArbitrary,
        }),
        weight: 5,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('query' as const),
          from: fc.option(fc.integer({ min: -26 * 60 * minute, max: 0 }), { nil: undefined }),
          to: fc.option(fc.integer({ min: -26 * 60 * minute, max: 1000 }), { nil: undefined }),
          stepMs: fc.option(fc.constantFrom(1000, 5000, minute, 5 * minute, 3600_000), { nil: undefined }),
        }),
        weight: 1,
      },
    )
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 30 }), (operations) => replay(DEFAULT_LAG_HISTORY_CONFIG, operations, T0)),
      { numRuns: 60 },
    )
  })
})
