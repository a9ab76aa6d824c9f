import { describe, expect, it } from 'vitest'
import type { MirrorSummary } from '../api/mirrors'
import type { Operation } from '../api/operations'
import { matchedTopics, mirrorIndexRows, nextMirrorSort, searchMirrors, sortMirrors } from './mirror-index'

function mirror(name: string, patch: Partial<MirrorSummary> = {}): MirrorSummary {
  return {
    name,
    sourceCluster: 'us-east',
    destinationCluster: 'eu-west',
    topics: ['orders'],
    partitionsByState: { MIRRORING: 3 },
    maxOffsetLag: 0,
    totalOffsetLag: 0,
    maxTimeLagMs: 0,
    ...patch,
  }
}

function failover(mirrorName: string, startedAt: number): Operation {
  return { id: `op-${startedAt}`, kind: 'failover', mirror: mirrorName, status: 'succeeded', startedAt, finishedAt: startedAt + 1_000, requestedBy: null, resumedAt: [], partitions: [] } as unknown as Operation
}

const mirrors = [
  mirror('calm', { maxTimeLagMs: 200, throughput: { recordsPerSecond: 50, bytesPerSecond: 5_000, fetchLatencyMs: 3, fetchLatencyMaxMs: 9, throttleUse: null, fetches: 20, asOf: 1 } }),
  mirror('broken', { partitionsByState: { FAILED: 2, MIRRORING: 1 }, maxTimeLagMs: 31_000, lagKnown: false, topics: ['payments', 'refunds-eu'] }),
  mirror('done', { partitionsByState: { STOPPED: 3 }, maxTimeLagMs: null, totalOffsetLag: null, maxOffsetLag: null, sourceCluster: 'ap-south' }),
]

describe('the mirrors index', () => {
  const rows = mirrorIndexRows(mirrors, [failover('done', 5_000), failover('done', 9_000), failover('calm', 1_000)])

  it('rows carry the worst state, the partition count and the newest failover', () => {
    expect(rows.map((row) => [row.mirror.name, row.worst, row.partitions, row.lastFailover?.startedAt ?? null])).toEqual([
      ['calm', 'MIRRORING', 3, 1_000],
      ['broken', 'FAILED', 3, null],
      ['done', 'STOPPED', 3, 9_000],
    ])
  })

  it('sorts the worst state first by default, unknowns last whichever the direction', () => {
    expect(sortMirrors(rows, { column: 'state', direction: 'desc' })[0]!.mirror.name).toBe('broken')
    expect(sortMirrors(rows, { column: 'lag', direction: 'desc' }).map((row) => row.mirror.name)).toEqual(['broken', 'calm', 'done'])
    expect(sortMirrors(rows, { column: 'lag', direction: 'asc' }).map((row) => row.mirror.name)).toEqual(['calm', 'broken', 'done'])
    expect(sortMirrors(rows, { column: 'throughput', direction: 'desc' }).map((row) => row.mirror.name)).toEqual(['calm', 'broken', 'done'])
    expect(sortMirrors(rows, { column: 'lastFailover', direction: 'desc' }).map((row) => row.mirror.name)).toEqual(['done', 'calm', 'broken'])
  })

  it('puts a mirror over its RPO objective above calm ones of the same state, below worse states', () => {
    const objectives = (status: 'met' | 'breached' | 'unknown') => ({ status, rpoRecords: 10, rpoSeconds: null, records: 5, seconds: 1, known: status !== 'unknown' })
    const withRpo = mirrorIndexRows(
      [
        mirror('a-met', { objectives: objectives('met') }),
        mirror('b-none'),
        mirror('c-breached', { objectives: objectives('breached') }),
        mirror('d-unknown', { objectives: objectives('unknown') }),
        mirror('e-failed', { partitionsByState: { FAILED: 1 } }),
      ],
      [],
    )
    expect(sortMirrors(withRpo, { column: 'state', direction: 'desc' }).map((row) => row.mirror.name)).toEqual(['e-failed', 'c-breached', 'd-unknown', 'a-met', 'b-none'])
  })

  it('searches across mirror names, clusters and topics, every word', () => {
    expect(searchMirrors(rows, 'refunds').map((row) => row.mirror.name)).toEqual(['broken'])
    expect(searchMirrors(rows, 'AP-SOUTH').map((row) => row.mirror.name)).toEqual(['done'])
    expect(searchMirrors(rows, 'orders calm').map((row) => row.mirror.name)).toEqual(['calm'])
    expect(searchMirrors(rows, '  ').length).toBe(3)
    expect(matchedTopics(rows[1]!, 'eu')).toEqual(['refunds-eu'])
  })

  it('a second click flips the column; a new figure column starts descending', () => {
    expect(nextMirrorSort({ column: 'state', direction: 'desc' }, 'state')).toEqual({ column: 'state', direction: 'asc' })
    expect(nextMirrorSort({ column: 'state', direction: 'desc' }, 'lag')).toEqual({ column: 'lag', direction: 'desc' })
    expect(nextMirrorSort({ column: 'lag', direction: 'desc' }, 'name')).toEqual({ column: 'name', direction: 'asc' })
  })
})
