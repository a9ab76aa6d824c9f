import { describe, expect, it } from 'vitest'
import { THROUGHPUT_HISTORY_MS, ThroughputMeter } from './throughput'

const T0 = 1_764_400_000_000

describe('ThroughputMeter', () => {
  it('knows no rate before two samples a second apart', () => {
    const meter = new ThroughputMeter()
    meter.sample(T0, { records: 0, bytes: 0, throttledBytes: 0 })
    expect(meter.figures(T0, null)).toEqual({ recordsPerSecond: null, bytesPerSecond: null, fetchLatencyMs: null, fetchLatencyMaxMs: null, throttleUse: null, fetches: 0 })
  })

  it('reads records and bytes per second over the last ten seconds', () => {
    const meter = new ThroughputMeter()
    for (let second = 0; second <= 20; second++) meter.sample(T0 + second * 1000, { records: second * 150, bytes: second * 30_000, throttledBytes: 0 })
    expect(meter.figures(T0 + 20_000, null)).toMatchObject({ recordsPerSecond: 150, bytesPerSecond: 30_000 })
    expect(meter.history(T0 + 18_000)).toEqual([
      [T0 + 18_000, 150, 30_000],
      [T0 + 19_000, 150, 30_000],
      [T0 + 20_000, 150, 30_000],
    ])
  })

  it('shows the throttle as the limit when the throttled bytes reach its rate', () => {
    const meter = new ThroughputMeter()
    meter.sample(T0, { records: 0, bytes: 0, throttledBytes: 0 })
    meter.sample(T0 + 10_000, { records: 100, bytes: 200_000, throttledBytes: 200_000 })
    expect(meter.figures(T0 + 10_000, 20_000).throttleUse).toBe(1)
    expect(meter.figures(T0 + 10_000, null).throttleUse).toBeNull()
  })

  it('takes the median and the longest fetch of the window, and none once the source is silent', () => {
    const meter = new ThroughputMeter()
    for (const [at, duration] of [[1_000, 500], [2_000, 20], [3_000, 40], [4_000, 30]]) meter.fetched(T0 + at!, duration!)
    expect(meter.figures(T0 + 5_000, null)).toMatchObject({ fetchLatencyMs: 30, fetchLatencyMaxMs: 500, fetches: 4 })
    expect(meter.figures(T0 + 60_000, null)).toMatchObject({ fetchLatencyMs: null, fetches: 0 })
  })

  it('keeps five minutes of history', () => {
    const meter = new ThroughputMeter()
    for (let second = 0; second <= 400; second++) meter.sample(T0 + second * 1000, { records: second, bytes: second, throttledBytes: 0 })
    const history = meter.history()
    expect(history[0]![0]).toBeGreaterThanOrEqual(T0 + 400_000 - THROUGHPUT_HISTORY_MS)
  })
})
