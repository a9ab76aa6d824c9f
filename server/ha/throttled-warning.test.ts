import { describe, expect, it } from 'vitest'
import { throttledWarning } from './throttled-warning'

describe('throttledWarning', () => {
  it('says the first warning at once, then at most once per interval with how many it held back', () => {
    let now = 0
    const said: Array<[string, Record<string, unknown>]> = []
    const warn = throttledWarning((message, fields) => said.push([message, fields]), { intervalMs: 60_000, now: () => now })
    warn('read failed', { error: 'a' })
    for (let second = 1; second < 60; second++) {
      now = second * 1000
      warn('read failed', { error: 'b' })
    }
    expect(said).toEqual([['read failed', { error: 'a' }]])
    now = 60_000
    warn('read failed', { error: 'c' })
    expect(said).toEqual([
      ['read failed', { error: 'a' }],
      ['read failed', { error: 'c', heldBack: 59 }],
    ])
  })
})
