import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import { encodeKey } from '@/lib/mirror/mirror-state-records'
import type { MirrorHost } from '@/server/cluster/ports'
import { changePartition } from '../state/partition-changes'
import type { MirrorStateStore } from '../state/state-store'
import { restoredPartition } from '../state/state-fencing'
import type { MirrorDefinition, PartitionRuntime } from '../types'

/**
 * Destination leadership changes of mirror partitions (KIP-1279.md §5.4, §5.5: brokers react to
 * `LocalReplicaChanges.leaders()`). A partition whose destination leader moved is taken up as a new leader
 * takes it up: its state is read again from `__mirror_state` (the stored record is authoritative), its
 * leader epoch is the new leader's, and an epoch bump still pending (a FAILED EPOCH_FENCING waiting for its
 * retry) that the new epoch already satisfies is not waited for: the partition goes back to work now, and
 * the bump itself is skipped (PartitionRunner's bumpLeaderEpoch effect asks for nothing already reached).
 */

/** Metadata is read at most this often per mirror: a describe of every destination partition is not free. */
export const LEADERSHIP_CHECK_INTERVAL_MS = 1_000

export interface LeadershipWatchEnvironment {
  now(): number
  host(mirror: MirrorDefinition): MirrorHost
  store(mirror: MirrorDefinition): MirrorStateStore
  partitions(mirror: MirrorDefinition): Iterable<PartitionRuntime>
  /** Runs `work` with the partition's lock held. */
  withLock(runtime: PartitionRuntime, work: () => Promise<void>): Promise<void>
  dispatch(mirror: MirrorDefinition, runtime: PartitionRuntime, event: MirrorEvent, reason: string): Promise<unknown>
  /** The destination did not answer: these MIRRORING partitions fail with retries, as a fetch round's would. */
  failUnreachable(mirror: MirrorDefinition, runtimes: PartitionRuntime[], error: unknown): Promise<void>
  /** The partition's stored state moved on: its effects run again from it at the next tick. */
  restoreAtNextTick(runtime: PartitionRuntime): void
  log(message: string, fields: Record<string, unknown>): void
}

export class LeadershipWatch {
  /** The destination leader each partition was last seen with; absent until first seen. */
  private readonly leaders = new WeakMap<PartitionRuntime, number>()
  private readonly checkedAt = new Map<string, number>()

  constructor(private readonly env: LeadershipWatchEnvironment) {}

  async check(mirror: MirrorDefinition): Promise<void> {
    const now = this.env.now()
    const last = this.checkedAt.get(mirror.name)
    if (last !== undefined && now - last < LEADERSHIP_CHECK_INTERVAL_MS) return
    this.checkedAt.set(mirror.name, now)
    const runtimes = [...this.env.partitions(mirror)]
    if (runtimes.length === 0) return
    const byTopic = new Map<string, Map<number, PartitionRuntime>>()
    for (const runtime of runtimes) {
      let partitions = byTopic.get(runtime.topic)
      if (!partitions) byTopic.set(runtime.topic, (partitions = new Map()))
      partitions.set(runtime.partition, runtime)
    }
    const moved: Array<{ runtime: PartitionRuntime; leader: number; leaderEpoch: number }> = []
    let described
    try {
      described = await this.env.host(mirror).describeTopics([...byTopic.keys()])
    } catch (error) {
      // The one look at the destination every mirror gets each second, data or not: a quiet mirror whose
      // destination went away (a Kafka broker down) must not go on showing MIRRORING.
      await this.env.failUnreachable(mirror, runtimes.filter((runtime) => runtime.value.state === 'MIRRORING'), error)
      throw error
    }
    for (const topic of described) {
      for (const description of topic.partitions) {
        const runtime = byTopic.get(topic.name)?.get(description.partition)
        if (!runtime || description.leader < 0) continue
        const previous = this.leaders.get(runtime)
        this.leaders.set(runtime, description.leader)
        if (previous !== undefined && previous !== description.leader) moved.push({ runtime, leader: description.leader, leaderEpoch: description.leaderEpoch })
      }
    }
    if (moved.length === 0) return
    // One read of the state log for every partition that moved, not one each.
    const stored = await this.env.store(mirror).replay()
    for (const { runtime, leader, leaderEpoch } of moved) {
      await this.env.withLock(runtime, () => this.takeUp(mirror, runtime, leader, leaderEpoch, stored))
    }
  }

  forget(mirrorName: string): void {
    this.checkedAt.delete(mirrorName)
  }

  private async takeUp(
    mirror: MirrorDefinition,
    runtime: PartitionRuntime,
    leader: number,
    leaderEpoch: number,
    stored: Map<string, { value: unknown }>,
  ): Promise<void> {
    changePartition(runtime, { destinationLeaderEpoch: Math.max(runtime.destinationLeaderEpoch, leaderEpoch) })
    const record = stored.get(encodeKey({ kind: 'partition', mirror: mirror.name, topicId: runtime.topicId, partition: runtime.partition }))
    const restored = record ? restoredPartition(record.value) : null
    // Our own FAILED not saved yet (PartitionRuntime.stateDurable) is ahead of the record, not behind another writer's.
    const ownUnsaved = restored !== null && !runtime.stateDurable && restored.value.stateEpoch < runtime.value.stateEpoch
    if (restored && !ownUnsaved && (restored.value.stateEpoch !== runtime.value.stateEpoch || restored.value.state !== runtime.value.state)) {
      // Another writer moved it on: resume from the stored state, as a restart would.
      changePartition(runtime, { value: restored.value, failureCode: restored.failureCode, needsRestore: true, stateDurable: true })
      this.env.restoreAtNextTick(runtime)
    }
    this.env.log('destination leader moved; partition re-evaluated', { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, leader, leaderEpoch, state: runtime.value.state })
    const { state, previousState, requestedLeaderEpoch, retryAttempt } = runtime.value
    const bumpPending = requestedLeaderEpoch !== null && (state === 'EPOCH_FENCING' || (state === 'FAILED' && previousState === 'EPOCH_FENCING'))
    if (!bumpPending || leaderEpoch < requestedLeaderEpoch) return
    if (state === 'EPOCH_FENCING') {
      await this.env.dispatch(mirror, runtime, { type: 'epochBumpCompleted', leaderEpoch }, `new destination leader ${leader} at epoch ${leaderEpoch} needs no bump`)
    } else if (retryAttempt >= 0) {
      // The retry would only ask for an epoch the new leader already has: it runs now, not after its backoff.
      changePartition(runtime, { retryAt: null })
      await this.env.dispatch(mirror, runtime, { type: 'retryDue', expectedStateEpoch: runtime.value.stateEpoch }, `new destination leader ${leader} at epoch ${leaderEpoch} needs no bump`)
    }
  }
}
