/**
 * Lag and records at risk in words, the same on every screen (overview edges, mirror list, mirror header,
 * partition table and page, wizard): an exact figure as it is, a lower bound with "≥" and the time of the
 * reading it rests on, an unknown one as "unknown", and a partition or mirror with no lag (STOPPED) in words,
 * never as "0". The rules of what is known are lib/mirror/partition-lag.ts's and lib/mirror/at-risk.ts's.
 */
import { clockTime, formatCount, formatDuration, formatOffset } from './format'

export interface Figure {
  readonly value: number | null
  /** false: a lower bound (the source is silent). */
  readonly known: boolean
}

/** "142", "≥ 142", "unknown"; compact counts. */
export function countText(figure: Figure): string {
  if (figure.value === null) return 'unknown'
  return `${figure.known ? '' : '≥ '}${formatCount(figure.value)}`
}

/** Every digit, for titles and exact places: "1 234", "≥ 1 234". */
export function offsetText(figure: Figure): string {
  if (figure.value === null) return 'unknown'
  return `${figure.known ? '' : '≥ '}${formatOffset(figure.value)}`
}

/** "350 ms", "≥ 31 s", "unknown". */
export function durationText(figure: Figure): string {
  if (figure.value === null) return 'unknown'
  return `${figure.known ? '' : '≥ '}${formatDuration(figure.value)}`
}

/** "as of 22:23:31 UTC" for a lower bound's reading; empty for current figures or no reading. */
export function asOfText(known: boolean, asOf: number | null | undefined): string {
  return known || asOf === null || asOf === undefined ? '' : `as of ${clockTime(asOf)} UTC`
}

export interface MirrorLagText {
  /** A short label: "lag 12 · 350 ms", "lag ≥ 142 · ≥ 31 s", "stopped: no lag". */
  readonly shown: string
  /** The full sentence for a hover title or a screen reader. */
  readonly exact: string
  /** The figures are lower bounds: screens mark them. */
  readonly lowerBound: boolean
}

export interface MirrorLagInput {
  readonly partitions: number
  /** Partitions per state; STOPPED-only mirrors and FAILED ones read differently. */
  readonly partitionsByState: Readonly<Partial<Record<string, number>>>
  readonly totalOffsetLag: number | null
  readonly maxTimeLagMs: number | null
  readonly lagKnown?: boolean
  readonly lagAsOf?: number | null
}

/** A mirror's lag as its overview edge and list line say it. */
export function mirrorLagText(mirror: MirrorLagInput): MirrorLagText {
  if (mirror.partitions === 0) return { shown: 'no partitions yet', exact: 'No partitions yet', lowerBound: false }
  const stopped = (mirror.partitionsByState.STOPPED ?? 0) + (mirror.partitionsByState.STOPPING ?? 0)
  if (mirror.totalOffsetLag === null || mirror.maxTimeLagMs === null) {
    if (stopped === mirror.partitions) return { shown: 'stopped: no lag', exact: 'Every partition is stopped (failed over): nothing is mirrored, so there is no lag', lowerBound: false }
    if ((mirror.partitionsByState.FAILED ?? 0) > 0) return { shown: 'lag unknown', exact: 'Lag unknown: a failed partition has never had a fetch answered', lowerBound: false }
    return { shown: 'lag not known yet', exact: 'Lag not known yet: a mirroring partition has had no fetch answered', lowerBound: false }
  }
  const known = mirror.lagKnown ?? true
  const offsets = { value: mirror.totalOffsetLag, known }
  const time = { value: mirror.maxTimeLagMs, known }
  const noun = mirror.totalOffsetLag === 1 ? 'record' : 'records'
  if (known) {
    return {
      shown: `lag ${countText(offsets)} · ${durationText(time)}`,
      exact: `Total offset lag ${offsetText(offsets)} ${noun}; max time lag ${durationText(time)}`,
      lowerBound: false,
    }
  }
  const asOf = asOfText(false, mirror.lagAsOf)
  return {
    shown: `lag ${countText(offsets)} · ${durationText(time)}`,
    exact: `Lower bounds: the source has not answered${asOf === '' ? '' : ` (figures ${asOf})`}. Total offset lag at least ${formatOffset(mirror.totalOffsetLag)} ${noun}; max time lag at least ${formatDuration(mirror.maxTimeLagMs)}, growing`,
    lowerBound: true,
  }
}
