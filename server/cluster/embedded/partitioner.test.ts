import { describe, expect, it } from 'vitest'
import { murmur2, partitionForKey } from './partitioner'

const bytes = (s: string) => new TextEncoder().encode(s)

describe('murmur2', () => {
  it('matches the values of Kafka UtilsTest.testMurmur2', () => {
    expect(murmur2(bytes('21'))).toBe(-973932308)
    expect(murmur2(bytes('foobar'))).toBe(-790332482)
    expect(murmur2(bytes('a-little-bit-long-string'))).toBe(-985981536)
    expect(murmur2(bytes('a-little-bit-longer-string'))).toBe(-1486304829)
    expect(murmur2(bytes('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971)
    expect(murmur2(bytes('abc'))).toBe(479470107)
  })

  it('maps a key to a partition in range', () => {
    for (const key of ['a', 'b', 'orders-17', '']) {
      const p = partitionForKey(bytes(key), 6)
      expect(p).toBeGreaterThanOrEqual(0)
      expect(p).toBeLessThan(6)
    }
    expect(partitionForKey(bytes('foobar'), 3)).toBe((-790332482 & 0x7fffffff) % 3)
  })
})
