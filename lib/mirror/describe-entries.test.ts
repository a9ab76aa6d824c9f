import { describe, expect, it } from 'vitest'
import { describeEntries, type DescribedPartition } from './describe-entries'

const partition = (overrides: Partial<DescribedPartition>): DescribedPartition => ({
  topic: 'orders',
  partition: 0,
  state: 'MIRRORING',
  sourceHighWatermark: 10,
  destinationHighWatermark: 7,
  retryAttempt: 0,
  error: null,
  ...overrides,
})

describe("describeEntries (kafka-cluster-mirrors.sh --describe --json's shape)", () => {
  it('gives each partition the fields of the tool, in its order, with the lag of a MIRRORING partition', () => {
    const [entry] = describeEntries('dr', [partition({})])
    expect(Object.keys(entry!)).toEqual(['mirror', 'topic', 'partition', 'sourceOffset', 'destinationOffset', 'lag', 'state', 'retryAttempt', 'errorMessage'])
    expect(entry).toEqual({ mirror: 'dr', topic: 'orders', partition: 0, sourceOffset: 10, destinationOffset: 7, lag: 3, state: 'MIRRORING', retryAttempt: 0, errorMessage: null })
  })

  it('answers -1 for offsets and lag without a fetcher, or before the source answered; never a negative lag', () => {
    const entries = describeEntries('dr', [
      partition({ partition: 0, state: 'PAUSED' }),
      partition({ partition: 1, sourceHighWatermark: null }),
      partition({ partition: 2, state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.' }),
      partition({ partition: 3, sourceHighWatermark: 5, destinationHighWatermark: 7 }),
    ])
    expect(entries.map(({ partition, sourceOffset, destinationOffset, lag, state, retryAttempt, errorMessage }) => [partition, sourceOffset, destinationOffset, lag, state, retryAttempt, errorMessage])).toEqual([
      [0, -1, -1, -1, 'PAUSED', 0, null],
      [1, -1, 7, -1, 'MIRRORING', 0, null],
      [2, -1, -1, -1, 'FAILED', -1, 'The source topic is deleted.'],
      [3, 5, 7, 0, 'MIRRORING', 0, null],
    ])
  })

  it("sorts by topic in Java's String order (code units, upper case first), then by partition number", () => {
    const entries = describeEntries('dr', [
      partition({ topic: 'b', partition: 10 }),
      partition({ topic: 'b', partition: 2 }),
      partition({ topic: 'a', partition: 0 }),
      partition({ topic: 'Z', partition: 0 }),
    ])
    expect(entries.map((entry) => `${entry.topic}-${entry.partition}`)).toEqual(['Z-0', 'a-0', 'b-2', 'b-10'])
  })

  it("names states as the voted KIP does when asked, ours otherwise", () => {
    const partitions = [partition({ state: 'PREPARING' }), partition({ partition: 1, state: 'ULE_LOG_TRUNCATION' }), partition({ partition: 2, state: 'EPOCH_FENCING' })]
    expect(describeEntries('dr', partitions).map((entry) => entry.state)).toEqual(['PREPARING', 'ULE_LOG_TRUNCATION', 'EPOCH_FENCING'])
    expect(describeEntries('dr', partitions, 'kip').map((entry) => entry.state)).toEqual(['LOG_ALIGNMENT', 'ULE_RECOVERY', 'EPOCH_FENCING'])
  })
})
