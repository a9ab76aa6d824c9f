import { describe, expect, it } from 'vitest'
import { compareLogEnds, defaultReverseMirrorName, exportLine, exportRanges, failbackProgress, failbackTotals, fencesLiftedByFailover, isValidMirrorName, rebuiltTopics, recordsInRange } from './failback'
import { TopicPartitionMap } from '../mirror/topic-partition'

// The worked example's failback: the old source is cut back to 3, losing COMMIT 3, Y at 4 and Z at 5.
const workedExample = { topic: 'orders', partition: 0, truncateTo: 3, recordsToRemove: 3, lastMirrorPosition: { epoch: 0, offset: 3 } }

describe('defaultReverseMirrorName', () => {
  it('proposes <mirror>-failback and numbers it when taken', () => {
    expect(defaultReverseMirrorName('dr', [])).toBe('dr-failback')
    expect(defaultReverseMirrorName('dr', ['dr-failback', 'dr-failback-2'])).toBe('dr-failback-3')
  })

  it('stays a valid mirror name for the longest mirror names', () => {
    expect(isValidMirrorName(defaultReverseMirrorName('m'.repeat(249), []))).toBe(true)
    expect(isValidMirrorName('bad name')).toBe(false)
  })
})

describe('failbackTotals and exportRanges', () => {
  it('removes offsets 3, 4 and 5 in the worked example', () => {
    expect(failbackTotals([workedExample])).toEqual({ partitions: 1, recordsToRemove: 3, partitionsTruncated: 1, partitionsFromScratch: 0 })
    expect(exportRanges([workedExample])).toEqual([{ topic: 'orders', partition: 0, fromOffset: 3, toOffset: 6 }])
  })

  it('leaves out partitions with nothing to remove and starts a whole-log truncation at the log start', () => {
    const ranges = exportRanges(
      [
        { topic: 'b', partition: 0, truncateTo: 10, recordsToRemove: 0, lastMirrorPosition: null },
        { topic: 'a', partition: 1, truncateTo: null, recordsToRemove: 4, lastMirrorPosition: null },
      ],
      TopicPartitionMap.of([[{ topic: 'a', partition: 1 }, 7]]),
    )
    expect(ranges).toEqual([{ topic: 'a', partition: 1, fromOffset: 7, toOffset: 11 }])
  })

  it('keeps only the records of a page inside the range', () => {
    expect(recordsInRange([{ offset: 2 }, { offset: 3 }, { offset: 5 }, { offset: 6 }], { topic: 'orders', partition: 0, fromOffset: 3, toOffset: 6 })).toEqual([{ offset: 3 }, { offset: 5 }])
  })
})

describe('exportLine', () => {
  it('writes one JSON object and a newline, with offset, type, producer id, epochs, key, value and timestamp', () => {
    const line = exportLine('orders', 0, { offset: 4, type: 'DATA', producerId: 4003, producerEpoch: 0, leaderEpoch: 0, transactional: true, timestamp: 1, key: 'Y', value: '5' })
    expect(line.endsWith('\n')).toBe(true)
    expect(line.indexOf('\n')).toBe(line.length - 1)
    expect(JSON.parse(line)).toEqual({ topic: 'orders', partition: 0, offset: 4, type: 'DATA', producerId: 4003, producerEpoch: 0, leaderEpoch: 0, transactional: true, timestamp: 1, key: 'Y', value: '5', headers: [] })
  })

  it('keeps the record headers and escapes U+2028 and U+2029, so every record stays one line (issue #41 item 6)', () => {
    const record = { offset: 7, type: 'DATA', producerId: null, producerEpoch: null, leaderEpoch: 2, transactional: false, timestamp: 3, key: 'k\u2028', value: 'a\u2029b\nc' }
    const line = exportLine('orders', 1, { ...record, headers: [{ key: 'trace\u2028id', value: 'x' }, { key: 'empty', value: null }] })
    expect(line).not.toMatch(/[\u2028\u2029]/)
    expect(line.split(/\r\n|\r|\n|\u2028|\u2029/)).toEqual([expect.any(String), ''])
    expect(JSON.parse(line)).toMatchObject({ key: 'k\u2028', value: 'a\u2029b\nc', headers: [{ key: 'trace\u2028id', value: 'x' }, { key: 'empty', value: null }] })
  })
})

describe('failbackProgress and compareLogEnds', () => {
  it('is done only when every partition mirrors', () => {
    expect(failbackProgress({ PREPARING: 1, MIRRORING: 1 }, 2).done).toBe(false)
    expect(failbackProgress({ MIRRORING: 2 }, 2).done).toBe(true)
    expect(failbackProgress({}, 0).done).toBe(false)
  })

  it('matches partitions with equal log end offsets on both sides', () => {
    expect(compareLogEnds([{ topic: 'o', partition: 0, logEndOffset: 6 }, { topic: 'o', partition: 1, logEndOffset: 9 }], [{ topic: 'o', partition: 0, logEndOffset: 6 }, { topic: 'o', partition: 1, logEndOffset: 8 }]).map((c) => c.matches)).toEqual([true, false])
  })
})

describe('rebuiltTopics', () => {
  it('lists each topic the plan rebuilds once, sorted, and none of a plan that truncates', () => {
    const entry = (topic: string, partition: number, rebuild?: boolean) => ({ topic, partition, truncateTo: 3, recordsToRemove: 2, lastMirrorPosition: null, ...(rebuild === undefined ? {} : { rebuild }) })
    expect(rebuiltTopics([entry('p', 1, true), entry('o', 0, true), entry('p', 0, true), entry('q', 0, false), entry('r', 0)])).toEqual(['o', 'p'])
    expect(rebuiltTopics([entry('o', 0)])).toEqual([])
  })
})

describe('fencesLiftedByFailover', () => {
  const failback = { sourceCluster: 'b', destinationCluster: 'a' }
  const mirrors = new Map([
    ['m', { sourceCluster: 'a', destinationCluster: 'b' }],
    ['to-c', { sourceCluster: 'a', destinationCluster: 'c' }],
    ['m-failback', failback],
  ])

  it("lifts the original mirror's fence on the topic, and a fence whose mirror is gone", () => {
    const fences = [
      { topic: 'orders', mirror: 'm' },
      { topic: 'orders', mirror: 'deleted' },
      { topic: 'payments', mirror: 'm' },
    ]
    expect(fencesLiftedByFailover(fences, 'orders', failback, mirrors)).toEqual(['deleted', 'm'])
  })

  it("keeps an unrelated mirror's fence (another destination) and fences on other topics", () => {
    const fences = [
      { topic: 'orders', mirror: 'to-c' },
      { topic: 'payments', mirror: 'm' },
    ]
    expect(fencesLiftedByFailover(fences, 'orders', failback, mirrors)).toEqual([])
  })

  it('lifts nothing for a mirror in the same direction as the fencing one', () => {
    expect(fencesLiftedByFailover([{ topic: 'orders', mirror: 'm' }], 'orders', { sourceCluster: 'a', destinationCluster: 'b' }, mirrors)).toEqual([])
  })
})
