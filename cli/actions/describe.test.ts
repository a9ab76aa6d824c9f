import { describe, expect, it } from 'vitest'
import type { MirrorPartition } from '@/lib/api/mirrors'
import { describeEntries, retryText } from './describe'

function partition(fields: Partial<MirrorPartition> & Pick<MirrorPartition, 'topic' | 'partition' | 'state'>): MirrorPartition {
  return {
    stateEpoch: 1,
    stateSince: 0,
    previousState: null,
    retryAttempt: 0,
    error: null,
    sourceHighWatermark: null,
    destinationHighWatermark: 0,
    destinationLogEndOffset: 0,
    offsetLag: null,
    timeLagMs: null,
    lastFetchAt: null,
    destinationLeaderEpoch: 0,
    lastMirrorPosition: null,
    lastTruncation: null,
    ...fields,
  }
}

describe("--describe's entries, as kafka-cluster-mirrors.sh --describe --json prints them", () => {
  it('has offsets and lag only while MIRRORING and fetched, -1 otherwise, sorted by topic then partition', () => {
    const entries = describeEntries('dr', [
      partition({ topic: 'orders', partition: 1, state: 'MIRRORING', sourceHighWatermark: 120, destinationHighWatermark: 118 }),
      partition({ topic: 'Orders', partition: 0, state: 'PAUSED', sourceHighWatermark: 5, destinationHighWatermark: 3 }),
      partition({ topic: 'orders', partition: 0, state: 'MIRRORING', sourceHighWatermark: null, destinationHighWatermark: 7 }),
      partition({ topic: 'payments', partition: 0, state: 'FAILED', retryAttempt: -1, error: 'source topic deleted' }),
    ])
    expect(entries).toEqual([
      { mirror: 'dr', topic: 'Orders', partition: 0, sourceOffset: -1, destinationOffset: -1, lag: -1, state: 'PAUSED', retryAttempt: 0, errorMessage: null },
      { mirror: 'dr', topic: 'orders', partition: 0, sourceOffset: -1, destinationOffset: 7, lag: -1, state: 'MIRRORING', retryAttempt: 0, errorMessage: null },
      { mirror: 'dr', topic: 'orders', partition: 1, sourceOffset: 120, destinationOffset: 118, lag: 2, state: 'MIRRORING', retryAttempt: 0, errorMessage: null },
      { mirror: 'dr', topic: 'payments', partition: 0, sourceOffset: -1, destinationOffset: -1, lag: -1, state: 'FAILED', retryAttempt: -1, errorMessage: 'source topic deleted' },
    ])
    expect(Object.keys(entries[0] ?? {})).toEqual(['mirror', 'topic', 'partition', 'sourceOffset', 'destinationOffset', 'lag', 'state', 'retryAttempt', 'errorMessage'])
  })

  it('prints RETRY as attempts over the maximum, or NonRetryable', () => {
    expect([retryText(3, 20), retryText(0, 20), retryText(-1, 20)]).toEqual(['3/20', '0/20', 'NonRetryable'])
  })
})
