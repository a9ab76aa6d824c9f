import { describe, expect, it } from 'vitest'
import { mirrorKey as keyOf } from '@/lib/ha/member-metadata'
import { GroupOwnership } from './ha-ownership'

const shared = () => true
const orders = { name: 'orders', sourceCluster: 'east', destinationCluster: 'west' }
const payments = { name: 'payments', sourceCluster: 'east', destinationCluster: 'west' }
describe('GroupOwnership', () => {
  it('keeps a mirror created here through assignments the group made before it knew of it, then lets the group decide', () => {
    const ownership = new GroupOwnership(shared)
    ownership.assign([keyOf(orders)])
    ownership.adoptCreated(payments)
    // An assignment balanced from a catalog read before payments existed.
    ownership.assign([keyOf(orders)])
    expect(ownership.owns(payments)).toBe(true)
    expect(ownership.ownedKeys()).toEqual([keyOf(orders), keyOf(payments)].sort())
    // The rebalance asked for after the create has run: the next assignment places it, here elsewhere.
    ownership.placedByGroup(payments)
    expect(ownership.owns(payments)).toBe(true)
    ownership.assign([keyOf(orders)])
    expect(ownership.owns(payments)).toBe(false)
  })

  it('gives a mirror created here up with everything else when the session is lost', () => {
    const ownership = new GroupOwnership(shared)
    ownership.adoptCreated(payments)
    ownership.assign([])
    expect(ownership.owns(payments)).toBe(false)
    // Not kept through a later assignment either: the group decides from then on.
    ownership.assign([keyOf(orders)])
    expect(ownership.owns(payments)).toBe(false)
  })

  it('tells its listeners when an assignment changes what runs here, not when it keeps a created mirror as it was', () => {
    const ownership = new GroupOwnership(shared)
    let changes = 0
    ownership.onChange(() => (changes += 1))
    ownership.adoptCreated(payments)
    ownership.assign([keyOf(payments)])
    expect(changes).toBe(0)
    ownership.assign([keyOf(orders)])
    expect(changes).toBe(1)
    expect(ownership.owns(orders) && ownership.owns(payments)).toBe(true)
  })

  it('always runs a mirror with an embedded cluster, whatever the group assigns', () => {
    const ownership = new GroupOwnership((cluster) => cluster !== 'local')
    expect(ownership.owns({ name: 'local-dr', sourceCluster: 'east', destinationCluster: 'local' })).toBe(true)
    expect(ownership.owns(orders)).toBe(false)
  })
})
