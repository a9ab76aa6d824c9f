/**
 * A mirror's throughput beside its lag, so "is lag growing because of the throttle, the network or the
 * source?" has an answer: records and bytes appended to the destination per second, how long fetches take,
 * and how much of the replication throttle's rate the throttled partitions use.
 *
 * The engine samples its cumulative counters once a second; rates are the change over the last
 * `WINDOW_MS`. Fetch durations include the wait at the source for new records (a held fetch answers as soon
 * as something is there, or after its maximum wait when nothing is), as Kafka's fetch latency does.
 *
 * Pure: every time is passed in.
 */

export interface ThroughputCounters {
  /** Records appended to the destination since the start (cumulative). */
  readonly records: number
  readonly bytes: number
  /** Bytes fetched for partitions the replication throttle covers (cumulative). */
  readonly throttledBytes: number
}

export interface ThroughputFigures {
  /** Null until two samples a second apart exist. */
  readonly recordsPerSecond: number | null
  readonly bytesPerSecond: number | null
  /** Median duration of the fetches of the last window; null when none was made (the source is silent, or nothing is mirrored). */
  readonly fetchLatencyMs: number | null
  readonly fetchLatencyMaxMs: number | null
  /** Throttled bytes per second over the throttle's rate (1 = the rate is the limit); null without a throttle. */
  readonly throttleUse: number | null
  /** Fetches made in the last window. */
  readonly fetches: number
}

/** `[time, recordsPerSecond, bytesPerSecond]`, one a second. */
export type ThroughputPoint = readonly [time: number, recordsPerSecond: number, bytesPerSecond: number]

export const THROUGHPUT_WINDOW_MS = 10_000
/** How much of the per-second history is kept: the mirror page's shortest chart range. */
export const THROUGHPUT_HISTORY_MS = 5 * 60_000
const MAX_FETCHES_KEPT = 500

interface Sample {
  readonly at: number
  readonly counters: ThroughputCounters
}

export class ThroughputMeter {
  private readonly samples: Sample[] = []
  private readonly fetchTimes: number[] = []
  private readonly fetchDurations: number[] = []
  private readonly points: ThroughputPoint[] = []

  /** The counters as they stand now (the engine calls this once a second). */
  sample(now: number, counters: ThroughputCounters): void {
    const previous = this.samples.at(-1)
    this.samples.push({ at: now, counters })
    while (this.samples.length > 2 && this.samples[1]!.at <= now - THROUGHPUT_WINDOW_MS) this.samples.shift()
    if (previous !== undefined && now > previous.at) {
      const seconds = (now - previous.at) / 1000
      this.points.push([now, Math.max(0, counters.records - previous.counters.records) / seconds, Math.max(0, counters.bytes - previous.counters.bytes) / seconds])
      while (this.points.length > 0 && this.points[0]![0] < now - THROUGHPUT_HISTORY_MS) this.points.shift()
    }
  }

  /** A fetch to the source finished (answered or failed) after `durationMs`. */
  fetched(now: number, durationMs: number): void {
    this.fetchTimes.push(now)
    this.fetchDurations.push(Math.max(0, durationMs))
    if (this.fetchTimes.length > MAX_FETCHES_KEPT) {
      this.fetchTimes.shift()
      this.fetchDurations.shift()
    }
  }

  /** `throttledRate`: the throttle's bytes per second, null when the mirror is not throttled. */
  figures(now: number, throttledRate: number | null): ThroughputFigures {
    const first = this.samples[0]
    const last = this.samples.at(-1)
    const seconds = first !== undefined && last !== undefined ? (last.at - first.at) / 1000 : 0
    const rate = (pick: (counters: ThroughputCounters) => number) => (seconds >= 1 ? Math.max(0, pick(last!.counters) - pick(first!.counters)) / seconds : null)
    const recent: number[] = []
    for (let index = this.fetchTimes.length - 1; index >= 0 && this.fetchTimes[index]! > now - THROUGHPUT_WINDOW_MS; index--) recent.push(this.fetchDurations[index]!)
    recent.sort((a, b) => a - b)
    const throttledBytesPerSecond = rate((counters) => counters.throttledBytes)
    return {
      recordsPerSecond: rate((counters) => counters.records),
      bytesPerSecond: rate((counters) => counters.bytes),
      fetchLatencyMs: recent.length === 0 ? null : recent[Math.floor((recent.length - 1) / 2)]!,
      fetchLatencyMaxMs: recent.length === 0 ? null : recent.at(-1)!,
      throttleUse: throttledRate === null || throttledRate <= 0 || throttledBytesPerSecond === null ? null : throttledBytesPerSecond / throttledRate,
      fetches: recent.length,
    }
  }

  /** Records and bytes per second, a point a second, over the last five minutes, from `from` on. */
  history(from = Number.NEGATIVE_INFINITY): ThroughputPoint[] {
    return this.points.filter(([time]) => time >= from)
  }
}
