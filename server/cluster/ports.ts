import 'server-only'
import type { FencedWrite, StateWriteFence } from '@/lib/mirror/state-fencing'

/**
 * The two ports the mirroring engine talks to clusters through (DESIGN.md §2.1). The embedded cluster
 * implements both fully; the kafkajs adapter implements SourceCluster fully and MirrorHost by emulation.
 * The engine never knows which it has.
 *
 * Offsets, epochs and producer ids are JS numbers (they stay below 2^53 in every cluster we model).
 * A `(leaderEpoch: -1, endOffset: -1)` pair means "undefined" as in Kafka's OffsetsForLeaderEpoch.
 */

import type { EpochEndOffset, OpenTransaction } from '@/lib/log/types'
import type { ReplicaLogState } from '@/lib/mirror/replica-convergence'

// One definition each, in lib/log (names kept: the engine and the adapters import them from here).
export type { EpochEndOffset, IsolationLevel, OpenTransaction } from '@/lib/log/types'
export type { ReplicaLogState } from '@/lib/mirror/replica-convergence'

export interface TopicPartition {
  topic: string
  partition: number
}

export const UNDEFINED_EPOCH_END_OFFSET: EpochEndOffset = Object.freeze({ leaderEpoch: -1, endOffset: -1 })

export interface PartitionDescription {
  partition: number
  /** Broker id of the leader, -1 while the partition is offline. */
  leader: number
  replicas: number[]
  isr: number[]
  leaderEpoch: number
  logStartOffset: number
  highWatermark: number
  lastStableOffset: number
  logEndOffset: number
}

export interface TopicDescription {
  name: string
  topicId: string
  replicationFactor: number
  /** Dynamic (explicitly set) topic configs only. */
  configs: Record<string, string>
  partitions: PartitionDescription[]
  /** Set on mirror topics until they are STOPPED: client produce, delete-records and partition increases are refused. */
  readOnly: boolean
  /** The mirror this topic is the destination of, when any. */
  mirror: { name: string } | null
}

/**
 * How a source refuses client writes for a planned switchover (issue #34): `broker` (an embedded cluster
 * answers TOPIC_WRITE_FENCED itself), `acl` (DENY WRITE ACLs for User:* on a Kafka cluster with an
 * authorizer; super users bypass them), `none` (no authorizer: the operator stops the producers and the
 * switchover checks that the source's log end offsets stand still).
 */
export type WriteFenceMethod = 'broker' | 'acl' | 'none'

/** A topic's fence: the mirror whose switchover set it, the operation, and since when. */
export interface WriteFence {
  topic: string
  mirror: string
  operation: string
  since: number
}

export interface FetchPartitionRequest extends TopicPartition {
  fetchOffset: number
  /** Epoch of the last batch the caller holds below fetchOffset (KIP-320); -1 when it holds none. */
  lastFetchedEpoch: number
  /** Per-partition byte budget; at least one whole batch is returned even when it is larger. */
  maxBytes: number
}

export type FetchPartitionResult =
  | {
      ok: true
      topic: string
      partition: number
      /** Whole v2 record batches, concatenated, exactly as stored at the source. */
      records: Uint8Array
      highWatermark: number
      lastStableOffset: number
      logStartOffset: number
      /** Set when the caller's history diverges from ours; the caller truncates to it and fetches again. */
      divergingEpoch: EpochEndOffset | null
      /** The source partition's current leader epoch. */
      leaderEpoch: number
      /**
       * Timestamp of the first record the source holds beyond what this response returned (null when the
       * response reached the high watermark): the age of the oldest record not yet mirrored is time lag.
       */
      nextRecordTimestamp: number | null
    }
  | {
      ok: false
      topic: string
      partition: number
      error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' | 'OFFSET_OUT_OF_RANGE' | 'NOT_LEADER_OR_FOLLOWER' | 'LEADER_NOT_AVAILABLE' | 'SOURCE_UNAVAILABLE' | 'CORRUPT_MESSAGE'; message: string }
      /** For OFFSET_OUT_OF_RANGE: where the source log starts and ends now. */
      logStartOffset?: number
      logEndOffset?: number
    }

export interface GroupOffsets {
  groupId: string
  /** True when the group has active members: its offsets are owned by live consumers and must not be overwritten. */
  hasActiveMembers: boolean
  offsets: Array<TopicPartition & { offset: number; leaderEpoch: number | null }>
}

export interface LastMirrorPosition {
  epoch: number
  offset: number
}

/** What the source knows of mirrors it hosts: for loop detection and the failback (last mirror position) lookup. */
export interface HostedMirror {
  name: string
  sourceClusterId: string
  topics: string[]
  /** Per-partition state of each mirrored topic, by `${topic}-${partition}`. */
  partitionStates: Record<string, string>
}

export interface FetchOptions {
  /** The response's total size bound, as fetch.response.max.bytes. */
  maxBytes: number
  /** How long to hold a fetch that has nothing to return; 0 or absent answers at once. */
  maxWaitMs?: number
  /** Ends a held fetch early: it answers with what there is. */
  signal?: AbortSignal
  /**
   * A buffer an embedded cluster reads the answers' records into while they fit (each partition's in a region
   * of its own): they are then views of it, valid until the caller fetches into it again. A reader that steps
   * through megabytes (a verification) reuses one buffer instead of faulting in fresh ones; others ignore it.
   */
  into?: Buffer
}

/**
 * KIP-227's incremental fetch session, for a fetcher that asks for the same thousands of partitions round
 * after round: the session holds each partition's fetch request, a call names only the partitions that join
 * or whose request changed (`partitions`) and those that leave (`forget`), and the answer holds only the
 * partitions with something to say: every partition named in the call, and any other whose fetch would now
 * return records, a divergence or an error, or a high watermark, log start offset or leader epoch other
 * than the session last answered. With `maxWaitMs` a call with nothing to say waits, as
 * SourceCluster.fetch does, until a partition of the session has something, the wait ends or `signal`
 * aborts; an idle session of 10,000 partitions then costs the source nothing.
 */
export interface FetchSession {
  fetch(changes: { partitions: FetchPartitionRequest[]; forget: TopicPartition[] }, options: FetchOptions): Promise<FetchPartitionResult[]>
  /** False once the session was closed or the source evicted it: the fetcher opens another and names every partition again. */
  readonly isOpen: boolean
  close(): void
}

export interface SourceCluster {
  readonly name: string
  /** The cluster id; a change of it while mirroring fails every partition of the mirror (non-retryable). */
  clusterId(): Promise<string>
  /** Topic metadata; topics that do not exist are left out. Omit `topics` for every non-internal topic. */
  describeTopics(topics?: string[]): Promise<TopicDescription[]>
  /**
   * A consumer fetch (read_uncommitted) of whole batches for many partitions at once. With `maxWaitMs`, a
   * fetch that would return nothing new for every partition waits, as Kafka's FetchRequest with min_bytes 1
   * and max_wait_ms does, until one of them has something (records, a divergence, an error), the wait
   * ends, or `signal` aborts; then it answers as a fetch made at that moment would. One result per request,
   * in the order of the requests.
   */
  fetch(partitions: FetchPartitionRequest[], options: FetchOptions): Promise<FetchPartitionResult[]>
  /** An incremental fetch session (KIP-227); a source without them is fetched in full every round. */
  openFetchSession?(): FetchSession
  /** KIP-101 OffsetsForLeaderEpoch. */
  endOffsetForEpoch(topicPartition: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset>
  /** One partition's description, without describing the rest of its topic; NOT_FOUND when absent. */
  describePartition(topicPartition: TopicPartition): Promise<PartitionDescription>
  /** Committed offsets of every consumer group. */
  listGroupOffsets(): Promise<GroupOffsets[]>
  /**
   * Mirrors this cluster hosts as a destination (DescribeClusterMirrors / ListClusterMirrors), as its own
   * `__mirror_state` records them (lib/mirror/mirror-state-records.ts): what is durable, not what an engine
   * holds in memory. With `topics`, only mirrors of those topics, with only their partitions' states:
   * PREPARING asks once per partition, so an implementation answers from an index, not a scan of the log.
   */
  listHostedMirrors(filter?: { topics?: string[] }): Promise<HostedMirror[]>
  /**
   * The last mirror positions recorded (in `__mirror_state` partition records) by mirrors hosted here whose
   * source is `sourceClusterId`, the max over them per partition; absent partitions have none (mirror from scratch).
   */
  lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Promise<Map<string, LastMirrorPosition>>
  /**
   * The transactional ids the cluster's transaction coordinators hold for these producer ids (Kafka's
   * ListTransactions filtered by producer id); ids without one are left out. Optional: a cluster that cannot
   * say is asked nothing (the split-brain guard then names producers by id alone).
   */
  transactionalIdsOf?(producerIds: readonly number[]): Promise<Map<number, string>>
  /** How this cluster can fence writes (WriteFenceMethod); a source without the methods below has `none`. */
  writeFenceMethod?(): Promise<WriteFenceMethod>
  /** Refuses every client write to `topics` until unfenced; idempotent. */
  fenceWrites?(topics: readonly string[], fence: { mirror: string; operation: string }): Promise<void>
  /** Lifts the fences `mirror` set on `topics`; idempotent. */
  unfenceWrites?(topics: readonly string[], mirror: string): Promise<void>
  /** The fences in place (those this cluster can tell). */
  writeFences?(): Promise<WriteFence[]>
  /** Aborts at the source's coordinator the transactions open on `topics`; a source that cannot leaves them. */
  abortOpenTransactions?(topics: readonly string[]): Promise<number>
}

/** One `__mirror_state` record to append; `fence` only on partition-state records (KIP-1279.md §5.3). */
export interface MirrorStateAppendEntry {
  key: string
  value: string | null
  fence?: StateWriteFence
}

/** One entry of a refused append's `details.fenced`. */
export type FencedMirrorStateEntry = FencedWrite

export interface MirrorHost {
  readonly name: string
  clusterId(): Promise<string>
  /**
   * Another instance ran these topics' mirror until now (issue #40): what the host keeps of their partitions in
   * memory is read again from the cluster. Only hosts shared between instances (Kafka) have it.
   */
  reloadMirrorTopics?(topics: readonly string[]): Promise<void>
  /**
   * This instance takes `mirror` over (issue #40): the writes of its state records are claimed here, which fences
   * the previous owner's (a zombie's later write is refused and never read), before its records are read.
   */
  claimMirrorState?(mirror: string): Promise<void>
  /**
   * Records the destination lost since `since` that the mirror had mirrored (a Kafka destination: an orphaned
   * transaction's records retention removed before they could be carried into a new one). Hosts without such a
   * loss have no method.
   */
  recordsLostSince?(tp: TopicPartition, since: number): Promise<number>
  describeTopics(topics?: string[]): Promise<TopicDescription[]>
  /** Creates a read-only mirror topic that keeps the source's topic id. */
  createMirrorTopic(spec: { name: string; topicId: string; partitions: number; replicationFactor?: number; configs?: Record<string, string>; mirror: string }): Promise<TopicDescription>
  /** Grows a mirror topic to the source's partition count (never shrinks). */
  createMirrorPartitions(topic: string, totalCount: number): Promise<void>
  /** Applies synced dynamic configs to a mirror topic. */
  alterTopicConfigs(topic: string, configs: Record<string, string>): Promise<void>
  /**
   * Appends fetched batches exactly as they are (same offsets, epochs, producer ids, sequences, markers) to
   * the leader; batches continue the log end offset, with gaps allowed as a compacted source leaves them;
   * a batch whose epoch is above the partition leader epoch is refused. Resolves once durable on the leader and
   * replicated to the in-sync replicas; producer state is rebuilt from the batches as a follower would.
   */
  appendMirroredBatches(topicPartition: TopicPartition, records: Uint8Array): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }>
  /** Truncates the partition on the leader and every replica to `offset` (whole batches). Returns the records removed. */
  truncateTo(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number; logEndOffset: number }>
  /** Empties the partition and restarts it at `offset` (mirroring from scratch at the source's log start). */
  truncateFullyAndStartAt(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number }>
  /** Advances the log start offset (source log-start increments applied locally). */
  deleteRecordsBefore(topicPartition: TopicPartition, offset: number, options: { bypassReadOnly: true }): Promise<void>
  /** Raises the partition leader epoch to at least `minimumEpoch`; never lowers it. Returns the resulting epoch. */
  bumpLeaderEpoch(topicPartition: TopicPartition, minimumEpoch: number): Promise<number>
  /** Latest epoch in the partition's leader-epoch cache (epoch of the last batch), -1 when empty. */
  latestEpoch(topicPartition: TopicPartition): Promise<number>
  /** latestEpoch of many partitions in one call (a fetch round asks for every partition it fetches). */
  latestEpochs(topicPartitions: TopicPartition[]): Promise<number[]>
  endOffsetForEpoch(topicPartition: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset>
  /** Epoch of `offset` in the leader's epoch cache (the latest epoch at the log end offset), -1 when unknown. */
  epochForOffset(topicPartition: TopicPartition, offset: number): Promise<number>
  /** One partition's description, without describing the rest of its topic. */
  describePartition(topicPartition: TopicPartition): Promise<PartitionDescription>
  /**
   * The partition's leader and every replica of its assignment as it is: online or not, and its own log end offset
   * and latest epoch (null where the host cannot see them). ULE recovery resumes only once every replica holds the
   * truncated log (lib/mirror/replica-convergence.ts); ISR membership does not say so.
   */
  describeReplicas(topicPartition: TopicPartition): Promise<{ leader: number; replicas: ReplicaLogState[] }>
  /**
   * The offset of the first control record of `type` at or after `fromOffset` in the leader's log, up to
   * the log end offset (not only the high watermark: a record appended just before a crash counts), or
   * null. STOPPING uses it to tell whether its MIRROR_PID_RESET was already written.
   */
  findControlRecord(topicPartition: TopicPartition, type: 'MIRROR_PID_RESET' | 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null>
  /** Open transactions in the partition's producer state, ordered by first offset. */
  openTransactions(topicPartition: TopicPartition): Promise<OpenTransaction[]>
  /** Appends one ABORT marker per given producer, in order, at the current leader epoch. */
  appendAbortMarkers(topicPartition: TopicPartition, producers: Array<{ producerId: number; producerEpoch: number }>): Promise<{ offsets: number[] }>
  /** Appends one MIRROR_PID_RESET control record; producer state is empty afterwards (also after replay). */
  appendMirrorPidReset(topicPartition: TopicPartition): Promise<{ offset: number }>
  setReadOnly(topic: string, readOnly: boolean, mirror: string | null): Promise<void>
  /**
   * Commits a synced offset for a group, with the leader epoch it belongs to (KIP-1279.md §3.6); refused
   * (false) when the group has active members.
   */
  commitSyncedGroupOffset(groupId: string, topicPartition: TopicPartition, offset: number, leaderEpoch?: number | null): Promise<boolean>
  listGroupOffsets(): Promise<GroupOffsets[]>
  /**
   * Appends keyed records to the compacted `__mirror_state` internal topic (null value = tombstone); durable on
   * resolve. An entry with a `fence` is checked against what the log holds for its key (KIP-1279.md §5.3): a
   * stored writer epoch above the fence's leader epoch refuses the append with FENCED_LEADER_EPOCH, a stored
   * stateEpoch above the expected one with FENCED_STATE_EPOCH. A refused append writes nothing; its error's
   * `details.fenced` lists the refused entries ({ key, code, storedStateEpoch, storedLeaderEpoch }).
   */
  appendMirrorState(entries: Array<MirrorStateAppendEntry>): Promise<void>
  /** Every record of `__mirror_state` in log order, for replay on start. */
  readMirrorState(): Promise<Array<{ key: string; value: string | null }>>
  /**
   * Only on a host that cannot truncate a log (a Kafka cluster, by emulation: DESIGN.md §5), which rebuilds the
   * topic instead. Whether starting `topic` with this truncation plan needs the rebuild: records to remove, or
   * records the host did not mirror itself (their leader epochs and offsets are the broker's own).
   */
  rebuildNeeded?(topic: string, plan: readonly RebuildPlanEntry[]): Promise<boolean>
  /**
   * Deletes the topic and creates it again (same partition count, replication factor and configs) as an empty
   * read-only mirror topic of `mirror`, keeping `topicId`, so PREPARING mirrors it from the source's log start.
   * `plan` says what each partition loses (the divergent tail the failback wizard exports first).
   */
  rebuildTopic?(topic: string, spec: { topicId: string; mirror: string; plan: readonly RebuildPlanEntry[] }): Promise<void>
}

/** A truncation plan entry as far as a rebuild cares. */
export interface RebuildPlanEntry {
  partition: number
  truncateTo: number | null
  recordsToRemove: number
}

/** The errors a port's methods throw are part of its contract: the engine sorts them by code. */
export { ClusterError, isClusterError, type ClusterErrorCode } from './errors'
