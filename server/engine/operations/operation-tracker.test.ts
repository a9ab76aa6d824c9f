import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { OperationChange } from '@/lib/api/operations'
import { NON_RETRYABLE_ATTEMPT } from '@/lib/mirror/constants'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from '@/lib/mirror/transition'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { changePartition, PartitionChanges } from '../state/partition-changes'
import { newPartitionRuntime } from '../state/partition-runtime'
import type { PartitionRuntime } from '../types'
import { OperationStore, STORED_OPERATION_VERSION, type RetentionPolicy, type StoredOperation } from './operation-store'
import { OperationTracker } from './operation-tracker'

/**
 * The tracker over a fake engine (partitions whose state the test sets, a stop the test decides) and a real
 * store: what it writes, when it finishes, and what it rebuilds after a restart.
 */

const PLAN = { mirror: 'dr', canProceed: true, gates: [], partitions: [] }
const REQUESTER = { actor: 'token:operator', role: 'operator' as const }

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'operation-tracker-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function value(state: MirrorPartitionState, patch: Partial<MirrorPartitionValue> = {}): MirrorPartitionValue {
  return withChanges(createMirrorPartition(0), { state, stateEpoch: 4, previousState: 'MIRRORING', ...patch })
}

function runtime(partition: number, partitionValue: MirrorPartitionValue): PartitionRuntime {
  return newPartitionRuntime(new PartitionChanges(), { mirror: 'dr', topic: 'orders', topicId: 'topic-id', partition }, partitionValue)
}

/** The engine as the tracker sees it. `stopWith` says what a partition becomes when it gets the stop. */
class FakeEngine {
  clock = 1_000
  readonly partitions = new Map<number, PartitionRuntime>()
  readonly events: Array<[string, OperationChange]> = []
  readonly stopped: number[][] = []
  stopWith: (runtime: PartitionRuntime) => MirrorPartitionValue = () => value('STOPPED', { stateSince: this.clock, previousState: 'STOPPING', stateEpoch: 9 })
  /** When set, the stop waits for it (an operation caught mid-drive). */
  gate: Promise<void> | null = null

  add(...runtimes: PartitionRuntime[]): PartitionRuntime[] {
    for (const r of runtimes) this.partitions.set(r.partition, r)
    return runtimes
  }

  async tracker(options: { retention?: RetentionPolicy; store?: OperationStore } = {}): Promise<OperationTracker> {
    return new OperationTracker(
      options.store ?? (await OperationStore.open(dir)),
      {
        now: () => this.clock,
        log: () => {},
        emit: (operation, change) => this.events.push([operation.id, change]),
        partition: (mirror, topic, partition) => (mirror === 'dr' && topic === 'orders' ? this.partitions.get(partition) : undefined),
        send: async (_kind, _mirror, runtimes, onEach) => {
          this.stopped.push(runtimes.map((r) => r.partition))
          await this.gate
          for (const r of runtimes) {
            changePartition(r, { value: this.stopWith(r) })
            onEach(r)
          }
        },
      },
      options,
    )
  }
}

async function stored(): Promise<readonly StoredOperation[]> {
  return (await OperationStore.open(dir)).loaded
}

describe('OperationTracker', () => {
  it('has the operation on disk, running, with plan, partitions, requester and time, when accept resolves', async () => {
    const engine = new FakeEngine()
    let release = () => {}
    engine.gate = new Promise<void>((resolve) => (release = resolve))
    const tracker = await engine.tracker()
    const runtimes = engine.add(runtime(0, value('MIRRORING')), runtime(1, value('PAUSED', { stateEpoch: 6 })))
    const operation = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: REQUESTER, runtimes })
    expect(await stored()).toEqual([
      expect.objectContaining({
        id: operation.id,
        status: 'running',
        startedAt: 1_000,
        requestedBy: REQUESTER,
        plan: PLAN,
        partitions: [
          { topic: 'orders', partition: 0, acceptedStateEpoch: 4, step: null, state: 'MIRRORING', error: null, finishedAt: null },
          { topic: 'orders', partition: 1, acceptedStateEpoch: 6, step: null, state: 'PAUSED', error: null, finishedAt: null },
        ],
      }),
    ])
    expect(tracker.get(operation.id).status).toBe('running')
    release()
    await tracker.awaitOperation(operation.id)
    await tracker.close()
  })

  it('tells the stream it finished once the outcome is known, and those awaiting it once the outcome is written', async () => {
    const engine = new FakeEngine()
    const store = await OperationStore.open(dir)
    // The write of the outcome waits, as it does behind the file writes of 10,000 stopping partitions.
    let releaseWrite = () => {}
    const held = new Promise<void>((resolve) => (releaseWrite = resolve))
    const save = store.save.bind(store)
    store.save = (record) => (record.status === 'running' ? save(record) : held.then(() => save(record)))
    const tracker = await engine.tracker({ store })
    const runtimes = engine.add(runtime(0, value('MIRRORING')), runtime(1, value('MIRRORING')))
    const { id } = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes })
    let awaited = false
    const awaiting = tracker.awaitOperation(id).then(() => (awaited = true))
    await vi.waitFor(() => expect(engine.events.map(([, change]) => change)).toEqual(['accepted', 'progress', 'finished']))
    expect(tracker.get(id)).toMatchObject({ status: 'succeeded' })
    expect((await stored())[0]).toMatchObject({ status: 'running' })
    expect(awaited).toBe(false)
    releaseWrite()
    await awaiting
    expect((await stored())[0]).toMatchObject({ status: 'succeeded' })
    await tracker.close()
  })

  it('finishes when the last partition settles, at the time it did, and writes the outcome', async () => {
    const engine = new FakeEngine()
    const tracker = await engine.tracker()
    let since = 1_010
    engine.stopWith = () => value('STOPPED', { stateSince: (since += 10), previousState: 'STOPPING', stateEpoch: 9 })
    const runtimes = engine.add(runtime(0, value('MIRRORING')), runtime(1, value('MIRRORING')))
    const { id } = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes })
    engine.clock = 5_000
    const finished = await tracker.awaitOperation(id)
    expect(finished).toMatchObject({ status: 'succeeded', startedAt: 1_000, finishedAt: 1_030 })
    expect(finished.partitions.map((p) => [p.state, p.step, p.finishedAt])).toEqual([
      ['STOPPED', null, 1_020],
      ['STOPPED', null, 1_030],
    ])
    expect((await stored())[0]).toMatchObject({ status: 'succeeded', finishedAt: 1_030 })
    expect(engine.events.map(([, change]) => change)).toEqual(['accepted', 'progress', 'finished'])
    // Frozen: a partition that moves on later does not rewrite the failover's outcome.
    changePartition(runtimes[0]!, { value: value('PREPARING', { stateEpoch: 12 }) })
    expect(tracker.get(id).partitions[0]!.state).toBe('STOPPED')
  })

  it('keeps running while a partition retries its stop, and finishes on the transition that stops it', async () => {
    const engine = new FakeEngine()
    const tracker = await engine.tracker()
    engine.stopWith = (r) =>
      r.partition === 0 ? value('FAILED', { previousState: 'STOPPING', retryAttempt: 1, stateEpoch: 6, error: 'bumpLeaderEpoch: broker down' }) : value('STOPPED', { stateSince: 1_000, stateEpoch: 9 })
    const runtimes = engine.add(runtime(0, value('MIRRORING')), runtime(1, value('MIRRORING')))
    const { id } = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes })
    expect(await tracker.awaitOperation(id)).toMatchObject({ status: 'running', finishedAt: null })
    expect(tracker.get(id).partitions[0]).toMatchObject({ state: 'FAILED', error: 'bumpLeaderEpoch: broker down', finishedAt: null })
    expect(tracker.runningOn('dr', 'orders')).toEqual([id])

    changePartition(runtimes[0]!, { value: value('STOPPED', { stateSince: 2_000, stateEpoch: 8 }) })
    tracker.onPartitionTransition('dr', 'orders', 0)
    expect(await tracker.awaitOperation(id)).toMatchObject({ status: 'succeeded', finishedAt: 2_000 })
    expect(tracker.runningOn('dr', 'orders')).toEqual([])
  })

  it('fails when a retried stop fails for good, which the next check sees without a transition', async () => {
    const engine = new FakeEngine()
    const tracker = await engine.tracker()
    engine.stopWith = () => value('FAILED', { previousState: 'STOPPING', retryAttempt: 1, stateEpoch: 6, stateSince: 1_500 })
    const runtimes = engine.add(runtime(0, value('MIRRORING')))
    const { id } = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes })
    await tracker.awaitOperation(id)
    changePartition(runtimes[0]!, { value: { ...runtimes[0]!.value, retryAttempt: NON_RETRYABLE_ATTEMPT, error: 'KAFKA_STORAGE_ERROR: disk' } })
    tracker.checkUnsettled()
    expect(await tracker.awaitOperation(id)).toMatchObject({ status: 'failed', finishedAt: 1_500, partitions: [{ state: 'FAILED', error: 'KAFKA_STORAGE_ERROR: disk' }] })
  })

  it('reports a partition the stop was not applied to as failed, without waiting for it', async () => {
    const engine = new FakeEngine()
    const tracker = await engine.tracker()
    engine.stopWith = (r) => r.value
    const runtimes = engine.add(runtime(0, value('UNKNOWN', { stateSince: 10 })))
    const { id } = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes })
    expect(await tracker.awaitOperation(id)).toMatchObject({ status: 'failed', finishedAt: 1_000, partitions: [{ state: 'UNKNOWN', error: 'the stop was not applied in state UNKNOWN', finishedAt: 1_000 }] })
  })

  it('after a restart, sends the stop again only to partitions still before it, and says it resumed', async () => {
    const engine = new FakeEngine()
    const entry = (partition: number, acceptedStateEpoch: number, state: MirrorPartitionState) => ({ topic: 'orders', partition, acceptedStateEpoch, step: null, state, error: null, finishedAt: null })
    const store = await OperationStore.open(dir)
    await store.save({
      version: STORED_OPERATION_VERSION,
      sequence: 3,
      id: 'interrupted',
      kind: 'failover',
      mirror: 'dr',
      status: 'running',
      startedAt: 900,
      finishedAt: null,
      requestedBy: REQUESTER,
      resumedAt: [950],
      plan: PLAN,
      partitions: [entry(0, 4, 'MIRRORING'), entry(1, 4, 'MIRRORING'), entry(2, 4, 'MIRRORING'), entry(3, 4, 'FAILED'), entry(4, 4, 'FAILED'), entry(5, 4, 'PAUSED')],
    })
    const untouched = runtime(0, value('MIRRORING'))
    const stopping = runtime(1, value('STOPPING', { stateEpoch: 5, stopping: { step: 'bumpEpoch', lastMirrorPosition: { epoch: 1, offset: 3 } } }))
    const stopped = runtime(2, value('STOPPED', { stateEpoch: 9, stateSince: 940 }))
    const retrying = runtime(3, value('FAILED', { previousState: 'STOPPING', retryAttempt: 2, stateEpoch: 8 }))
    const failedBefore = runtime(4, value('FAILED', { previousState: 'STOPPING', retryAttempt: NON_RETRYABLE_ATTEMPT, stateEpoch: 4 }))
    const movedButNotStopped = runtime(5, value('MIRRORING', { stateEpoch: 6 }))
    engine.add(untouched, stopping, stopped, retrying, failedBefore, movedButNotStopped)
    let release = () => {}
    engine.gate = new Promise<void>((resolve) => (release = resolve))
    const tracker = await engine.tracker()

    const toStop = tracker.recover()
    expect([...toStop].map((r) => r.partition)).toEqual([0, 4, 5])
    expect(tracker.list({ status: 'running' }).map((operation) => [operation.id, operation.resumedAt])).toEqual([['interrupted', [950, 1_000]]])
    expect(engine.events).toEqual([['interrupted', 'resumed']])
    expect(tracker.get('interrupted').partitions[1]).toMatchObject({ state: 'STOPPING', step: 'bumpEpoch' })
    release()
    await tracker.awaitOperation('interrupted')
    expect(engine.stopped).toEqual([[0, 4, 5]])
    expect((await stored())[0]!.resumedAt).toEqual([950, 1_000])
    await tracker.close()
  })

  it('brings a finished operation back as it was written, whatever its partitions did since', async () => {
    const engine = new FakeEngine()
    const first = await engine.tracker()
    const runtimes = engine.add(runtime(0, value('MIRRORING')))
    const { id } = await first.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: REQUESTER, runtimes })
    const before = structuredClone(await first.awaitOperation(id))
    await first.close()
    changePartition(runtimes[0]!, { value: value('MIRRORING', { stateEpoch: 20 }) })
    const restarted = await engine.tracker()
    expect(restarted.recover().size).toBe(0)
    expect(restarted.get(id)).toEqual(before)
    expect(engine.stopped).toHaveLength(1)
  })

  it('refuses a second operation over a partition a running one holds, naming it; other partitions are free', async () => {
    const engine = new FakeEngine()
    let release = () => {}
    engine.gate = new Promise<void>((resolve) => (release = resolve))
    const tracker = await engine.tracker()
    const [held, free] = engine.add(runtime(0, value('MIRRORING')), runtime(1, value('MIRRORING')))
    const first = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes: [held!] })
    await expect(tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes: [free!, held!] })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `failover ${first.id} of mirror dr is still running; follow it instead of starting another`,
      details: { operation: first.id },
    })
    expect(() => tracker.refuseIfRunning('dr')).toThrow(expect.objectContaining({ code: 'CONFLICT', details: { operation: first.id } }))
    expect(tracker.running('dr', ['payments'])).toBeNull()
    expect(tracker.list()).toHaveLength(1)
    const second = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes: [free!] })
    release()
    await tracker.awaitOperation(first.id)
    await tracker.awaitOperation(second.id)
    expect(tracker.running('dr')).toBeNull()
    await tracker.close()
  })

  it('lists newest first, by mirror and status, and lets history past its retention go, from disk too', async () => {
    const engine = new FakeEngine()
    const tracker = await engine.tracker({ retention: { keepLatest: 3, keepForMs: 0, maxOperations: 3 } })
    const ids: string[] = []
    for (let n = 0; n < 4; n++) {
      engine.stopWith = () => (n === 1 ? value('FAILED', { previousState: 'STOPPING', retryAttempt: NON_RETRYABLE_ATTEMPT }) : value('STOPPED', { stateEpoch: 9 }))
      const runtimes = engine.add(runtime(n, value('MIRRORING')))
      const { id } = await tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: null, runtimes })
      await tracker.awaitOperation(id)
      ids.push(id)
    }
    expect(tracker.list().map((operation) => operation.id)).toEqual([ids[3], ids[2], ids[1]])
    expect(tracker.list({ status: 'failed' }).map((operation) => operation.id)).toEqual([ids[1]])
    expect(tracker.list({ status: 'succeeded', limit: 1 }).map((operation) => operation.id)).toEqual([ids[3]])
    expect(tracker.list({ mirror: 'other' })).toEqual([])
    expect(() => tracker.get(ids[0]!)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }))
    await tracker.close()
    expect((await stored()).map((operation) => operation.id)).toEqual([ids[1], ids[2], ids[3]])
  })
})
