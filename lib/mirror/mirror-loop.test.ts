import { describe, expect, it } from 'vitest'
import { findMirrorLoop, reverseMirrorVerdict, type HostedMirrorView } from './mirror-loop'

const forward: HostedMirrorView = {
  name: 'forward',
  sourceClusterId: 'cluster-a',
  topics: ['orders', 'orders-eu'],
  partitionStates: { 'orders-0': 'STOPPED', 'orders-1': 'STOPPED', 'orders-eu-0': 'MIRRORING' },
}

describe('findMirrorLoop', () => {
  it('sees no loop for orders while only orders-eu still mirrors (the prefix match of issue #18)', () => {
    expect(findMirrorLoop([forward], 'cluster-a', ['orders'])).toBeNull()
  })

  it('names the mirror, the topic and its live partitions when the topic itself still mirrors', () => {
    expect(findMirrorLoop([forward], 'cluster-a', ['orders', 'orders-eu'])).toEqual({ mirror: 'forward', topic: 'orders-eu', states: { 'orders-eu-0': 'MIRRORING' } })
  })

  it('ignores mirrors whose source is another cluster', () => {
    expect(findMirrorLoop([forward], 'cluster-c', ['orders-eu'])).toBeNull()
  })
})

describe('reverseMirrorVerdict', () => {
  it('judges one partition by its own state only', () => {
    expect(reverseMirrorVerdict([forward], 'cluster-a', { topic: 'orders', partition: 0 })).toEqual({ kind: 'none' })
    expect(reverseMirrorVerdict([forward], 'cluster-a', { topic: 'orders-eu', partition: 0 })).toEqual({ kind: 'loop', mirror: 'forward', state: 'MIRRORING' })
    const paused = { ...forward, partitionStates: { 'orders-eu-0': 'PAUSED' } }
    expect(reverseMirrorVerdict([paused], 'cluster-a', { topic: 'orders-eu', partition: 0 })).toEqual({ kind: 'notStopped', mirror: 'forward', state: 'PAUSED' })
  })
})
