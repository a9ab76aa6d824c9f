import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from '@/lib/mirror/transition'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { changePartition, PartitionChanges } from '../state/partition-changes'
import { newPartitionRuntime } from '../state/partition-runtime'
import type { PartitionRuntime } from '../types'
import { OperationStore, type SharedOperations, type StoredOperation } from './operation-store'
import { OperationTracker } from './operation-tracker'

/**
 * Operations handed over with their mirror between instances (issue #40): two trackers, each over its own data
 * directory and a fake engine of its own, sharing one set of operation records (the port the control cluster's
 * topic implements in server/ha/shared-operations.ts; here a map, as the topic's latest record per key). The
 * SIGKILL across real processes and brokers is server/ha/ha-failover-handover.integration.test.ts.
 */

const PLAN = { mirror: 'dr', canProceed: true, gates: [], partitions: [] }
const REQUESTER = { actor: 'token:operator', role: 'operator' as const }

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The latest record per id, as every instance reads it. */
class SharedRecords implements SharedOperations {
  readonly records = new Map<string, StoredOperation>()
  readonly writes: Array<[string, StoredOperation['status']]> = []
  async save(record: StoredOperation): Promise<void> {
    this.records.set(record.id, structuredClone(record))
    this.writes.push([record.id, record.status])
  }
  async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.records.delete(id)
  }
  async ofMirror(mirror: string): Promise<StoredOperation[]> {
    return this.all().filter((record) => record.mirror === mirror)
  }
  find(id: string): StoredOperation | null {
    return this.records.get(id) ?? null
  }
  all(): StoredOperation[] {
    return [...this.records.values()]
  }
}

function value(state: MirrorPartitionState, patch: Partial<MirrorPartitionValue> = {}): MirrorPartitionValue {
  return withChanges(createMirrorPartition(0), { state, stateEpoch: 4, previousState: 'MIRRORING', ...patch })
}

/** One instance: its partitions of mirror `dr` (as its engine holds them), the stops it sends, its tracker. */
class Instance {
  clock = 1_000
  readonly partitions = new Map<number, PartitionRuntime>()
  readonly stopped: number[][] = []
  gate: Promise<void> | null = null
  tracker!: OperationTracker

  static async open(shared: SharedOperations | undefined, dir = mkdtempSync(path.join(tmpdir(), 'operation-handover-'))): Promise<Instance> {
    dirs.push(dir)
    const instance = new Instance()
    instance.tracker = new OperationTracker(await OperationStore.open(dir, { shared }), {
      now: () => instance.clock,
      log: () => {},
      emit: () => {},
      partition: (mirror, topic, partition) => (mirror === 'dr' && topic === 'orders' ? instance.partitions.get(partition) : undefined),
      send: async (_kind, _mirror, runtimes, onEach) => {
        instance.stopped.push(runtimes.map((r) => r.partition))
        await instance.gate
        for (const r of runtimes) {
          changePartition(r, { value: value('STOPPED', { stateSince: instance.clock, previousState: 'STOPPING', stateEpoch: 9 }) })
          onEach(r)
        }
      },
    })
    return instance
  }

  hold(partition: number, partitionValue: MirrorPartitionValue): PartitionRuntime {
    const runtime = newPartitionRuntime(new PartitionChanges(), { mirror: 'dr', topic: 'orders', topicId: 'topic-id', partition }, partitionValue)
    this.partitions.set(partition, runtime)
    return runtime
  }
}

describe('operations handed over with their mirror', () => {
  it('are resumed by the instance that adopts the mirror, from the shared record, as a restart resumes them', async () => {
    const shared = new SharedRecords()
    const owner = await Instance.open(shared)
    owner.gate = new Promise<void>(() => {})
    const runtimes = [owner.hold(0, value('MIRRORING')), owner.hold(1, value('MIRRORING'))]
    const { id } = await owner.tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: REQUESTER, runtimes })
    // Durable where every instance reads it before the 202.
    expect(shared.find(id)).toMatchObject({ status: 'running', mirror: 'dr', partitions: [{ acceptedStateEpoch: 4 }, { acceptedStateEpoch: 4 }] })
    // The owner dies mid-drive. As the destination's state shows it: partition 0 got the stop (STOPPING, a new
    // stateEpoch, going on by its own restore), partition 1 never did.
    const adopter = await Instance.open(shared)
    expect(() => adopter.tracker.get(id)).not.toThrow()
    expect(adopter.tracker.holds(id)).toBe(false)
    adopter.clock = 5_000
    const stopping = adopter.hold(0, value('STOPPING', { stateEpoch: 5, stopping: { step: 'abortTransactions', lastMirrorPosition: { epoch: 0, offset: 3 } } }))
    adopter.hold(1, value('MIRRORING'))
    const stops = await adopter.tracker.adopt('dr')
    // Only the partition the stop never reached gets it again; the STOPPING one is left to its restore.
    expect([...stops].map((r) => r.partition)).toEqual([1])
    await vi.waitFor(() => expect(adopter.stopped).toEqual([[1]]))
    expect(adopter.tracker.holds(id)).toBe(true)
    expect(adopter.tracker.get(id)).toMatchObject({ status: 'running', resumedAt: [5_000] })
    changePartition(stopping, { value: value('STOPPED', { stateSince: 6_000, previousState: 'STOPPING', stateEpoch: 6 }) })
    adopter.tracker.onPartitionTransition('dr', 'orders', 0)
    const finished = await adopter.tracker.awaitOperation(id)
    expect(finished).toMatchObject({ status: 'succeeded', finishedAt: 6_000, resumedAt: [5_000] })
    expect(shared.find(id)).toMatchObject({ status: 'succeeded', resumedAt: [5_000] })
    // A second adoption of the same mirror resumes nothing twice.
    expect((await adopter.tracker.adopt('dr')).size).toBe(0)
    expect(adopter.stopped).toEqual([[1]])
    // The dead owner never wrote again; the record went accepted → resumed → finished.
    expect(shared.writes).toEqual([
      [id, 'running'],
      [id, 'running'],
      [id, 'succeeded'],
    ])
  })

  it('stop being driven, written or finished by an instance that releases the mirror; reads go to the shared record', async () => {
    const shared = new SharedRecords()
    const owner = await Instance.open(shared)
    let release = () => {}
    owner.gate = new Promise<void>((resolve) => (release = resolve))
    const runtimes = [owner.hold(0, value('MIRRORING'))]
    const { id } = await owner.tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: REQUESTER, runtimes })
    owner.tracker.release('dr')
    owner.partitions.clear()
    release()
    await owner.tracker.close()
    expect(shared.writes).toEqual([[id, 'running']])
    expect(owner.tracker.holds(id)).toBe(false)
    expect(owner.tracker.get(id)).toMatchObject({ id, status: 'running' })
    expect(owner.tracker.running('dr')).toBeNull()
  })

  it('left unfinished by a restart while another instance runs the mirror: not finished as failed, resumed if the mirror comes back', async () => {
    const owner = await Instance.open(undefined)
    owner.gate = new Promise<void>(() => {})
    const { id } = await owner.tracker.accept({ kind: 'failover', mirror: 'dr', plan: PLAN, requestedBy: REQUESTER, runtimes: [owner.hold(0, value('MIRRORING'))] })
    // Restarted, the instance does not run the mirror (the group gave it to another): the operation is left alone.
    const dir = dirs[0]!
    const restarted = await Instance.open(undefined, dir)
    expect(restarted.tracker.recover((mirror) => mirror === 'dr').size).toBe(0)
    expect(() => restarted.tracker.get(id)).toThrow(/not found/)
    expect((await OperationStore.open(dir)).loaded.map((record) => record.status)).toEqual(['running'])
    // Assigned the mirror again, it resumes it.
    restarted.hold(0, value('MIRRORING'))
    expect([...(await restarted.tracker.adopt('dr'))].map((r) => r.partition)).toEqual([0])
    expect(await restarted.tracker.awaitOperation(id)).toMatchObject({ status: 'succeeded', resumedAt: [1_000] })
  })
})
