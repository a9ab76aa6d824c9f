import { describe, expect, it } from 'vitest'
import { PartitionLabels } from './partition-labels'

describe('PartitionLabels', () => {
  it('writes a partition label set once and hands the same text to later collections', () => {
    const labels = new PartitionLabels('mirror')
    const first = labels.of('dr', 'orders', 3)
    expect(first.text).toBe('{mirror="dr",topic="orders",partition="3"}')
    expect(labels.of('dr', 'payments', 3).text).toBe('{mirror="dr",topic="payments",partition="3"}')
    expect(labels.of('dr', 'orders', 3)).toBe(first)
    labels.sweep()
    expect(labels.of('dr', 'orders', 3)).toBe(first)
    expect(labels.of('other', 'orders', 3).text).toBe('{mirror="other",topic="orders",partition="3"}')
  })

  it('forgets the topics a whole collection did not ask for', () => {
    const labels = new PartitionLabels('cluster')
    const kept = labels.of('a', 'kept', 0)
    const dropped = labels.of('a', 'deleted', 0)
    labels.sweep()
    expect(labels.of('a', 'kept', 0)).toBe(kept)
    labels.sweep()
    expect(labels.of('a', 'kept', 0)).toBe(kept)
    expect(labels.of('a', 'deleted', 0)).not.toBe(dropped)
    expect(labels.of('a', 'deleted', 0).text).toBe(dropped.text)
  })

  it('escapes label values once', () => {
    expect(new PartitionLabels('mirror').of('a"b\\c\nd', 'orders', 0).text).toBe('{mirror="a\\"b\\\\c\\nd",topic="orders",partition="0"}')
  })
})
