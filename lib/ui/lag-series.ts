/**
 * The mirror page's lag chart as data: per-partition lag history (GET /mirrors/{m}/lag) summed into a total
 * and per-topic series on a fixed time grid, extended live from lag samples, and read as a trend.
 *
 * Offset lag adds up across partitions (records the destination is behind in all); time lag does not, so
 * a topic's or the total's time lag is its worst partition's. The server's buckets keep each partition's
 * maximum, so a summed bucket is the sum of per-partition peaks: an upper bound, which is what an
 * operator wants from a lag chart.
 */
import { formatCount, formatDuration } from './format'
import type { LagUnknown } from './mirror-snapshot'

export const LAG_RANGES = {
  '5m': { label: '5 min', rangeMs: 5 * 60_000, stepMs: 5_000, trendWindowMs: 60_000 },
  '1h': { label: '1 h', rangeMs: 60 * 60_000, stepMs: 60_000, trendWindowMs: 10 * 60_000 },
  '24h': { label: '24 h', rangeMs: 24 * 60 * 60_000, stepMs: 15 * 60_000, trendWindowMs: 2 * 60 * 60_000 },
} as const
export type LagRange = keyof typeof LAG_RANGES

/** `[t, offsetLag, timeLagMs]`, as the API sends them. */
export type LagPointInput = readonly [number, number | null, number | null]

/** A partition's series, or a topic's already folded (`by=topic`, lib/mirror/lag-by-topic.ts): folded alike. */
export interface LagSeriesInput {
  readonly topic: string
  readonly partition?: number
  readonly points: readonly LagPointInput[]
}

export interface LagGroup {
  /** A topic's name, or "other topics" for the ones folded together. */
  readonly label: string
  readonly topics: readonly string[]
  readonly offsetLag: Array<number | null>
  readonly timeLagMs: Array<number | null>
}

export interface LagChartData {
  readonly stepMs: number
  readonly rangeMs: number
  /** Bucket starts, ms, ascending, one every stepMs. */
  readonly times: number[]
  readonly total: LagGroup
  /** The topics with the highest peak offset lag, then (if more) one group of the rest. */
  readonly groups: LagGroup[]
}

export const OTHER_TOPICS_LABEL = 'other topics'

function bucketOf(time: number, stepMs: number): number {
  return Math.floor(time / stepMs) * stepMs
}

function emptyGroup(label: string, topics: readonly string[], length: number): LagGroup {
  return { label, topics, offsetLag: new Array<number | null>(length).fill(null), timeLagMs: new Array<number | null>(length).fill(null) }
}

function addInto(values: Array<number | null>, index: number, value: number | null): void {
  if (value === null) return
  values[index] = (values[index] ?? 0) + value
}

function maxInto(values: Array<number | null>, index: number, value: number | null): void {
  if (value === null) return
  const current = values[index]
  values[index] = current === null || current === undefined ? value : Math.max(current, value)
}

/**
 * Sums partition series into topic series on the grid from `from` to `to` (both bucketed to `stepMs`),
 * keeping the `maxGroups` topics with the highest peak offset lag and folding the rest into one group.
 * A bucket where no partition of a group has a point is null (a gap, not zero).
 */
export function aggregateLag(
  series: readonly LagSeriesInput[],
  options: { stepMs: number; rangeMs: number; from: number; to: number; maxGroups: number },
): LagChartData {
  const { stepMs } = options
  const first = bucketOf(options.from, stepMs)
  const last = bucketOf(options.to, stepMs)
  const length = Math.max(0, Math.floor((last - first) / stepMs) + 1)
  const times = Array.from({ length }, (_, index) => first + index * stepMs)
  const byTopic = new Map<string, LagGroup>()
  for (const { topic, points } of series) {
    let group = byTopic.get(topic)
    if (group === undefined) byTopic.set(topic, (group = emptyGroup(topic, [topic], length)))
    for (const [time, offsetLag, timeLagMs] of points) {
      const index = (bucketOf(time, stepMs) - first) / stepMs
      if (index < 0 || index >= length) continue
      addInto(group.offsetLag, index, offsetLag)
      maxInto(group.timeLagMs, index, timeLagMs)
    }
  }
  const peak = (group: LagGroup) => group.offsetLag.reduce<number>((max, value) => Math.max(max, value ?? 0), 0)
  const ranked = [...byTopic.values()].sort((a, b) => peak(b) - peak(a) || (a.label < b.label ? -1 : 1))
  const kept = ranked.length > options.maxGroups ? ranked.slice(0, Math.max(0, options.maxGroups - 1)) : ranked
  const folded = ranked.slice(kept.length)
  const groups = [...kept].sort((a, b) => (a.label < b.label ? -1 : 1))
  if (folded.length > 0) {
    const other = emptyGroup(OTHER_TOPICS_LABEL, folded.map((group) => group.label), length)
    for (const group of folded) foldInto(other, group)
    groups.push(other)
  }
  const total = emptyGroup('total', [...byTopic.keys()], length)
  for (const group of groups) foldInto(total, group)
  return { stepMs, rangeMs: options.rangeMs, times, total, groups }
}

function foldInto(target: LagGroup, source: LagGroup): void {
  for (let index = 0; index < source.offsetLag.length; index++) {
    addInto(target.offsetLag, index, source.offsetLag[index] ?? null)
    maxInto(target.timeLagMs, index, source.timeLagMs[index] ?? null)
  }
}

/** The lag of each topic at one moment (from the live partition store): offset lag summed, time lag the worst. */
export type TopicLagSample = ReadonlyMap<string, { readonly offsetLag: number; readonly timeLagMs: number | null }>

/**
 * The chart with one live sample merged in: the grid moves forward to the sample's bucket (dropping what
 * falls out of the range) and the bucket keeps the highest value it has seen, as the server's buckets do.
 * A topic the chart has no group for lands in "other topics" when there is one, else only in the total.
 */
export function appendLagSample(data: LagChartData, at: number, sample: TopicLagSample): LagChartData {
  const bucket = bucketOf(at, data.stepMs)
  const times = [...data.times]
  const copy = (group: LagGroup): LagGroup => ({ ...group, offsetLag: [...group.offsetLag], timeLagMs: [...group.timeLagMs] })
  const total = copy(data.total)
  const groups = data.groups.map(copy)
  const all = [total, ...groups]
  const lastTime = times.at(-1)
  if (lastTime === undefined || bucket > lastTime) {
    for (let time = lastTime === undefined ? bucket : lastTime + data.stepMs; time <= bucket; time += data.stepMs) {
      times.push(time)
      for (const group of all) {
        group.offsetLag.push(null)
        group.timeLagMs.push(null)
      }
    }
    const keepFrom = bucket - data.rangeMs
    let drop = 0
    while (drop < times.length && times[drop]! < keepFrom) drop += 1
    if (drop > 0) {
      times.splice(0, drop)
      for (const group of all) {
        group.offsetLag.splice(0, drop)
        group.timeLagMs.splice(0, drop)
      }
    }
  }
  const index = times.indexOf(bucket)
  // A sample older than the grid (a late event after a range switch) has nowhere to go.
  if (index < 0) return data
  const groupOfTopic = new Map<string, LagGroup>()
  for (const group of groups) for (const topic of group.topics) groupOfTopic.set(topic, group)
  const other = groups.find((group) => group.label === OTHER_TOPICS_LABEL)
  const sums = new Map<LagGroup, { offsetLag: number; timeLagMs: number | null }>()
  for (const [topic, lag] of sample) {
    for (const group of [groupOfTopic.get(topic) ?? other, total]) {
      if (group === undefined) continue
      const sum = sums.get(group) ?? { offsetLag: 0, timeLagMs: null }
      sum.offsetLag += lag.offsetLag
      if (lag.timeLagMs !== null) sum.timeLagMs = Math.max(sum.timeLagMs ?? 0, lag.timeLagMs)
      sums.set(group, sum)
    }
  }
  for (const [group, sum] of sums) {
    maxInto(group.offsetLag, index, sum.offsetLag)
    maxInto(group.timeLagMs, index, sum.timeLagMs)
  }
  return { ...data, times, total, groups }
}

/** `unknown`: the newest figures are lower bounds (a source is silent), so no direction can be read from them. */
export type LagTrendDirection = 'growing' | 'shrinking' | 'steady' | 'unknown'

export interface LagTrend {
  readonly direction: LagTrendDirection
  /** Least-squares slope over the window, records per minute (0 when too few points). */
  readonly perMinute: number
}

/**
 * Which way the lag is heading over the last `windowMs` (ending at the newest point with a value): the
 * least-squares slope, called growing or shrinking only when the change it predicts over the window is more
 * than `minChange` records and more than a tenth of the average lag, so a jittery lag of 2 ± 1 is steady.
 * Fewer than three points in the window: steady (nothing to tell yet).
 */
export function lagTrend(times: readonly number[], values: ReadonlyArray<number | null>, windowMs: number, minChange = 10): LagTrend {
  let end = values.length - 1
  while (end >= 0 && (values[end] === null || values[end] === undefined)) end -= 1
  if (end < 0) return { direction: 'steady', perMinute: 0 }
  const newest = times[end]!
  const xs: number[] = []
  const ys: number[] = []
  for (let index = end; index >= 0 && times[index]! >= newest - windowMs; index--) {
    const value = values[index]
    if (value === null || value === undefined) continue
    xs.push((times[index]! - newest) / 60_000)
    ys.push(value)
  }
  if (xs.length < 3) return { direction: 'steady', perMinute: 0 }
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length
  let covariance = 0
  let variance = 0
  for (let index = 0; index < xs.length; index++) {
    covariance += (xs[index]! - meanX) * (ys[index]! - meanY)
    variance += (xs[index]! - meanX) ** 2
  }
  const perMinute = variance === 0 ? 0 : covariance / variance
  const predictedChange = perMinute * (windowMs / 60_000)
  const threshold = Math.max(minChange, meanY * 0.1)
  if (Math.abs(predictedChange) <= threshold) return { direction: 'steady', perMinute }
  return { direction: predictedChange > 0 ? 'growing' : 'shrinking', perMinute }
}

function lastIndex(values: ReadonlyArray<number | null>): number {
  for (let index = values.length - 1; index >= 0; index--) if (values[index] !== null && values[index] !== undefined) return index
  return -1
}

function peakOf(values: ReadonlyArray<number | null>): number | null {
  let peak: number | null = null
  for (const value of values) if (value !== null && value !== undefined) peak = peak === null ? value : Math.max(peak, value)
  return peak
}

/** The chart in one sentence, for people who cannot see the canvas. */
export function describeLagChart(data: LagChartData, trend: LagTrend, rangeLabel: string, lagUnknown: LagUnknown | null = null, notMirroringBecause: string | null = null): string {
  // Every figure is read at the newest bucket the total has: a topic without a point there was not behind.
  const newest = lastIndex(data.total.offsetLag)
  if (notMirroringBecause !== null) {
    const last = newest < 0 ? '' : ` The chart ends where mirroring stopped; the last total offset lag it shows is ${formatCount(data.total.offsetLag[newest] ?? 0)} records.`
    return `Not mirroring: ${notMirroringBecause}.${last}`
  }
  // A mirror that has had no answer yet has no lag to bound: "at least 0, and growing" would invent a trend.
  if (lagUnknown?.cause === 'firstFetchPending') return `Lag unknown: ${lagUnknown.because}. The mirror has just started; its lag is known from its first answered fetch.`
  if (lagUnknown !== null) {
    // The newest figures are the last ones known: saying "caught up" or "shrinking" from them would be a guess.
    const known = newest < 0 ? '' : ` The last known total offset lag was ${formatCount(data.total.offsetLag[newest] ?? 0)} records: the lag now is at least that, and growing.`
    return `Lag unknown: ${lagUnknown.because}.${known}`
  }
  if (newest < 0) return `No lag samples in the last ${rangeLabel}: no partition was mirroring.`
  const current = data.total.offsetLag[newest] ?? 0
  const peak = peakOf(data.total.offsetLag) ?? 0
  const timeLag = data.total.timeLagMs[newest] ?? null
  const peakTime = peakOf(data.total.timeLagMs)
  const direction = trend.direction === 'steady' || trend.direction === 'unknown' ? trend.direction : `${trend.direction} by about ${formatCount(Math.round(Math.abs(trend.perMinute)))} records a minute`
  const topics = data.groups
    .map((group) => ({ label: group.label, value: group.offsetLag[newest] ?? 0 }))
    .filter((group) => group.value > 0)
    .sort((a, b) => b.value - a.value)
    .slice(0, 3)
    .map((group) => `${group.label} ${formatCount(group.value)}`)
  return [
    `Total offset lag ${formatCount(current)} records, ${direction}; peak ${formatCount(peak)} in the last ${rangeLabel}.`,
    `Time lag ${timeLag === null ? 'unknown' : formatDuration(timeLag)}${peakTime === null ? '' : `, peak ${formatDuration(peakTime)}`}.`,
    topics.length > 0 ? `Most behind: ${topics.join(', ')}.` : 'Every topic is caught up.',
  ].join(' ')
}
