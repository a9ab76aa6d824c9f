import { describe, expect, it } from 'vitest'
import { RegexString } from '@/lib/api/common'
import { cachedPatternCount, namePattern, namePatternProblem, PATTERN_CACHE_SIZE } from './name-patterns'

describe('name patterns (issue #41 item 3: linear-time matching)', () => {
  it('matches whole names, as the backtracking patterns did', () => {
    const cases: Array<[string, string, boolean]> = [
      ['orders.*', 'orders-1', true],
      ['orders.*', 'xorders', false],
      ['__.*', '__consumer_offsets', true],
      ['a|b', 'ab', false],
      ['a|b', 'b', true],
      ['inv[0-9]{2}', 'inv42', true],
      ['inv[0-9]{2}', 'inv420', false],
      ['(?i)Orders', 'ORDERS', true],
      ['[\\w.-]+\\.dlq', 'billing.v2.dlq', true],
    ]
    for (const [pattern, name, expected] of cases) {
      expect(namePattern(pattern).matches(name), `${pattern} ~ ${name}`).toBe(expected)
      expect(new RegExp(`^(?:${pattern.replace('(?i)', '')})$`, pattern.startsWith('(?i)') ? 'i' : '').test(name)).toBe(expected)
    }
  })

  it('matches catastrophic patterns in linear time', () => {
    const name = 'a'.repeat(10_000)
    for (const pattern of ['(a+)+b', '(a|a)*b', '(a|aa)+$x', '(.*a){12}b']) expect(namePattern(pattern).matches(name)).toBe(false)
  })

  it('refuses what RE2 does not accept, with its reason, in the API schema too', () => {
    for (const pattern of ['(?!internal).*', 'x(?=y)', '(a)\\1', '(', 'a{1001}']) {
      expect(namePatternProblem(pattern), pattern).not.toBeNull()
      const parsed = RegexString.safeParse(pattern)
      expect(parsed.success).toBe(false)
      expect(parsed.error?.issues[0]?.message).toMatch(/RE2/)
    }
    expect(RegexString.safeParse('orders.*').success).toBe(true)
  })

  it('keeps at most PATTERN_CACHE_SIZE compiled patterns', () => {
    for (let n = 0; n < PATTERN_CACHE_SIZE + 200; n++) namePattern(`bounded-${n}.*`)
    expect(cachedPatternCount()).toBe(PATTERN_CACHE_SIZE)
    expect(namePattern('bounded-1.*').matches('bounded-1-x')).toBe(true)
  })
})
