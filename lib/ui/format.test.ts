import { describe, expect, it } from 'vitest'
import { counted, formatBytes, formatCount, formatDuration, formatOffset, formatRate, formatRelative, formatInteger } from './format'

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [950, '950'],
    [1234, '1.2k'],
    [15_300, '15k'],
    [999_960, '1M'],
    [2_500_000, '2.5M'],
    [-1500, '−1.5k'],
  ])('%d → %s', (value, text) => expect(formatCount(value)).toBe(text))
})

describe('formatOffset', () => {
  it('keeps every digit, grouped in threes', () => {
    expect(formatOffset(5)).toBe('5')
    expect(formatOffset(1234567)).toBe('1\u202f234\u202f567')
    expect(formatOffset(1000)).toBe('1\u202f000')
  })
})

describe('formatBytes', () => {
  it.each([
    [512, '512 B'],
    [3_400_000, '3.4 MB'],
    [27_000, '27 KB'],
  ])('%d → %s', (value, text) => expect(formatBytes(value)).toBe(text))
})

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [350, '350 ms'],
    [4100, '4.1 s'],
    [42_000, '42 s'],
    [125_000, '2 min 5 s'],
    [7_200_000, '2 h'],
    [90_000_000, '1 d 1 h'],
  ])('%d ms → %s', (value, text) => expect(formatDuration(value)).toBe(text))
})

describe('formatRelative', () => {
  it('says how long ago, coarsely', () => {
    expect(formatRelative(1000, 1500)).toBe('just now')
    expect(formatRelative(0, 3_400)).toBe('3 s ago')
    expect(formatRelative(0, 150_000)).toBe('2 min ago')
    expect(formatRelative(10_000, 0)).toBe('in 10 s')
  })
})

describe('counted', () => {
  it('says one in the singular and every other count in the plural, compact', () => {
    expect(counted(1, 'partition')).toBe('1 partition')
    expect(counted(0, 'partition')).toBe('0 partitions')
    expect(counted(2_000, 'open transaction')).toBe('2k open transactions')
    expect(counted(3, 'entry', 'entries')).toBe('3 entries')
  })
})

describe('formatRate', () => {
  it('shows a slow rate as it is, a tiny one as under 0.1, never a flowing mirror as 0', () => {
    expect([0.2, 0.04, 0.001, 0, 0.06, 4.99, 9.96, 12.4, 1234.5].map(formatRate)).toEqual(['0.2', '<0.1', '<0.1', '0', '0.1', '5', '10', '12', '1.2k'])
  })

  it('says nothing for what is not a rate', () => {
    expect([Number.NaN, Number.POSITIVE_INFINITY, -1].map(formatRate)).toEqual(['–', '–', '–'])
  })
})

describe('formatInteger', () => {
  it("writes whole counts as toLocaleString('en-US') does, without Intl", () => {
    const values = [0, 7, -7, 999, 1000, -1000, 12_345, 999_999, 1_000_000, 1_234_567_890, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]
    for (const value of values) expect(formatInteger(value)).toBe(value.toLocaleString('en-US'))
  })

  it('leaves fractions and non-finite values to Intl', () => {
    for (const value of [1234.5678, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(formatInteger(value)).toBe(value.toLocaleString('en-US'))
  })
})
