import { describe, expect, it } from 'vitest'
import { ControlClusterHealth } from './control-health'

describe('ControlClusterHealth', () => {
  it('is unavailable once nothing answered for staleMs, says since when and why, and available at the next answer', () => {
    let now = 1_000_000
    const logged: string[] = []
    const health = new ControlClusterHealth({ staleMs: 6_000, log: (message) => logged.push(message), now: () => now })
    expect(health.state()).toEqual({ available: true, since: 1_000_000, lastError: null })
    now += 2_000
    health.answered()
    now += 3_000
    health.failed(new Error('Connection error: read ECONNRESET'))
    expect(health.state().available).toBe(true)
    now += 3_500
    expect(health.state()).toEqual({ available: false, since: 1_002_000, lastError: 'Connection error: read ECONNRESET' })
    expect(health.state().available).toBe(false)
    expect(logged).toHaveLength(1)
    expect(health.answeredSince(1_002_000)).toBe(false)
    health.answered()
    expect(health.state()).toEqual({ available: true, since: now, lastError: null })
    expect(health.answeredSince(1_002_000)).toBe(true)
    expect(logged).toHaveLength(2)
  })

  it('reports since when it is what it is, the last outage once it ended, and how old each followed topic was read', () => {
    let now = 5_000_000
    const health = new ControlClusterHealth({ staleMs: 6_000, log: () => undefined, now: () => now })
    health.follows('g-instances')
    health.follows('g-operations')
    expect(health.report()).toMatchObject({ available: true, changedAt: 5_000_000, lastOutage: null, views: [{ topic: 'g-instances', readAt: null }, { topic: 'g-operations', readAt: null }] })
    now += 1_000
    health.caughtUp('g-operations')
    health.answered()
    // Silent for 10 s: nobody asked for the state meanwhile, yet the answer after it still records the outage.
    now += 4_000
    health.failed(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:1'))
    now += 6_000
    expect(health.report()).toMatchObject({ available: false, changedAt: 5_001_000, lastAnsweredAt: 5_001_000, lastError: 'Connection error: connect ECONNREFUSED 127.0.0.1:1', lastOutage: null })
    health.caughtUp('g-instances')
    health.answered()
    expect(health.report()).toEqual({
      available: true,
      since: 5_011_000,
      lastError: null,
      changedAt: 5_011_000,
      lastAnsweredAt: 5_011_000,
      lastOutage: { from: 5_001_000, to: 5_011_000, lastError: 'Connection error: connect ECONNREFUSED 127.0.0.1:1' },
      views: [
        { topic: 'g-instances', readAt: 5_011_000 },
        { topic: 'g-operations', readAt: 5_001_000 },
      ],
    })
    // An answer within staleMs of the last one is no outage: the last one stays.
    now += 5_000
    health.answered()
    expect(health.report()).toMatchObject({ changedAt: 5_011_000, lastOutage: { from: 5_001_000, to: 5_011_000 } })
  })
})
