/**
 * The shape of a demo producer's traffic over time: the rate an operator sets is the average, and the rate
 * of the moment follows a compressed day (busier at its peak, quieter at night) with, for some topics, a
 * periodic burst (a campaign, a flash sale) that runs at a multiple of the set rate whatever the hour: a burst
 * that multiplied the night's rate fitted through the demo's throttled link, and its lag stayed flat at night. A real mirror is never caught up to the record under such
 * traffic; a constant trickle made the demo's lag a flat zero. Times are epoch milliseconds, passed in, so
 * a restart picks the curve up where the clock is and tests step through it.
 */

export interface TrafficBurst {
  /** A burst starts every `everyMs`... */
  readonly everyMs: number
  /** ...and lasts this long... */
  readonly lastsMs: number
  /** ...at this multiple of the set rate (or the day's own rate, where that is higher). */
  readonly factor: number
}

export interface TrafficProfile {
  /** Length of the compressed day. */
  readonly dayMs: number
  /** How far the day swings around the set rate: 0.4 runs from 0.6× at night to 1.4× at the peak. */
  readonly swing: number
  /** Where in the day the peak falls (0 to 1), so the topics do not all peak at once. */
  readonly peakAt: number
  readonly burst: TrafficBurst | null
}

function positiveModulo(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus
}

/** Whether a burst is on at `now`; bursts start at whole multiples of `everyMs` since the epoch. */
export function inBurst(profile: TrafficProfile, now: number): boolean {
  const { burst } = profile
  return burst !== null && positiveModulo(now, burst.everyMs) < burst.lastsMs
}

/** The multiplier of the set rate at `now`: the day's curve, raised to the burst's factor while one is on. */
export function trafficFactor(profile: TrafficProfile, now: number): number {
  const phase = positiveModulo(now, profile.dayMs) / profile.dayMs
  const day = Math.max(0, 1 + profile.swing * Math.cos(2 * Math.PI * (phase - profile.peakAt)))
  return inBurst(profile, now) ? Math.max(day, profile.burst!.factor) : day
}

/** Records per second at `now` for a workload set to `ratePerSecond` (whole records: rates are counted so). */
export function currentRate(ratePerSecond: number, profile: TrafficProfile | null, now: number): number {
  return profile === null ? ratePerSecond : Math.round(ratePerSecond * trafficFactor(profile, now))
}

function durationWords(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`
  return `${Math.round(ms / 1000)} s`
}

function factorWords(factor: number): string {
  return `${Number(factor.toFixed(2))}×`
}

/** One sentence for the control room: "Follows a 10-minute day (0.6× to 1.4× the set rate); bursts to 4× for 15 s every 3 minutes." */
export function describeTraffic(profile: TrafficProfile): string {
  const length = profile.dayMs % 60_000 === 0 ? `${profile.dayMs / 60_000}-minute` : `${Math.round(profile.dayMs / 1000)}-second`
  const day = `Follows a ${length} day (${factorWords(1 - profile.swing)} to ${factorWords(1 + profile.swing)} the set rate)`
  if (profile.burst === null) return `${day}.`
  return `${day}; bursts to ${factorWords(profile.burst.factor)} for ${durationWords(profile.burst.lastsMs)} every ${durationWords(profile.burst.everyMs)}.`
}
