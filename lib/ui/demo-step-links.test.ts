import { describe, expect, it } from 'vitest'
import { currentStepIndex, stepLinks } from './demo-step-links'

const none = { cluster: null, mirror: null, topic: null, partition: null, operation: null }

describe('stepLinks', () => {
  it('opens the partition page, then the operation, then the mirror', () => {
    expect(stepLinks({ ...none, mirror: 'worked-1', cluster: 'worked-1-destination', topic: 'orders', partition: 0, operation: 'op-7' })).toEqual([
      { href: '/mirrors/worked-1/partitions/orders/0', label: 'Partition orders-0 of worked-1' },
      { href: '/operations/op-7', label: 'Failover operation' },
      { href: '/mirrors/worked-1', label: 'Mirror worked-1' },
    ])
  })

  it('opens the cluster page for a step about a cluster alone, and nothing without a target', () => {
    expect(stepLinks({ ...none, cluster: 'worked-1-source', topic: 'orders', partition: 0 })).toEqual([
      { href: '/clusters/worked-1-source', label: 'Cluster worked-1-source (topic orders)' },
    ])
    expect(stepLinks({ ...none, cluster: 'a.b' })).toEqual([{ href: '/clusters/a.b', label: 'Cluster a.b' }])
    expect(stepLinks(null)).toEqual([])
  })

  it('escapes names in paths', () => {
    expect(stepLinks({ ...none, mirror: 'm#1' })[0]?.href).toBe('/mirrors/m%231')
  })
})

describe('currentStepIndex', () => {
  it('is the running step, else the last finished, else the first', () => {
    expect(currentStepIndex([{ status: 'succeeded' }, { status: 'running' }, { status: 'pending' }])).toBe(1)
    expect(currentStepIndex([{ status: 'succeeded' }, { status: 'failed' }, { status: 'pending' }])).toBe(1)
    expect(currentStepIndex([{ status: 'pending' }, { status: 'pending' }])).toBe(0)
    expect(currentStepIndex([])).toBe(0)
  })
})

describe('links to drills and verifications', () => {
  it('opens the drill, the verification, and the partition with the verification marked', () => {
    const links = stepLinks({ cluster: 'b', mirror: 'dr', topic: 'orders', partition: 0, operation: null, drill: 'd-1', verification: 'v-2' })
    expect(links.map((link) => link.href)).toEqual(['/mirrors/dr/partitions/orders/0?verification=v-2', '/drills/d-1', '/verifications/v-2', '/mirrors/dr'])
  })
})
