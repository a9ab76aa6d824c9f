/**
 * A mirror's throughput beside its lag (GET /mirrors' `throughput`, lib/mirror/throughput.ts), in words, with the
 * answer to "is lag growing because of the throttle, the network or the source?": the throttle when its use is
 * near its rate, the link or the source when fetches fail or take long, otherwise nothing holds it back. Pure.
 */
import type { MirrorSummary } from '../api/mirrors'
import { formatBytes, formatDuration, formatRate } from './format'
import type { LagUnknown } from './mirror-snapshot'

/** Above this share of its rate, the throttle is what sets the pace. */
export const THROTTLE_LIMITING = 0.9
/** A median fetch slower than this (it includes up to 500 ms of waiting at the source for new records) points at the link. */
export const SLOW_FETCH_MS = 2_000

export type ThroughputLimit = 'throttle' | 'noFetches' | 'firstFetch' | 'slowFetches' | 'none'

export interface ThroughputText {
  readonly records: string
  readonly bytes: string
  readonly latency: string
  readonly throttle: string | null
  readonly limit: ThroughputLimit
  /** "the throttle (97 % of 20 KB/s) sets the pace", … */
  readonly limitText: string
  /** Nothing flows now (the source is silent, or no fetch was answered): the figures read 0, not the window's average. */
  readonly silent: boolean
}

/**
 * `lagUnknown`: why the mirror's lag is not known now (lib/ui/mirror-snapshot.ts), null when it is. It tells a
 * source that stopped answering (`sourceUnreachable`) from a mirror that has not had its first answer yet
 * (`firstFetchPending`: created seconds ago), which both show no fetch in the window; only the first is an incident.
 */
export function throughputText(mirror: Pick<MirrorSummary, 'throughput' | 'throttledRate' | 'throttled'>, lagUnknown: LagUnknown | null): ThroughputText | null {
  const flow = mirror.throughput
  if (flow === undefined) return null
  const sourceSilent = lagUnknown?.cause === 'sourceUnreachable'
  // The window is the last 10 s: while the source is silent it still holds the seconds before the cut, and its
  // average said records were flowing into a mirror that receives nothing. Nothing flows now: 0.
  const silent = sourceSilent || flow.fetches === 0
  const records = silent ? '0 records/s' : flow.recordsPerSecond === null ? '–' : `${formatRate(flow.recordsPerSecond)} records/s`
  const bytes = silent ? '0 B/s' : flow.bytesPerSecond === null ? '–' : `${formatBytes(flow.bytesPerSecond)}/s`
  const ms = (value: number) => (value < 1 ? '< 1 ms' : formatDuration(value))
  const latency = sourceSilent ? 'no answer' : flow.fetches === 0 || flow.fetchLatencyMs === null ? 'no fetch' : `${ms(flow.fetchLatencyMs)} median${flow.fetchLatencyMaxMs === null ? '' : `, ${ms(flow.fetchLatencyMaxMs)} longest`}`
  const rate = mirror.throttledRate === null || mirror.throttledRate === undefined ? null : `${formatBytes(mirror.throttledRate)}/s`
  const use = silent || flow.throttleUse === null ? null : Math.round(flow.throttleUse * 100)
  const throttle = rate === null ? null : `${use === null ? '–' : `${use} %`} of ${rate}`
  let limit: ThroughputLimit = 'none'
  if (silent) limit = lagUnknown?.cause === 'firstFetchPending' ? 'firstFetch' : 'noFetches'
  else if (mirror.throttled === true || (flow.throttleUse !== null && flow.throttleUse >= THROTTLE_LIMITING)) limit = 'throttle'
  else if (flow.fetchLatencyMs !== null && flow.fetchLatencyMs > SLOW_FETCH_MS) limit = 'slowFetches'
  const limitText = {
    throttle: `the replication throttle sets the pace (${throttle ?? 'at its rate'})`,
    noFetches: sourceSilent ? 'the source does not answer now, so nothing flows' : 'no fetch was answered: the source or the link is down, nothing flows',
    firstFetch: 'no fetch answered yet: the mirror has just started, its first fetch is on its way',
    slowFetches: `fetches are slow (${formatDuration(flow.fetchLatencyMs ?? 0)} median): the link or the source holds it back`,
    none: 'nothing holds it back: the mirror copies what the source receives',
  }[limit]
  return { records, bytes, latency, throttle, limit, limitText, silent }
}
