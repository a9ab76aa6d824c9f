import { describe, expect, it } from 'vitest'
import { countText, durationText, mirrorLagText } from './lag-text'

const T0 = Date.UTC(2026, 11, 6, 22, 23, 31)

describe('mirrorLagText', () => {
  it('a mirror whose lag is not known yet does not read as caught up', () => {
    expect(mirrorLagText({ partitions: 2, partitionsByState: { MIRRORING: 2 }, totalOffsetLag: null, maxTimeLagMs: null }).shown).toBe('lag not known yet')
    expect(mirrorLagText({ partitions: 2, partitionsByState: { MIRRORING: 2 }, totalOffsetLag: 0, maxTimeLagMs: 0, lagKnown: true }).shown).toBe('lag 0 · 0 s')
    expect(mirrorLagText({ partitions: 2, partitionsByState: { MIRRORING: 2 }, totalOffsetLag: 1_200, maxTimeLagMs: 3_000 }).exact).toMatch(/^Total offset lag 1\D?200 records/)
    expect(mirrorLagText({ partitions: 0, partitionsByState: {}, totalOffsetLag: 0, maxTimeLagMs: 0 }).shown).toBe('no partitions yet')
  })

  it('a FAILED mirror whose source is silent shows lower bounds, never "lag 0"', () => {
    const text = mirrorLagText({ partitions: 21, partitionsByState: { FAILED: 21 }, totalOffsetLag: 0, maxTimeLagMs: 31_000, lagKnown: false, lagAsOf: T0 })
    expect(text).toMatchObject({ shown: 'lag ≥ 0 · ≥ 31 s', lowerBound: true })
    expect(text.exact).toContain('as of 22:23:31 UTC')
    expect(mirrorLagText({ partitions: 3, partitionsByState: { FAILED: 3 }, totalOffsetLag: null, maxTimeLagMs: null, lagKnown: false }).shown).toBe('lag unknown')
  })

  it('a STOPPED mirror has no lag, in words', () => {
    expect(mirrorLagText({ partitions: 3, partitionsByState: { STOPPED: 3 }, totalOffsetLag: null, maxTimeLagMs: null, lagKnown: false }).shown).toBe('stopped: no lag')
  })
})

it('marks lower bounds and unknowns in single figures', () => {
  expect(countText({ value: 142, known: false })).toBe('≥ 142')
  expect(countText({ value: 1_500, known: true })).toBe('1.5k')
  expect(durationText({ value: null, known: false })).toBe('unknown')
})
