import { describe, expect, it } from 'vitest'
import { fencePrincipal, readFencePrincipal } from './fence-marker'

describe('fence marker principal', () => {
  it('names the mirror, operation and time, and reads them back', () => {
    const principal = fencePrincipal({ mirror: 'dr.east_1', operation: 'op-2026/x', since: 1_765_000_000_000 })
    expect(principal).toBe('User:mirrorboard-fence/dr.east_1/op-2026/x/1765000000000')
    expect(readFencePrincipal('orders', principal)).toEqual({ topic: 'orders', mirror: 'dr.east_1', operation: 'op-2026/x', since: 1_765_000_000_000 })
  })

  it('is no fence for other principals or a malformed marker', () => {
    for (const principal of ['User:*', 'User:alice', 'User:mirrorboard-fence/dr', 'User:mirrorboard-fence/dr/op/', 'User:mirrorboard-fence//op/1', 'User:mirrorboard-fence/dr/op/soon'])
      expect(readFencePrincipal('orders', principal), principal).toBeNull()
  })
})
