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
})
