import { describe, expect, it } from 'vitest'
import { compareTopicPartitions, sameTopicPartition, TopicPartitionMap } from './topic-partition'

// The engine keeps every partition in a TopicPartitionMap (server/engine/README.md): its whole surface, pinned.

describe('TopicPartition helpers', () => {
  it('same topic and partition number, or not', () => {
    expect(sameTopicPartition({ topic: 'a', partition: 1 }, { topic: 'a', partition: 1 })).toBe(true)
    expect(sameTopicPartition({ topic: 'a', partition: 1 }, { topic: 'a', partition: 2 })).toBe(false)
    expect(sameTopicPartition({ topic: 'a', partition: 1 }, { topic: 'b', partition: 1 })).toBe(false)
  })

  it('orders by topic name, then by partition number', () => {
    expect(compareTopicPartitions({ topic: 'a', partition: 9 }, { topic: 'b', partition: 0 })).toBeLessThan(0)
    expect(compareTopicPartitions({ topic: 'b', partition: 0 }, { topic: 'a', partition: 9 })).toBeGreaterThan(0)
    expect(compareTopicPartitions({ topic: 'a', partition: 2 }, { topic: 'a', partition: 10 })).toBe(-8)
    expect(compareTopicPartitions({ topic: 'a', partition: 3 }, { topic: 'a', partition: 3 })).toBe(0)
  })
})

describe('TopicPartitionMap', () => {
  const map = () =>
    TopicPartitionMap.of<string>([
      [{ topic: 'orders', partition: 1 }, 'o1'],
      [{ topic: 'orders', partition: 0 }, 'o0'],
      [{ topic: 'clicks', partition: 0 }, 'c0'],
    ])

  it('holds entries by topic and partition, and answers has / get / size', () => {
    const m = map()
    expect(m.size).toBe(3)
    expect(m.has({ topic: 'orders', partition: 0 })).toBe(true)
    expect(m.has({ topic: 'orders', partition: 2 })).toBe(false)
    expect(m.has({ topic: 'payments', partition: 0 })).toBe(false)
    expect(m.get({ topic: 'clicks', partition: 0 })).toBe('c0')
    expect(m.get({ topic: 'payments', partition: 0 })).toBeUndefined()
    expect(m.hasTopic('orders')).toBe(true)
    expect(m.hasTopic('payments')).toBe(false)
  })

  it('lists a topic’s values and entries, empty for a topic it does not hold', () => {
    const m = map()
    expect(m.ofTopic('orders').sort()).toEqual(['o0', 'o1'])
    expect(m.ofTopic('payments')).toEqual([])
    expect(m.entriesOfTopic('clicks')).toEqual([[{ topic: 'clicks', partition: 0 }, 'c0']])
    expect(m.entriesOfTopic('payments')).toEqual([])
  })

  it('iterates values and entries, and forgets a topic with its last partition', () => {
    const m = map()
    expect([...m.values()].sort()).toEqual(['c0', 'o0', 'o1'])
    expect([...m].map(([tp, value]) => `${tp.topic}-${tp.partition}=${value}`).sort()).toEqual(['clicks-0=c0', 'orders-0=o0', 'orders-1=o1'])
    expect(m.delete({ topic: 'clicks', partition: 0 })).toBe(true)
    expect(m.hasTopic('clicks')).toBe(false)
    expect([...m.topics()]).toEqual(['orders'])
    expect(m.delete({ topic: 'orders', partition: 0 })).toBe(true)
    expect(m.hasTopic('orders')).toBe(true)
    expect(m.delete({ topic: 'payments', partition: 0 })).toBe(false)
    expect(m.size).toBe(1)
  })
})
