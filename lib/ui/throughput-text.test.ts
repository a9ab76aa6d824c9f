import { describe, expect, it } from 'vitest'
import { lagUnknownOf } from './mirror-snapshot'
import { throughputText } from './throughput-text'

const flow = { recordsPerSecond: 4.99, bytesPerSecond: 254.8, fetchLatencyMs: 120, fetchLatencyMaxMs: 480, throttleUse: 0.01, fetches: 20, asOf: 1 }

describe('throughputText', () => {
  it('a calm mirror: figures in words, nothing holds it back', () => {
    const text = throughputText({ throughput: flow, throttledRate: 20_000, throttled: false }, null)
    expect(text).toMatchObject({ records: '5 records/s', bytes: '255 B/s', latency: '120 ms median, 480 ms longest', throttle: '1 % of 20 KB/s', limit: 'none' })
  })

  it('a slow mirror reads its fraction of a record a second, not 0', () => {
    expect(throughputText({ throughput: { ...flow, recordsPerSecond: 0.2 }, throttledRate: null }, null)?.records).toBe('0.2 records/s')
    expect(throughputText({ throughput: { ...flow, recordsPerSecond: 0.01 }, throttledRate: null }, null)?.records).toBe('<0.1 records/s')
  })

  it('names the throttle when it sets the pace, the link when fetches are slow, and nothing flowing when the source is silent', () => {
    expect(throughputText({ throughput: { ...flow, throttleUse: 0.97 }, throttledRate: 20_000, throttled: false }, null)?.limit).toBe('throttle')
    expect(throughputText({ throughput: { ...flow, fetchLatencyMs: 4_000 }, throttledRate: null }, null)?.limit).toBe('slowFetches')
    expect(throughputText({ throughput: { ...flow, recordsPerSecond: 0, fetches: 0 }, throttledRate: null }, null)?.limit).toBe('noFetches')
    expect(throughputText({ throughput: flow, throttledRate: null }, lagUnknownOf('sourceUnreachable'))?.limitText).toMatch(/does not answer now, so nothing flows/)
    expect(throughputText({ throughput: { ...flow, fetchLatencyMs: 0.4 }, throttledRate: null }, null)?.latency).toBe('< 1 ms median, 480 ms longest')
    expect(throughputText({ throttledRate: null }, null)).toBeNull()
  })

  it('while the source is silent, says nothing flows now instead of the last 10 s average', () => {
    // The window still holds the seconds before the cut (5 records/s): shown as it was, the strip said records
    // were flowing into a mirror whose source had stopped answering.
    const text = throughputText({ throughput: flow, throttledRate: 20_000, throttled: false }, lagUnknownOf('sourceUnreachable'))
    expect(text).toMatchObject({ records: '0 records/s', bytes: '0 B/s', latency: 'no answer', throttle: '– of 20 KB/s', limit: 'noFetches', silent: true })
    expect(text?.limitText).toBe('the source does not answer now, so nothing flows')
    // No fetch answered in the window, source state unknown: nothing flowed either, said as 0, not as a stale figure.
    expect(throughputText({ throughput: { ...flow, fetches: 0 }, throttledRate: null }, null)).toMatchObject({ records: '0 records/s', bytes: '0 B/s', latency: 'no fetch', silent: true })
  })

  it('a mirror created seconds ago has had no fetch yet: said as such, not as a cut link', () => {
    // Seen on a new mirror's page: "no fetch was answered: the source or the link is down" beside a healthy header.
    const young = throughputText({ throughput: { ...flow, recordsPerSecond: null, bytesPerSecond: null, fetchLatencyMs: null, fetchLatencyMaxMs: null, fetches: 0 }, throttledRate: null }, lagUnknownOf('firstFetchPending'))
    expect(young).toMatchObject({ limit: 'firstFetch', records: '0 records/s', latency: 'no fetch' })
    expect(young?.limitText).toBe('no fetch answered yet: the mirror has just started, its first fetch is on its way')
    expect(young?.limitText).not.toMatch(/down/)
    // Fetches that stopped on a mirror that had answers: still the warning.
    expect(throughputText({ throughput: { ...flow, fetches: 0 }, throttledRate: null }, lagUnknownOf('fetchesStalled'))?.limit).toBe('noFetches')
  })
})
