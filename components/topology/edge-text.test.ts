import { expect, it } from 'vitest'
import { edgeLagText } from './edge-text'

it('a mirror whose lag is not known yet does not read as caught up', () => {
  expect(edgeLagText({ partitions: 2, worstState: 'MIRRORING', totalOffsetLag: null, maxTimeLagMs: null }).shown).toBe('lag not known yet')
  expect(edgeLagText({ partitions: 2, worstState: 'MIRRORING', totalOffsetLag: 0, maxTimeLagMs: 0 }).shown).toBe('lag 0 · 0 s')
  expect(edgeLagText({ partitions: 2, worstState: 'MIRRORING', totalOffsetLag: 1_200, maxTimeLagMs: 3_000 }).exact).toMatch(/^Total offset lag 1\D?200 records/)
  expect(edgeLagText({ partitions: 0, worstState: null, totalOffsetLag: 0, maxTimeLagMs: 0 }).shown).toBe('no partitions yet')
})
