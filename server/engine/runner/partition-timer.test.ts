import { describe, expect, it } from 'vitest'
import { createMirrorPartition } from '@/lib/mirror/partition'
import { PartitionChanges } from '../state/partition-changes'
import { newPartitionRuntime } from '../state/partition-runtime'
import { PartitionTimer } from './partition-timer'

const runtime = (partition: number) => newPartitionRuntime(new PartitionChanges(), { mirror: 'm', topic: 't', topicId: 'id', partition }, createMirrorPartition(0))

describe('PartitionTimer', () => {
  it('hands out only the wake-ups due by now, earliest first, ties in scheduling order', () => {
    const timer = new PartitionTimer()
    const [a, b, c, d] = [0, 1, 2, 3].map(runtime)
    timer.schedule(a!, 'retry', 300)
    timer.schedule(b!, 'retry', 100)
    timer.schedule(c!, 'restore', 100)
    timer.schedule(d!, 'convergence', 200)
    expect(timer.takeDue(99)).toEqual([])
    expect(timer.takeDue(200).map(({ runtime, reason }) => [runtime.partition, reason])).toEqual([
      [1, 'retry'],
      [2, 'restore'],
      [3, 'convergence'],
    ])
    expect(timer.size).toBe(1)
    expect(timer.nextAt()).toBe(300)
  })

  it('keeps 50,000 waiting partitions in order while a due look costs only what is due', () => {
    const timer = new PartitionTimer()
    const runtimes = Array.from({ length: 50_000 }, (_, partition) => runtime(partition))
    // Scheduled in a shuffled order of due times.
    for (const [index, r] of runtimes.entries()) timer.schedule(r, 'retry', 1_000 + ((index * 7919) % 50_000))
    expect(timer.takeDue(999)).toEqual([])
    const first = timer.takeDue(1_009)
    expect(first).toHaveLength(10)
    const rest = timer.takeDue(Number.MAX_SAFE_INTEGER)
    expect(rest).toHaveLength(49_990)
    const times = rest.map(({ runtime: r }) => 1_000 + ((r.partition * 7919) % 50_000))
    expect(times.every((time, i) => i === 0 || times[i - 1]! <= time)).toBe(true)
  })
})
