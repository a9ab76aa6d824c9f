import { describe, expect, it } from 'vitest'
import { describeRpo, rpoObjectiveOf, rpoStanding } from './rpo'

const exact = (records: number, timeMs: number) => ({ records, timeMs, known: true, asOf: 1 })
const bound = (records: number, timeMs: number) => ({ records, timeMs, known: false, asOf: 1 })
const unknown = { records: null, timeMs: null, known: false, asOf: null }

describe('the RPO standing', () => {
  it('is met when every figure is exact and within the objective, breached when one exceeds it', () => {
    expect(rpoStanding({ rpoRecords: 10 }, [exact(4, 100), exact(6, 900)])).toEqual({ objective: { rpoRecords: 10 }, records: 10, seconds: 0.9, known: true, status: 'met' })
    expect(rpoStanding({ rpoRecords: 10 }, [exact(4, 100), exact(7, 900)]).status).toBe('breached')
    expect(rpoStanding({ rpoSeconds: 0.5 }, [exact(1, 100), exact(1, 900)]).status).toBe('breached')
    expect(rpoStanding({ rpoRecords: 100, rpoSeconds: 1 }, [exact(0, 0)]).status).toBe('met')
  })

  it('is never met from lower bounds or unknown figures: unknown, unless a lower bound is already over', () => {
    expect(rpoStanding({ rpoRecords: 10 }, [bound(3, 100)])).toMatchObject({ records: 3, known: false, status: 'unknown' })
    expect(rpoStanding({ rpoRecords: 10 }, [bound(30, 100)]).status).toBe('breached')
    expect(rpoStanding({ rpoRecords: 10 }, [exact(2, 0), unknown])).toMatchObject({ records: null, known: false, status: 'unknown' })
    expect(rpoStanding({ rpoRecords: 10 }, [exact(20, 0), unknown]).status).toBe('breached')
  })

  it('reads the RPO part of the objectives, and says what would be lost in words', () => {
    expect(rpoObjectiveOf({ rtoSeconds: 5 } as { rpoRecords?: number })).toBeNull()
    expect(rpoObjectiveOf(null)).toBeNull()
    expect(rpoObjectiveOf({ rpoRecords: 0, rpoSeconds: 30 })).toEqual({ rpoRecords: 0, rpoSeconds: 30 })
    expect(describeRpo({ records: 5_332, seconds: 103.2, known: true })).toBe('5,332 records and 103 s')
    expect(describeRpo({ records: 1, seconds: 0.25, known: false })).toBe('at least 1 record and at least 0.3 s')
  })
})
