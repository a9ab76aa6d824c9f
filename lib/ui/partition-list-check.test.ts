import { describe, expect, it } from 'vitest'
import { MirrorPartitionList } from '../api/mirrors'
import { readPartitionList } from './partition-list-check'

function row(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    topic: 'orders',
    partition: 3,
    state: 'MIRRORING',
    stateEpoch: 2,
    stateSince: 1_764_590_000_000,
    previousState: 'PREPARING',
    retryAttempt: -1,
    error: null,
    sourceHighWatermark: 120,
    destinationHighWatermark: 118,
    destinationLogEndOffset: 118,
    offsetLag: 2,
    timeLagMs: 40,
    lastFetchAt: 1_764_590_000_100,
    destinationLeaderEpoch: 0,
    lastMirrorPosition: { epoch: 0, offset: 117 },
    lastTruncation: { offset: 5, removedRecords: 3, at: 1_764_580_000_000, reason: 'failback' },
    stoppingStep: null,
    stateDurable: true,
    // What the server sends since issue #33 (lag bounds, failure codes, retries, divergence).
    lagKnown: true,
    lagAsOf: 1_764_590_000_100,
    timeLagFrom: null,
    failureCode: null,
    nextRetryAt: null,
    divergence: null,
    ...overrides,
  }
}

/** The same verdict as the schema: the same value, or a throw. */
async function expectSameVerdict(body: unknown): Promise<void> {
  const schema = MirrorPartitionList.safeParse(body)
  if (schema.success) expect(await readPartitionList(body)).toEqual(schema.data)
  else await expect(async () => readPartitionList(body)).rejects.toThrow()
}

// Each field replaced by values of the wrong kind, out of range, or of the other allowed kind.
const VARIANTS: Record<string, unknown[]> = {
  topic: ['', '.', '..', 'a/b', 7, null, 'x'.repeat(250), 'ok.topic_1-2'],
  partition: [-1, 1.5, 2 ** 31, 2 ** 31 - 1, '3', null],
  state: ['MIRRORS', 'mirroring', null, 'STOPPED', 'FAILED'],
  stateEpoch: [-1, 0.5, null, 0],
  stateSince: [1.5, '1', null, -5],
  previousState: ['NOPE', undefined, null, 'PAUSED'],
  retryAttempt: [-2, 0, 3, 1.1, null],
  error: [7, 'boom', undefined],
  sourceHighWatermark: [null, -1, 0, 2 ** 60],
  destinationHighWatermark: [null, -1, 0],
  destinationLogEndOffset: [null, -3, 9],
  offsetLag: [null, -1, 0.5, 10],
  timeLagMs: [null, -1, 10],
  lastFetchAt: [null, 1.5, 0],
  destinationLeaderEpoch: [-1, -2, 5, null],
  lastMirrorPosition: [null, { epoch: -1, offset: -1 }, { epoch: -2, offset: 0 }, { epoch: 0 }, { epoch: 0, offset: 1, extra: 1 }, [], 'x'],
  lastTruncation: [null, { offset: 1, removedRecords: 0, at: 1, reason: '' }, { offset: -1, removedRecords: 0, at: 1, reason: '' }, { offset: 1, removedRecords: 0, at: 1 }, { offset: 1, removedRecords: 0, at: 1, reason: 'x', more: true }],
  stoppingStep: [undefined, 'done', 'pidReset', 'later', 3],
  stateDurable: [undefined, true, false, 'false', 0, null],
  lagKnown: [undefined, true, false, 'true', null],
  lagAsOf: [undefined, null, 5, 1.5, '5'],
  timeLagFrom: [undefined, null, 5, -5, 1.5],
  failureCode: [undefined, null, 'SOURCE_UNREACHABLE', 'LOG_DIVERGED', 'NOPE', 3],
  nextRetryAt: [undefined, null, 7, 0.5],
  divergence: [
    undefined,
    null,
    { epoch: 4, offset: 90, truncateTo: 90, recordsToCut: 10, logEndOffset: 100 },
    { epoch: -1, offset: -1, truncateTo: null, recordsToCut: 0, logEndOffset: 0 },
    { epoch: -2, offset: 90, truncateTo: 90, recordsToCut: 10, logEndOffset: 100 },
    { epoch: 4, offset: 90, truncateTo: -1, recordsToCut: 10, logEndOffset: 100 },
    { epoch: 4, offset: 90, truncateTo: 90, recordsToCut: 10 },
    { epoch: 4, offset: 90, truncateTo: 90, recordsToCut: 10, logEndOffset: 100, more: 1 },
    'x',
  ],
}

describe('readPartitionList', () => {
  it('accepts a valid list as it is, without copying 10,000 rows', async () => {
    const body = { partitions: [row(), row({ partition: 4, lastTruncation: null, lastMirrorPosition: null, stoppingStep: undefined })], stateVersion: 'v1' }
    expect(readPartitionList(body)).toBe(body)
    await expectSameVerdict(body)
  })

  it('gives the schema’s verdict for every field of the wrong kind or range', async () => {
    for (const [field, values] of Object.entries(VARIANTS)) {
      for (const value of values) {
        const changed = row({ [field]: value })
        if (value === undefined) delete changed[field]
        await expectSameVerdict({ partitions: [row(), changed], stateVersion: 'v' })
      }
    }
  })

  it('leaves what it does not accept exactly to the schema: extra keys stripped, bad envelopes refused', async () => {
    expect(await readPartitionList({ partitions: [row({ extra: 1 })], stateVersion: 'v', more: true })).toEqual({ partitions: [row()], stateVersion: 'v' })
    for (const body of [null, [], {}, { partitions: [] }, { partitions: {}, stateVersion: 'v' }, { partitions: [null], stateVersion: 'v' }, { partitions: [], stateVersion: 3 }]) await expectSameVerdict(body)
  })
})
