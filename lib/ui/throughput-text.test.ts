import { describe, expect, it } from 'vitest'
import { throughputText } from './throughput-text'

const flow = { recordsPerSecond: 4.99, bytesPerSecond: 254.8, fetchLatencyMs: 120, fetchLatencyMaxMs: 480, throttleUse: 0.01, fetches: 20, asOf: 1 }

describe('throughputText', () => {
  it('a calm mirror: figures in words, nothing holds it back', () => {
    const text = throughputText({ throughput: flow, throttledRate: 20_000, throttled: false }, false)
    expect(text).toMatchObject({ records: '5 records/s', bytes: '255 B/s', latency: '120 ms median, 480 ms longest', throttle: '1 % of 20 KB/s', limit: 'none' })
  })

  it('a slow mirror reads its fraction of a record a second, not 0', () => {
    expect(throughputText({ throughput: { ...flow, recordsPerSecond: 0.2 }, throttledRate: null }, false)?.records).toBe('0.2 records/s')
    expect(throughputText({ throughput: { ...flow, recordsPerSecond: 0.01 }, throttledRate: null }, false)?.records).toBe('<0.1 records/s')
  })

  it('names the throttle when it sets the pace, the link when fetches are slow, and nothing flowing when the source is silent', () => {
    expect(throughputText({ throughput: { ...flow, throttleUse: 0.97 }, throttledRate: 20_000, throttled: false }, false)?.limit).toBe('throttle')
    expect(throughputText({ throughput: { ...flow, fetchLatencyMs: 4_000 }, throttledRate: null }, false)?.limit).toBe('slowFetches')
    expect(throughputText({ throughput: { ...flow, recordsPerSecond: 0, fetches: 0 }, throttledRate: null }, false)?.limit).toBe('noFetches')
    expect(throughputText({ throughput: flow, throttledRate: null }, true)?.limitText).toMatch(/does not answer now, so nothing flows/)
    expect(throughputText({ throughput: { ...flow, fetchLatencyMs: 0.4 }, throttledRate: null }, false)?.latency).toBe('< 1 ms median, 480 ms longest')
    expect(throughputText({ throttledRate: null }, false)).toBeNull()
  })

  it('while the source is silent, says nothing flows now instead of the last 10 s average', () => {
    // The window still holds the seconds before the cut (5 records/s): shown as it was, the strip said records
    // were flowing into a mirror whose source had stopped answering.
    const text = throughputText({ throughput: flow, throttledRate: 20_000, throttled: false }, true)
    expect(text).toMatchObject({ records: '0 records/s', bytes: '0 B/s', latency: 'no answer', throttle: '– of 20 KB/s', limit: 'noFetches', silent: true })
    expect(text?.limitText).toBe('the source does not answer now, so nothing flows')
    // No fetch answered in the window, source state unknown: nothing flowed either, said as 0, not as a stale figure.
    expect(throughputText({ throughput: { ...flow, fetches: 0 }, throttledRate: null }, false)).toMatchObject({ records: '0 records/s', bytes: '0 B/s', latency: 'no fetch', silent: true })
  })
})
