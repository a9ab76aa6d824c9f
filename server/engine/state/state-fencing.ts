import 'server-only'
import type { MirrorPartitionValue } from '@/lib/mirror/partition'
import { adoptStoredState, type AdoptionResult } from '@/lib/mirror/adoption'
import { isFailureCode, type FailureCode } from '@/lib/mirror/failure-code'
import { isMirrorPartitionState } from '@/lib/mirror/states'
import type { MirrorHost } from '@/server/cluster/ports'
import { changePartition } from './partition-changes'
import type { MirrorStateStore, StateRecordWrite } from './state-store'
import type { MirrorDefinition, PartitionRuntime } from '../types'

/**
 * The engine's side of `__mirror_state` fencing (KIP-1279.md §5.3, checklist #3): each partition-state write
 * names the stateEpoch it was decided from and the destination leader epoch the engine acts under; when the
 * log refuses it (another writer got there first, or a write the engine believed lost did land), the engine
 * re-reads the stored state, which is authoritative, and the destination's leader epoch, decides the event
 * again from there and writes once more. A second refusal gives up until the next tick.
 */

/** The partition record of `value` (and its failure code), fenced on what the runtime holds now (before the write). */
export function partitionStateWrite(mirror: MirrorDefinition, runtime: PartitionRuntime, value: MirrorPartitionValue, failureCode: FailureCode | null): StateRecordWrite {
  return {
    key: { kind: 'partition', mirror: mirror.name, topicId: runtime.topicId, partition: runtime.partition },
    value: { topic: runtime.topic, partition: runtime.partition, ...value, leaderEpoch: runtime.destinationLeaderEpoch, ...(failureCode === null ? {} : { failureCode }) },
    fence: { expectedStateEpoch: runtime.value.stateEpoch, leaderEpoch: runtime.destinationLeaderEpoch },
  }
}

/** A stored partition record split into the state machine's value and the writer epoch it was written under. */
export interface RestoredPartition {
  topic: string
  partition: number
  value: MirrorPartitionValue
  /** The leader epoch of the record's writer; -1 when the record has none (written before fencing). */
  writerLeaderEpoch: number
  /** Why it failed, when the record names it (records written before failure codes do not). */
  failureCode: FailureCode | null
}

/** Null for a value that is not a partition record this version can resume. */
export function restoredPartition(stored: unknown): RestoredPartition | null {
  if (typeof stored !== 'object' || stored === null) return null
  const { topic, partition, leaderEpoch, failureCode, ...value } = stored as MirrorPartitionValue & { topic: unknown; partition: unknown; leaderEpoch?: unknown; failureCode?: unknown }
  if (typeof topic !== 'string' || !Number.isSafeInteger(partition) || !isMirrorPartitionState(value.state) || !Number.isSafeInteger(value.stateEpoch)) return null
  return {
    topic,
    partition: partition as number,
    value,
    writerLeaderEpoch: Number.isSafeInteger(leaderEpoch) ? (leaderEpoch as number) : -1,
    failureCode: value.error !== null && isFailureCode(failureCode) ? failureCode : null,
  }
}

/**
 * After a refused write: the stored record is read back and named as adopted (lib/mirror/adoption.ts), and the
 * runtime's leader epoch becomes the destination's current one (never the stored writer's: a writer that adopted
 * the epoch it was fenced by would never be fenced). Null when the store holds no record this version can resume;
 * the caller applies the adoption (a transition when the state moved) so it shows in the partition's history.
 */
export async function reReadFencedPartition(store: MirrorStateStore, host: MirrorHost, mirror: MirrorDefinition, runtime: PartitionRuntime): Promise<FencedReRead | null> {
  const stored = restoredPartition(await store.read({ kind: 'partition', mirror: mirror.name, topicId: runtime.topicId, partition: runtime.partition }))
  const description = await host.describePartition({ topic: runtime.topic, partition: runtime.partition })
  changePartition(runtime, { destinationLeaderEpoch: Math.max(runtime.destinationLeaderEpoch, description.leaderEpoch) })
  if (!stored) return null
  return { adoption: adoptStoredState(runtime.value, stored.value), failureCode: stored.failureCode }
}

export interface FencedReRead {
  adoption: AdoptionResult
  failureCode: FailureCode | null
}
