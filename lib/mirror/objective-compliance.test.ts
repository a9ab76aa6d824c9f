import { describe, expect, it } from 'vitest'
import { currentRpoStatus, drillRtoResults, minuteVerdict, rpoCompliance, rtoResults } from './objective-compliance'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
// 2026-12-06 12:00:30 UTC: the minute at 12:00 is still running.
const NOW = Date.UTC(2026, 11, 6, 12, 0, 30)

describe('objective compliance', () => {
  it('judges a minute met, breached (a lower bound over the objective is enough) or unknown, never unknown as met', () => {
    const objective = { rpoRecords: 100, rpoSeconds: 5 }
    expect(minuteVerdict({ t: 0, records: 100, oldestMs: 5_000, known: true }, objective)).toBe('met')
    expect(minuteVerdict({ t: 0, records: 101, oldestMs: 0, known: true }, objective)).toBe('breached')
    expect(minuteVerdict({ t: 0, records: 0, oldestMs: 5_001, known: true }, objective)).toBe('breached')
    expect(minuteVerdict({ t: 0, records: 500, oldestMs: null, known: false }, objective)).toBe('breached')
    expect(minuteVerdict({ t: 0, records: 3, oldestMs: 1_000, known: false }, objective)).toBe('unknown')
    expect(minuteVerdict({ t: 0, records: 3, oldestMs: null, known: true }, objective)).toBe('unknown')
    expect(minuteVerdict({ t: 0, records: 3, oldestMs: null, known: true }, { rpoRecords: 10 })).toBe('met')
  })

  it('counts the last 24 h, the last 30 days and each day, leaving out minutes not recorded and the one still running', () => {
    const end = Date.UTC(2026, 11, 6, 12, 0)
    const samples = [
      // Yesterday, 12:00–13:59 UTC: an hour met, an hour breached (within the last 24 h from 12:00 on).
      ...Array.from({ length: 60 }, (_, i) => ({ t: end - DAY + i * MINUTE, records: 0, oldestMs: 0, known: true })),
      ...Array.from({ length: 60 }, (_, i) => ({ t: end - DAY + (60 + i) * MINUTE, records: 50, oldestMs: 0, known: true })),
      // Ten days ago: a minute unknown.
      { t: end - 10 * DAY, records: 0, oldestMs: 0, known: false },
      // Today: the minute still running is not counted.
      { t: end, records: 50, oldestMs: 0, known: true },
    ]
    const compliance = rpoCompliance(samples, { rpoRecords: 10 }, NOW)!
    expect(compliance.last24h).toMatchObject({ from: end - DAY, to: end, met: 60, breached: 60, unknown: 0, notRecorded: 24 * 60 - 120, metShare: 0.5 })
    expect(compliance.last30d).toMatchObject({ met: 60, breached: 60, unknown: 1 })
    expect(compliance.last30d.metShare).toBeCloseTo(60 / 121)
    expect(compliance.days).toHaveLength(30)
    expect(compliance.days[29]).toMatchObject({ from: Date.UTC(2026, 11, 6), to: end, met: 0, breached: 0, notRecorded: 12 * 60, metShare: null })
    expect(compliance.days[28]).toMatchObject({ from: Date.UTC(2026, 11, 5), met: 60, breached: 60 })
    expect(compliance.days[19]).toMatchObject({ from: Date.UTC(2026, 10, 26), unknown: 1, metShare: 0 })
    expect(rpoCompliance(samples, {}, NOW)).toBeNull()
  })

  it('holds each failover RTO against the objective, newest first', () => {
    const measured = [
      { operation: 'a', type: 'unplanned' as const, startedAt: 1, rtoMs: 4_000 },
      { operation: 'b', type: 'planned' as const, startedAt: 2, rtoMs: 6_000 },
    ]
    expect(rtoResults(measured, 5).map((r) => [r.operation, r.met])).toEqual([
      ['b', false],
      ['a', true],
    ])
    expect(rtoResults(measured, undefined).map((r) => r.met)).toEqual([null, null])
  })
})

describe('the recovery point now against the objective', () => {
  it('is breached by a figure over it, even a lower bound, and unknown, never met, while a lag is not known', () => {
    const objective = { rpoRecords: 1000, rpoSeconds: 60 }
    expect(currentRpoStatus({ records: 0, seconds: 0, known: true }, objective)).toBe('met')
    expect(currentRpoStatus({ records: 1001, seconds: 1, known: true }, objective)).toBe('breached')
    expect(currentRpoStatus({ records: 10, seconds: 61, known: true }, objective)).toBe('breached')
    expect(currentRpoStatus({ records: 2000, seconds: null, known: false }, objective)).toBe('breached')
    expect(currentRpoStatus({ records: 10, seconds: 1, known: false }, objective)).toBe('unknown')
    expect(currentRpoStatus({ records: null, seconds: null, known: false }, { rpoSeconds: 60 })).toBe('unknown')
    expect(currentRpoStatus({ records: 5000, seconds: 500, known: true }, {})).toBeNull()
  })
})

describe("the drills' measured RTO against the objective", () => {
  it('keeps the succeeded drills of the last 30 days that measured one, newest first, in whole milliseconds, each held to the objective', () => {
    const drills = [
      { id: 'old', status: 'succeeded', startedAt: NOW - 31 * DAY, rtoMs: 1_000 },
      { id: 'slow', status: 'succeeded', startedAt: NOW - 2 * DAY, rtoMs: 6_000.4 },
      { id: 'failed', status: 'failed', startedAt: NOW - DAY, rtoMs: 1_000 },
      { id: 'running', status: 'running', startedAt: NOW - 1_000, rtoMs: null },
      { id: 'fast', status: 'succeeded', startedAt: NOW - DAY, rtoMs: 4_999.6 },
      { id: 'unmeasured', status: 'succeeded', startedAt: NOW - DAY, rtoMs: null },
    ]
    expect(drillRtoResults(drills, 5, NOW)).toEqual([
      { drill: 'fast', startedAt: NOW - DAY, rtoMs: 5_000, met: true },
      { drill: 'slow', startedAt: NOW - 2 * DAY, rtoMs: 6_000, met: false },
    ])
    expect(drillRtoResults(drills, undefined, NOW).map((result) => result.met)).toEqual([null, null])
    expect(drillRtoResults([{ id: 'clock', status: 'succeeded', startedAt: NOW, rtoMs: -3 }], 0, NOW)).toEqual([{ drill: 'clock', startedAt: NOW, rtoMs: 0, met: true }])
  })
})
