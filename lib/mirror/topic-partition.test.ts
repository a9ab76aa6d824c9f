import { describe, expect, it } from 'vitest'
import { compareTopicPartitions, parseTopicPartitionName, topicPartitionMapFromNames, topicPartitionName, TopicPartitionMap } from './topic-partition'

describe('TopicPartitionMap', () => {
  it('keeps orders-0 and orders-eu-0 apart, by topic and then partition', () => {
    const map = new TopicPartitionMap<string>()
    map.set({ topic: 'orders', partition: 0 }, 'STOPPED').set({ topic: 'orders-eu', partition: 0 }, 'MIRRORING')
    expect(map.ofTopic('orders')).toEqual(['STOPPED'])
    expect(map.get({ topic: 'orders-eu', partition: 0 })).toBe('MIRRORING')
    expect(map.get({ topic: 'orders', partition: 1 })).toBeUndefined()
    expect(map.size).toBe(2)
  })

  it('counts a replaced value once and forgets an emptied topic', () => {
    const map = new TopicPartitionMap<number>()
    map.set({ topic: 't', partition: 0 }, 1).set({ topic: 't', partition: 0 }, 2)
    expect(map.size).toBe(1)
    expect(map.delete({ topic: 't', partition: 0 })).toBe(true)
    expect(map.delete({ topic: 't', partition: 0 })).toBe(false)
    expect([...map.topics()]).toEqual([])
    expect(map.size).toBe(0)
  })
})

describe('wire names', () => {
  it('reads the partition number after the last dash', () => {
    expect(parseTopicPartitionName('orders-eu-0')).toEqual({ topic: 'orders-eu', partition: 0 })
    expect(parseTopicPartitionName('a-1-12')).toEqual({ topic: 'a-1', partition: 12 })
    expect(parseTopicPartitionName(topicPartitionName({ topic: 'x.y_z', partition: 7 }))).toEqual({ topic: 'x.y_z', partition: 7 })
  })

  it('answers null for names that denote no partition', () => {
    for (const name of ['orders', '-0', 'orders-', 'orders-01', 'orders-x']) expect(parseTopicPartitionName(name)).toBeNull()
  })

  it('reads a record of wire names as a map and orders partitions topic first', () => {
    const map = topicPartitionMapFromNames({ 'orders-eu-0': 'MIRRORING', 'orders-1': 'STOPPED', bogus: 'x' })
    expect([...map.entries()].sort(([a], [b]) => compareTopicPartitions(a, b))).toEqual([
      [{ topic: 'orders', partition: 1 }, 'STOPPED'],
      [{ topic: 'orders-eu', partition: 0 }, 'MIRRORING'],
    ])
  })
})
