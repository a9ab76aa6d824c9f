import 'server-only'
import { readControlInfo, splitBatches } from '@/lib/log/record-batch'
import type { MirrorHost, SourceCluster, TopicPartition } from '../ports'

/**
 * What an implementation of the cluster ports hands the contract suites (source-cluster.contract.ts,
 * mirror-host.contract.ts): the ports under test, plus the client-side actions the suites need to put a
 * cluster into the state a behaviour is about. The actions are what any Kafka client can do (create a topic,
 * produce, run a transaction, commit offsets, delete records); the few only a test harness can do (move a
 * partition's leader, lose records to an unclean election) are optional and declared as capabilities.
 */

/** Client actions on one cluster. Records go to the given partition, in one batch per call. */
export interface ContractClient {
  createTopic(name: string, options: { partitions: number; configs?: Record<string, string> }): Promise<void>
  /** An idempotent produce, acknowledged by every in-sync replica (acks=all). */
  produce(tp: TopicPartition, records: Array<{ key?: string; value: string }>): Promise<void>
  /** initTransactions() under this transactional id; its batches are transactional. */
  transactionalProducer(transactionalId: string): Promise<ContractTransaction>
  /** Client DeleteRecords: the log start offset moves to `beforeOffset`. */
  deleteRecords(tp: TopicPartition, beforeOffset: number): Promise<void>
  commitGroupOffset(groupId: string, tp: TopicPartition, offset: number): Promise<void>
  /** A consumer that joins `groupId` and stays an active member until `leave()`. */
  joinGroup(groupId: string): Promise<{ leave(): Promise<void> }>
  /** Capability `leaderElection`: a clean election of another in-sync replica; the leader epoch goes up by one. */
  electAnotherLeader?(tp: TopicPartition): Promise<void>
  /** Capability `uncleanElection`: an out-of-sync replica missing the last `lostRecords` offsets becomes leader. */
  electLaggingReplicaUncleanly?(tp: TopicPartition, lostRecords: number): Promise<void>
}

export interface ContractTransaction {
  readonly producerId: number
  send(tp: TopicPartition, records: Array<{ key?: string; value: string }>): Promise<void>
  commit(): Promise<void>
  abort(): Promise<void>
}

/**
 * Behaviours an implementation may be unable to offer. Each one it lacks is declared in `deviations` with
 * the reason (the suite then checks the declaration instead of the behaviour, so a lack is never silent):
 * - `leaderElection`, `uncleanElection`: the harness can move leadership (cleanly, or losing records);
 * - `heldFetch`: fetch honours maxWaitMs (answers early when data arrives, or when aborted);
 * - `verbatimAppend`: mirrored batches keep their offsets, epochs, producer ids and bytes;
 * - `truncation`: truncateTo / truncateFullyAndStartAt on every replica;
 * - `epochBump`: bumpLeaderEpoch raises the partition leader epoch and batches above it are refused;
 * - `mirrorPidReset`: the MIRROR_PID_RESET control record exists;
 * - `stateFencing`: appendMirrorState refuses a stale writer's fenced entries (KIP-1279.md §5.3), writing nothing;
 * - `readOnlyEnforcement`: a client's produce or delete-records on a read-only mirror topic is refused.
 */
export const CAPABILITIES = ['leaderElection', 'uncleanElection', 'heldFetch', 'verbatimAppend', 'truncation', 'epochBump', 'mirrorPidReset', 'stateFencing', 'readOnlyEnforcement'] as const
export type Capability = (typeof CAPABILITIES)[number]

export interface ContractFixture {
  /** The source cluster, through the port under test, and a client of it. */
  source: SourceCluster
  sourceClient: ContractClient
  /** The destination cluster, through the port under test, and a client of it. */
  host: MirrorHost
  hostClient: ContractClient
  /** The destination seen as a source: it answers which mirrors it hosts (DescribeClusterMirrors). */
  hostAsSource: SourceCluster
  close(): Promise<void>
}

export interface ContractFactory {
  /** Names the implementation in test titles. */
  name: string
  /** Capability → why the implementation cannot offer it. Absent capabilities are offered. */
  deviations: Partial<Record<Capability, string>>
  /** A fresh source and destination; each suite opens one and uses a topic of its own per behaviour. */
  open(): Promise<ContractFixture>
}

export function supports(factory: ContractFactory, capability: Capability): boolean {
  return factory.deviations[capability] === undefined
}

/** One batch of a fetched or mirrored byte range, as the suites compare them. */
export interface BatchSummary {
  baseOffset: number
  lastOffset: number
  type: 'DATA' | 'COMMIT' | 'ABORT' | 'MIRROR_PID_RESET' | 'CONTROL'
  producerId: number
  leaderEpoch: number
  transactional: boolean
}

export function summarizeBatches(records: Uint8Array): BatchSummary[] {
  return splitBatches(records).map(({ header, position }) => ({
    baseOffset: header.baseOffset,
    lastOffset: header.lastOffset,
    type: header.isControl ? readControlInfo(records.subarray(position, position + header.sizeInBytes), header).type : 'DATA',
    producerId: header.producerId,
    leaderEpoch: header.partitionLeaderEpoch,
    transactional: header.isTransactional,
  }))
}

/** The code of what `action` throws, or a failure when it does not throw. */
/** The error a call fails with; throws when it succeeds. */
export async function errorOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action()
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail, and it succeeded')
}

export async function errorCodeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' ? code : `no code: ${String(error)}`
  }
  throw new Error('expected the call to fail, and it succeeded')
}
