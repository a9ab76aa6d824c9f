import { describe, expect, it } from 'vitest'
import { operationRtoMs, switchoverTimes } from './recovery-time'

describe('recovery time', () => {
  it('is the start to the last partition STOPPED, for a succeeded operation only', () => {
    const partitions = [
      { state: 'STOPPED', finishedAt: 1_400 },
      { state: 'STOPPED', finishedAt: 1_900 },
    ]
    expect(operationRtoMs({ status: 'succeeded', startedAt: 1_000, partitions })).toBe(900)
    expect(operationRtoMs({ status: 'failed', startedAt: 1_000, partitions })).toBeNull()
    expect(operationRtoMs({ status: 'rolledBack', startedAt: 1_000, partitions })).toBeNull()
    expect(operationRtoMs({ status: 'succeeded', startedAt: 1_000, partitions: [...partitions, { state: 'FAILED', finishedAt: 1_500 }] })).toBeNull()
    expect(operationRtoMs({ status: 'succeeded', startedAt: 1_000, partitions: [] })).toBeNull()
  })

  it("times a switchover's phases and how long writes were refused, to STOPPED or to the rollback", () => {
    expect(switchoverTimes({ fencedAt: 100, drainStartedAt: 150, drainedAt: 400, stoppedAt: 480, rolledBackAt: null })).toEqual({ fenceMs: 50, drainMs: 250, stopMs: 80, writesRefusedMs: 380 })
    expect(switchoverTimes({ fencedAt: 100, drainStartedAt: 150, drainedAt: null, stoppedAt: null, rolledBackAt: 9_100 })).toEqual({ fenceMs: 50, drainMs: null, stopMs: null, writesRefusedMs: 9_000 })
    expect(switchoverTimes({ fencedAt: null, drainStartedAt: null, drainedAt: null, stoppedAt: null, rolledBackAt: 500 })).toEqual({ fenceMs: null, drainMs: null, stopMs: null, writesRefusedMs: null })
  })
})
