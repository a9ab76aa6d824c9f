import { describe, expect, it } from 'vitest'
import { FailureCause } from '../api/attention'
import { causeOf, FAILURE_CAUSES, incidentOf, type IncidentPartition } from './incident'

const NOW = 1_764_400_000_000
const failed = (partition: number, extra: Partial<IncidentPartition> = {}): IncidentPartition => ({
  topic: 'orders',
  partition,
  state: 'FAILED',
  stateSince: NOW - 1_000,
  error: 'source unreachable: cluster us-east is unreachable',
  retryAttempt: 3,
  lastFetchAt: NOW - 31_000,
  failureCode: 'SOURCE_UNREACHABLE',
  nextRetryAt: NOW + 4_000,
  ...extra,
})

describe('incidentOf', () => {
  it('is nothing while no partition is FAILED', () => {
    expect(incidentOf('dr', [{ ...failed(0), state: 'MIRRORING' }])).toBeNull()
  })

  it('says the cause, since when the source last answered, how many, and the soonest retry', () => {
    const incident = incidentOf('dr', [failed(0), failed(1, { lastFetchAt: NOW - 45_000, nextRetryAt: NOW + 2_000 }), { ...failed(2), state: 'MIRRORING' }])
    expect(incident).toMatchObject({ mirror: 'dr', failed: 2, since: NOW - 45_000, nextRetryAt: NOW + 2_000, retrying: true })
    expect(incident?.groups.map((group) => [group.cause, group.partitions])).toEqual([['sourceUnreachable', 2]])
  })

  it('needs an operator when a group is not retried', () => {
    const incident = incidentOf('dr', [failed(0), failed(1, { failureCode: 'LOG_DIVERGED', retryAttempt: -1, nextRetryAt: null, stateSince: NOW - 5_000 })])
    expect(incident).toMatchObject({ failed: 2, retrying: false })
    // As many partitions each: the older failure first (the source stopped answering 31 s ago).
    expect(incident?.groups.map((group) => group.cause)).toEqual(['sourceUnreachable', 'logDiverged'])
  })

  it('names a tiered-storage refusal as what it is, not "source changed"', () => {
    expect(causeOf('TIERED_STORAGE_ENABLED')).toBe('tieredStorage')
    const incident = incidentOf('dr', [failed(0, { failureCode: 'TIERED_STORAGE_ENABLED', retryAttempt: -1, nextRetryAt: null, error: 'topic orders has remote.storage.enable=true' })])
    expect(incident?.groups.map((group) => group.cause)).toEqual(['tieredStorage'])
    expect(FAILURE_CAUSES.tieredStorage.label).toMatch(/tiered storage/)
    expect(FAILURE_CAUSES.sourceChanged.detail).not.toMatch(/tiered/)
    // Every code maps to a cause of its own kind: the cluster or topic gone is "source changed", nothing else.
    expect(causeOf('SOURCE_TOPIC_DELETED')).toBe('sourceChanged')
    expect(causeOf('SOURCE_CLUSTER_ID_CHANGED')).toBe('sourceChanged')
    // GET /attention answers every cause the grouping knows.
    expect([...FailureCause.options].sort()).toEqual(Object.keys(FAILURE_CAUSES).sort())
  })

  it('reads a failure without a code as a plain failure', () => {
    expect(causeOf(null)).toBe('other')
    expect(causeOf('DESTINATION_UNREACHABLE')).toBe('destinationUnreachable')
  })
})
