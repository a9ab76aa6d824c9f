import { describe, expect, it } from 'vitest'
import { currentRate, describeTraffic, inBurst, trafficFactor, type TrafficProfile } from './traffic'

const MINUTE = 60_000
const clicks: TrafficProfile = { dayMs: 10 * MINUTE, swing: 0.4, peakAt: 0.25, burst: { everyMs: 3 * MINUTE, lastsMs: 15_000, factor: 4 } }
const calm: TrafficProfile = { ...clicks, burst: null }

describe('the traffic of a demo producer', () => {
  it('peaks at its peak, is quietest half a day later, and averages the set rate over a day', () => {
    expect(trafficFactor(calm, 2.5 * MINUTE)).toBeCloseTo(1.4, 10)
    expect(trafficFactor(calm, 7.5 * MINUTE)).toBeCloseTo(0.6, 10)
    expect(trafficFactor(calm, 10 * MINUTE + 2.5 * MINUTE)).toBeCloseTo(1.4, 10)
    const samples = Array.from({ length: 600 }, (_, second) => trafficFactor(calm, second * 1000))
    expect(samples.reduce((sum, factor) => sum + factor, 0) / samples.length).toBeCloseTo(1, 10)
  })

  it('bursts for lastsMs at every multiple of everyMs, to the factor whatever the hour of the day', () => {
    expect(inBurst(clicks, 0)).toBe(true)
    expect(inBurst(clicks, 14_999)).toBe(true)
    expect(inBurst(clicks, 15_000)).toBe(false)
    expect(inBurst(clicks, 3 * MINUTE + 1)).toBe(true)
    expect(inBurst(calm, 0)).toBe(false)
    expect(trafficFactor(clicks, 3 * MINUTE + 1)).toBe(4)
    // At night (0.6× here) a burst is as high as at the peak: multiplying the night gave 2.4×.
    const night = 7.5 * MINUTE
    expect(trafficFactor(calm, night)).toBeCloseTo(0.6, 10)
    expect(trafficFactor({ ...clicks, burst: { everyMs: 7.5 * MINUTE, lastsMs: 15_000, factor: 4 } }, night)).toBe(4)
    // A day busier than the burst keeps its own rate.
    const gentle: TrafficProfile = { ...clicks, burst: { everyMs: 2.5 * MINUTE, lastsMs: 15_000, factor: 1.2 } }
    expect(trafficFactor(gentle, 2.5 * MINUTE)).toBeCloseTo(1.4, 10)
    expect(trafficFactor(clicks, 2 * MINUTE)).toBe(trafficFactor(calm, 2 * MINUTE))
  })

  it('gives whole records per second, the set rate itself without a profile, and nothing for a rate of 0', () => {
    expect(currentRate(120, clicks, 2.5 * MINUTE)).toBe(168)
    expect(currentRate(120, null, 2.5 * MINUTE)).toBe(120)
    expect(currentRate(0, clicks, 0)).toBe(0)
    expect(Number.isInteger(currentRate(7, calm, 12_345))).toBe(true)
  })

  it('works before the epoch as after it (a clock set back never gives a negative rate)', () => {
    expect(trafficFactor(clicks, -1)).toBeGreaterThan(0)
    expect(inBurst(clicks, -1)).toBe(false)
    expect(inBurst(clicks, -3 * MINUTE)).toBe(true)
  })

  it('says what it does in one sentence', () => {
    expect(describeTraffic(clicks)).toBe('Follows a 10-minute day (0.6× to 1.4× the set rate); bursts to 4× for 15 s every 3 minutes.')
    expect(describeTraffic({ ...calm, dayMs: 90_000, swing: 0.25 })).toBe('Follows a 90-second day (0.75× to 1.25× the set rate).')
  })
})
