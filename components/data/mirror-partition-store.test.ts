import { describe, expect, it } from 'vitest'
import type { MirrorPartition } from '@/lib/api/mirrors'
import { LagEvent, PartitionEvent } from '@/lib/api/events'
import { MirrorPartitionStore, readLagEvent, readPartitionEvent, type StoreChange } from './mirror-partition-store'

function partition(topic: string, index: number, patch: Partial<MirrorPartition> = {}): MirrorPartition {
  return {
    topic,
    partition: index,
    state: 'MIRRORING',
    stateEpoch: 3,
    stateSince: 1_000,
    previousState: 'PREPARING',
    retryAttempt: 0,
    error: null,
    sourceHighWatermark: 10,
    destinationHighWatermark: 10,
    destinationLogEndOffset: 10,
    offsetLag: 0,
    timeLagMs: 0,
    lastFetchAt: 5_000,
    destinationLeaderEpoch: 1,
    lastMirrorPosition: null,
    lastTruncation: null,
    ...patch,
  }
}

/** A store whose notifications run when the test says so, as animation frames would. */
function storeWithFrames() {
  const frames: Array<() => void> = []
  const store = new MirrorPartitionStore('dr', (callback) => frames.push(callback))
  const changes: StoreChange[] = []
  store.subscribe((change) => changes.push(change))
  const flush = () => frames.splice(0).forEach((frame) => frame())
  return { store, changes, flush }
}

const lag = (partitions: Array<[string, number, number | null, number | null]>, mirror = 'dr', at = 10_000) => ({
  mirror,
  at,
  partitions: partitions.map(([topic, index, offsetLag, timeLagMs]) => ({ topic, partition: index, offsetLag, timeLagMs })),
})

const transition = (topic: string, index: number, to: MirrorPartition['state'], stateEpoch: number) => ({ mirror: 'dr', topic, partition: index, from: 'MIRRORING' as const, to, at: 20_000, stateEpoch })

describe('MirrorPartitionStore', () => {
  it('a partition that fails after the page loaded shows why and when it retries, from the event alone', () => {
    // The link cut mid-step: most partitions were FAILED in the page's first answer, two failed a moment later and
    // reached the table through the event stream only. They showed no failure code ("failed", "attempt 0").
    const { store } = storeWithFrames()
    store.replaceAll([partition('orders', 0), partition('orders', 1, { state: 'FAILED', error: 'old', failureCode: 'FETCH_ERROR', retryAttempt: 2, nextRetryAt: 9_000 })])
    store.applyTransition({
      ...transition('orders', 0, 'FAILED', 4),
      error: 'source unreachable: us-east does not answer',
      failureCode: 'SOURCE_UNREACHABLE',
      retryAttempt: 1,
      nextRetryAt: 21_000,
    })
    expect(store.get('orders/0')).toMatchObject({ state: 'FAILED', error: 'source unreachable: us-east does not answer', failureCode: 'SOURCE_UNREACHABLE', retryAttempt: 1, nextRetryAt: 21_000 })
    // Leaving FAILED clears them: a MIRRORING row keeps no stale reason.
    store.applyTransition({ ...transition('orders', 1, 'MIRRORING', 4), error: null, failureCode: null, retryAttempt: 0, nextRetryAt: null })
    expect(store.get('orders/1')).toMatchObject({ state: 'MIRRORING', error: null, failureCode: null, nextRetryAt: null, retryAttempt: 0 })
  })

  it('patches only the partitions a lag event names, replacing just their row objects', () => {
    const { store } = storeWithFrames()
    store.replaceAll([partition('orders', 0), partition('orders', 1)])
    const untouched = store.get('orders/1')
    store.applyLag(lag([['orders', 0, 42, 900]]))
    expect(store.get('orders/0')).toMatchObject({ offsetLag: 42, timeLagMs: 900 })
    expect(store.get('orders/1')).toBe(untouched)
  })

  it('ignores events of other mirrors', () => {
    const { store, changes, flush } = storeWithFrames()
    store.replaceAll([partition('orders', 0)])
    flush()
    changes.length = 0
    store.applyLag(lag([['orders', 0, 42, 900]], 'other'))
    store.applyTransition({ ...transition('orders', 0, 'PAUSED', 4), mirror: 'other' })
    flush()
    expect(store.get('orders/0')?.offsetLag).toBe(0)
    expect(changes).toEqual([])
  })

  it('applies a newer transition and drops an older one', () => {
    const { store } = storeWithFrames()
    store.replaceAll([partition('orders', 0, { stateEpoch: 5 })])
    store.applyTransition(transition('orders', 0, 'PAUSED', 4))
    expect(store.get('orders/0')?.state).toBe('MIRRORING')
    store.applyTransition(transition('orders', 0, 'PAUSING', 6))
    expect(store.get('orders/0')).toMatchObject({ state: 'PAUSING', previousState: 'MIRRORING', stateEpoch: 6, stateSince: 20_000 })
  })

  it('tells subscribers once per frame, with every kind of change since the last', () => {
    const { store, changes, flush } = storeWithFrames()
    store.replaceAll([partition('orders', 0), partition('orders', 1)])
    flush()
    changes.length = 0
    store.applyLag(lag([['orders', 0, 1, 1]]))
    store.applyLag(lag([['orders', 1, 2, 2]]))
    store.applyTransition(transition('orders', 1, 'PAUSING', 4))
    expect(changes).toEqual([])
    flush()
    expect(changes).toHaveLength(1)
    expect(changes[0]!.membership).toBe(false)
    expect([...changes[0]!.kinds].sort()).toEqual(['lag', 'state'])
  })

  it('says nothing when a lag event repeats the values it holds', () => {
    const { store, changes, flush } = storeWithFrames()
    store.replaceAll([partition('orders', 0, { offsetLag: 7, timeLagMs: 70 })])
    flush()
    changes.length = 0
    store.applyLag(lag([['orders', 0, 7, 70]]))
    flush()
    expect(changes).toEqual([])
  })

  it('replays events that arrived during a refetch over its older answer', () => {
    const { store } = storeWithFrames()
    store.replaceAll([partition('orders', 0)])
    store.beginRefetch()
    store.applyLag(lag([['orders', 0, 99, 500]]))
    store.applyTransition(transition('orders', 0, 'PAUSING', 4))
    store.replaceAll([partition('orders', 0, { offsetLag: 3 })])
    expect(store.get('orders/0')).toMatchObject({ offsetLag: 99, state: 'PAUSING' })
  })

  it('reports membership changes from a refetch and notices partitions it does not hold', () => {
    const { store, changes, flush } = storeWithFrames()
    store.replaceAll([partition('orders', 0)])
    flush()
    store.applyLag(lag([['refunds', 0, 1, 1]]))
    expect(store.takeUnknownSeen()).toBe(true)
    expect(store.takeUnknownSeen()).toBe(false)
    changes.length = 0
    store.replaceAll([partition('orders', 0), partition('refunds', 0)])
    flush()
    expect(changes[0]!.membership).toBe(true)
    expect(store.size).toBe(2)
  })

  it('sums lag per topic for the chart over every partition with lag, lower bounds of paused ones included, STOPPED ones left out', () => {
    const { store } = storeWithFrames()
    store.replaceAll([
      partition('orders', 0, { offsetLag: 5, timeLagMs: 100 }),
      partition('orders', 1, { offsetLag: 7, timeLagMs: 300 }),
      partition('orders', 2, { state: 'PAUSED', offsetLag: 1_000, timeLagMs: 9_000, lagKnown: false, lagAsOf: 1_000, timeLagFrom: 1_000 }),
      partition('orders', 3, { state: 'STOPPED', offsetLag: null, timeLagMs: null }),
      partition('clicks', 0, { offsetLag: 0, timeLagMs: null }),
    ])
    const samples: Array<[number, unknown]> = []
    store.subscribeLag((at, sample) => samples.push([at, Object.fromEntries(sample)]))
    store.applyLag(lag([['clicks', 0, 2, null]], 'dr', 12_000))
    // The paused partition's time lag is a lower bound still growing: 12 s − 1 s.
    expect(samples).toEqual([[12_000, { orders: { offsetLag: 1_012, timeLagMs: 11_000 }, clicks: { offsetLag: 2, timeLagMs: null } }]])
  })
})

describe('a preview of the first screen', () => {
  it('is shown apart from the store: its figures and live lag sums wait for the whole list', () => {
    const preview = { partitions: [partition('a', 0, { offsetLag: 5 })], total: 2, partitionsByState: { MIRRORING: 2 } }
    const frames: Array<() => void> = []
    const store = new MirrorPartitionStore('dr', (callback) => frames.push(callback), preview)
    const samples: number[] = []
    store.subscribeLag((at) => samples.push(at))
    expect(store.preview).toBe(preview)
    expect(store.isLoaded).toBe(false)
    expect([...store.values()]).toEqual([])
    store.applyLag(lag([['a', 0, 7, 10]], 'dr', 1))
    expect(samples).toEqual([])

    store.replaceAll([partition('a', 0), partition('a', 1)])
    store.applyLag(lag([['a', 1, 3, 10]], 'dr', 2))
    expect(store.isLoaded).toBe(true)
    expect(samples).toEqual([2])
    expect(store.topicLag().get('a')?.offsetLag).toBe(3)
  })
})

describe('readLagEvent: a mirror’s lag event as its schema reads it, without the schema', () => {
  const entry = (patch: Record<string, unknown> = {}) => ({ topic: 'orders', partition: 0, offsetLag: 4, timeLagMs: 120, ...patch })
  const event = (patch: Record<string, unknown> = {}) => ({ mirror: 'dr', at: 5_000, partitions: [entry(), entry({ partition: 1, offsetLag: null, timeLagMs: null, lagKnown: false, lagAsOf: 4_000, timeLagFrom: null })], ...patch })
  // What the server sends (server/engine/types.ts): the mirror's totals around the partitions.
  const envelope = { type: 'lag', sampledPartitions: 2, maxOffsetLag: 4, totalOffsetLag: 4, maxTimeLagMs: 120, lagKnown: true, lagAsOf: 4_900 }

  it('keeps the server’s list of partitions as it is, and leaves another mirror’s event alone', () => {
    const body = event(envelope)
    const read = readLagEvent(body, 'dr')
    expect(read).toEqual({ mirror: 'dr', at: 5_000, partitions: body.partitions })
    expect(read?.partitions).toBe(body.partitions)
    expect(readLagEvent(body, 'other')).toBeUndefined()
  })

  it('gives the schema’s verdict and value for fields of the wrong kind, unknown fields and broken envelopes', () => {
    const bodies: unknown[] = [
      null,
      [],
      'dr',
      event(),
      event(envelope),
      event({ at: '5000' }),
      event({ at: null }),
      event({ partitions: {} }),
      event({ partitions: [] }),
      event({ partitions: [null] }),
      event({ partitions: [[]] }),
      event({ extra: true }),
      event({ partitions: [entry({ partition: 1.5 })] }),
      event({ partitions: [entry({ partition: 2 ** 53 })] }),
      event({ partitions: [entry({ offsetLag: '4' })] }),
      event({ partitions: [entry({ lagKnown: true })] }),
      event({ partitions: [entry({ lagAsOf: 'then' })] }),
      event({ partitions: [entry({ extra: 1 })] }),
      event({ partitions: [entry(), entry({ partition: 1, extra: 1 }), entry({ partition: 2 })] }),
      event({ partitions: [entry({ topic: 3 })] }),
      event({ partitions: [entry({ timeLagMs: undefined })] }),
    ]
    for (const body of bodies) {
      const schema = LagEvent.safeParse(body)
      expect(readLagEvent(body, 'dr'), JSON.stringify(body)).toStrictEqual(schema.success ? schema.data : undefined)
    }
  })
})

describe('readPartitionEvent: a mirror’s transition as its schema reads it, without the schema', () => {
  const transition = (patch: Record<string, unknown> = {}) => ({ mirror: 'dr', topic: 'orders', partition: 3, from: 'MIRRORING', to: 'FAILED', at: 7_000, stateEpoch: 4, ...patch })

  it('reads the server’s event (type, reason, stateDurable left out) and leaves another mirror’s alone', () => {
    const body = transition({ type: 'partition', reason: 'fetch failed', stateDurable: false, error: 'boom', failureCode: null, retryAttempt: 2, nextRetryAt: 9_000 })
    expect(readPartitionEvent(body, 'dr')).toStrictEqual({ mirror: 'dr', topic: 'orders', partition: 3, from: 'MIRRORING', to: 'FAILED', at: 7_000, stateEpoch: 4, error: 'boom', failureCode: null, retryAttempt: 2, nextRetryAt: 9_000 })
    expect(readPartitionEvent(body, 'other')).toBeUndefined()
  })

  it('gives the schema’s verdict and value', () => {
    const bodies: unknown[] = [
      null,
      'dr',
      transition(),
      transition({ type: 'partition', reason: 'x' }),
      transition({ from: 'NOPE' }),
      transition({ to: undefined }),
      transition({ partition: '3' }),
      transition({ partition: -1 }),
      transition({ stateEpoch: 1.5 }),
      transition({ at: '7000' }),
      transition({ topic: null }),
      transition({ error: null, failureCode: null, nextRetryAt: null }),
      transition({ error: 3 }),
      transition({ failureCode: 'NOT_A_CODE' }),
      transition({ retryAttempt: 0.5 }),
      transition({ retryAttempt: null }),
      transition({ nextRetryAt: 'soon' }),
    ]
    for (const body of bodies) {
      const schema = PartitionEvent.safeParse(body)
      expect(readPartitionEvent(body, 'dr'), JSON.stringify(body)).toStrictEqual(schema.success ? schema.data : undefined)
    }
  })
})
