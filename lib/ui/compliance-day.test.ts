import { describe, expect, it } from 'vitest'
import { complianceDayLabel, complianceDayTone } from './compliance-day'

const day = (met: number, breached: number, unknown: number) => {
  const recorded = met + breached + unknown
  return { from: Date.UTC(2026, 11, 6), met, breached, unknown, metShare: recorded === 0 ? null : met / recorded }
}

describe('a day of RPO compliance', () => {
  it('is red only for breached minutes; minutes short of the objective by a silent source alone are amber', () => {
    expect(complianceDayTone(day(0, 0, 0))).toBe('notRecorded')
    expect(complianceDayTone(day(1439, 1, 0))).toBe('met')
    expect(complianceDayTone(day(1430, 10, 0))).toBe('short')
    expect(complianceDayTone(day(1300, 140, 0))).toBe('breached')
    // A new mirror's first minute, before its first fetch: unknown, never met, but nothing breached.
    expect(complianceDayTone(day(0, 0, 1))).toBe('short')
    expect(complianceDayTone(day(0, 1, 1))).toBe('breached')
  })

  it('says how many minutes, in the singular for one', () => {
    const share = (value: number) => `${Math.round(value * 100)} %`
    expect(complianceDayLabel(day(0, 0, 1), share)).toBe('2026-12-06: RPO met 0 % of 1 minute, unknown 1')
    expect(complianceDayLabel(day(1300, 140, 0), share)).toBe('2026-12-06: RPO met 90 % of 1,440 minutes, breached 140')
    expect(complianceDayLabel(day(0, 0, 0), share)).toBe('2026-12-06: no minute recorded')
  })
})
