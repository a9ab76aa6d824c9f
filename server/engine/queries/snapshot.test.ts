import { expect, it } from 'vitest'
import { compareSnapshots } from './snapshot'
import type { PartitionSnapshot } from '../types'

const base: PartitionSnapshot = {
  topic: 'orders',
  partition: 0,
  state: 'MIRRORING',
  stateEpoch: 7,
  stateSince: 1764400000000,
  previousState: 'PREPARING',
  retryAttempt: 0,
  error: null,
  sourceHighWatermark: 120,
  destinationHighWatermark: 118,
  destinationLogEndOffset: 118,
  offsetLag: 2,
  timeLagMs: 350,
  lastFetchAt: 1764400000000,
  destinationLeaderEpoch: 13,
  lastMirrorPosition: { epoch: 3, offset: 118 },
  lastTruncation: { offset: 3, removedRecords: 3, at: 1764400000000, reason: 'failback' },
  stoppingStep: null,
}

/** Every way one member can differ: another value, null, or one field of a nested object changed. */
function variants(value: unknown): unknown[] {
  if (value === null) return [0, 'x', { epoch: 0, offset: 0 }]
  if (typeof value === 'number') return [value + 1, null]
  if (typeof value === 'string') return [`${value}x`, null]
  const nested = value as Record<string, unknown>
  return [null, ...Object.keys(nested).flatMap((key) => variants(nested[key]).map((other) => ({ ...nested, [key]: other })))]
}

it('tells apart snapshots that differ in any one member, nested ones included', () => {
  expect(compareSnapshots(base, structuredClone(base))).toBe('same')
  for (const key of Object.keys(base) as Array<keyof PartitionSnapshot>) {
    for (const other of variants(base[key])) {
      const expected = key === 'lastFetchAt' ? 'lastFetchAt' : 'different'
      expect(compareSnapshots(base, { ...base, [key]: other } as PartitionSnapshot), `${key} → ${JSON.stringify(other)}`).toBe(expected)
      if (key !== 'lastFetchAt') expect(compareSnapshots(base, { ...base, lastFetchAt: 1, [key]: other } as PartitionSnapshot), `${key} → ${JSON.stringify(other)} and lastFetchAt`).toBe('different')
    }
  }
})
