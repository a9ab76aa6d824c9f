import 'server-only'
import { fencedWritesMessage, judgeStateWrites, type StoredFencing } from '@/lib/mirror/state-fencing'
import type { TopicPartition } from '@/lib/mirror/topic-partition'
import { TimeSlice } from '@/server/util/cooperative'
import { ClusterError } from '../errors'
import type { EpochEndOffset, GroupOffsets, MirrorHost, MirrorStateAppendEntry, OpenTransaction, PartitionDescription, ReplicaLogState, TopicDescription } from '../ports'
import { FakePartitionLog } from './fake-partition-log'
import { FakeTopics } from './fake-topics'

/**
 * A MirrorHost in memory: mirror topics whose logs take mirrored batches as they are, the leader epoch
 * rules of the port (a batch above the leader epoch is refused; bumps never lower it), control records
 * written as real control batches (so findControlRecord and openTransactions read them back), group
 * offsets, and `__mirror_state` as an array. `failNext(method)` makes one call of a method throw, and
 * `failUntilHealed(method)` every call until `heal`, for tests of the engine's effect and state-write failures.
 */
export class FakeMirrorHost implements MirrorHost {
  readonly state: FakeTopics
  id: string
  /** `__mirror_state` as compaction leaves it: the last value per key (a tombstone stays as null), in first-write order. */
  readonly mirrorState = new Map<string, string | null>()
  /**
   * The replicas besides the leader, by `${topic}-${partition}`, as a test sets them (a follower offline, or still
   * holding offsets the leader truncated); none by default.
   */
  readonly followers = new Map<string, ReplicaLogState[]>()
  private readonly stateFencing = new Map<string, StoredFencing>()
  private readonly failures = new Map<keyof MirrorHost, ClusterError>()
  private readonly lastingFailures = new Map<keyof MirrorHost, ClusterError>()
  private clock: () => number

  constructor(
    readonly name: string,
    options: { clusterId?: string; state?: FakeTopics; now?: () => number } = {},
  ) {
    this.id = options.clusterId ?? `${name}-cluster-id`
    this.state = options.state ?? new FakeTopics(name)
    this.clock = options.now ?? Date.now
  }

  /** The next call of `method` throws `error` (default: KAFKA_STORAGE_ERROR). */
  failNext(method: keyof MirrorHost, error = new ClusterError('KAFKA_STORAGE_ERROR', `injected failure of ${String(method)}`)): void {
    this.failures.set(method, error)
  }

  /** Every call of `method` throws `error` until `heal(method)`: a store that stays down (a full disk, a dead broker). */
  failUntilHealed(method: keyof MirrorHost, error = new ClusterError('KAFKA_STORAGE_ERROR', `injected failure of ${String(method)}`)): void {
    this.lastingFailures.set(method, error)
  }

  heal(method: keyof MirrorHost): void {
    this.lastingFailures.delete(method)
  }

  async clusterId(): Promise<string> {
    return this.id
  }

  async describeTopics(topics?: string[]): Promise<TopicDescription[]> {
    return this.state.describe(topics)
  }

  async createMirrorTopic(spec: { name: string; topicId: string; partitions: number; replicationFactor?: number; configs?: Record<string, string>; mirror: string }): Promise<TopicDescription> {
    this.maybeFail('createMirrorTopic')
    this.state.create({ name: spec.name, topicId: spec.topicId, partitions: spec.partitions, configs: spec.configs, mirror: spec.mirror })
    return this.state.describe([spec.name])[0]!
  }

  async createMirrorPartitions(topic: string, totalCount: number): Promise<void> {
    const logs = this.state.topic(topic).logs
    while (logs.length < totalCount) logs.push(new FakePartitionLog())
  }

  async alterTopicConfigs(topic: string, configs: Record<string, string>): Promise<void> {
    Object.assign(this.state.topic(topic).configs, configs)
  }

  async appendMirroredBatches(topicPartition: TopicPartition, records: Uint8Array): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }> {
    this.maybeFail('appendMirroredBatches')
    const log = this.state.log(topicPartition)
    try {
      log.appendBytes(records)
    } catch (error) {
      throw new ClusterError('MIRROR_LEADER_EPOCH_EXCEEDED', error instanceof Error ? error.message : String(error))
    }
    return { logEndOffset: log.logEndOffset, highWatermark: log.logEndOffset, lastBatchEpoch: log.latestEpoch() }
  }

  async truncateTo(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    this.maybeFail('truncateTo')
    const log = this.state.log(topicPartition)
    const before = log.logEndOffset
    log.truncateTo(offset)
    return { removedRecords: before - log.logEndOffset, logEndOffset: log.logEndOffset }
  }

  async truncateFullyAndStartAt(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number }> {
    this.maybeFail('truncateFullyAndStartAt')
    const log = this.state.log(topicPartition)
    const removed = log.logEndOffset - log.logStartOffset
    log.truncateFullyAndStartAt(offset)
    return { removedRecords: removed }
  }

  async deleteRecordsBefore(topicPartition: TopicPartition, offset: number): Promise<void> {
    this.state.log(topicPartition).deleteRecordsBefore(offset)
  }

  async bumpLeaderEpoch(topicPartition: TopicPartition, minimumEpoch: number): Promise<number> {
    this.maybeFail('bumpLeaderEpoch')
    const log = this.state.log(topicPartition)
    log.leaderEpoch = Math.max(log.leaderEpoch, minimumEpoch)
    return log.leaderEpoch
  }

  async latestEpoch(topicPartition: TopicPartition): Promise<number> {
    return this.state.log(topicPartition).latestEpoch()
  }

  async epochForOffset(topicPartition: TopicPartition, offset: number): Promise<number> {
    this.maybeFail('epochForOffset')
    return this.state.log(topicPartition).epochForOffset(offset)
  }

  async latestEpochs(topicPartitions: TopicPartition[]): Promise<number[]> {
    const epochs: number[] = []
    const slice = new TimeSlice()
    for (const tp of topicPartitions) {
      const turn = slice.maybeYield()
      if (turn) await turn
      epochs.push(this.state.log(tp).latestEpoch())
    }
    return epochs
  }

  async endOffsetForEpoch(topicPartition: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset> {
    return this.state.log(topicPartition).endOffsetForEpoch(leaderEpoch)
  }

  async describePartition(topicPartition: TopicPartition): Promise<PartitionDescription> {
    return this.state.log(topicPartition).describe(topicPartition.partition)
  }

  async describeReplicas(topicPartition: TopicPartition): Promise<{ leader: number; replicas: ReplicaLogState[] }> {
    const log = this.state.log(topicPartition)
    const leader: ReplicaLogState = { brokerId: log.leader, online: log.leader >= 0, logEndOffset: log.logEndOffset, latestEpoch: log.latestEpoch() }
    return { leader: log.leader, replicas: [leader, ...(this.followers.get(`${topicPartition.topic}-${topicPartition.partition}`) ?? [])] }
  }

  async findControlRecord(topicPartition: TopicPartition, type: 'MIRROR_PID_RESET' | 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null> {
    return this.state.log(topicPartition).findControlRecord(type, fromOffset)
  }

  async openTransactions(topicPartition: TopicPartition): Promise<OpenTransaction[]> {
    return this.state.log(topicPartition).openTransactions()
  }

  async appendAbortMarkers(topicPartition: TopicPartition, producers: Array<{ producerId: number; producerEpoch: number }>): Promise<{ offsets: number[] }> {
    this.maybeFail('appendAbortMarkers')
    const log = this.state.log(topicPartition)
    return { offsets: producers.map((producer) => log.appendControl('ABORT', producer, this.clock())) }
  }

  async appendMirrorPidReset(topicPartition: TopicPartition): Promise<{ offset: number }> {
    this.maybeFail('appendMirrorPidReset')
    return { offset: this.state.log(topicPartition).appendControl('MIRROR_PID_RESET', { producerId: -1, producerEpoch: -1 }, this.clock()) }
  }

  async setReadOnly(topic: string, readOnly: boolean, mirror: string | null): Promise<void> {
    const described = this.state.topic(topic)
    described.readOnly = readOnly
    described.mirror = mirror === null ? null : { name: mirror }
  }

  async commitSyncedGroupOffset(groupId: string, topicPartition: TopicPartition, offset: number, leaderEpoch?: number | null): Promise<boolean> {
    if (this.state.groups.get(groupId)?.hasActiveMembers) return false
    this.state.commit(groupId, topicPartition, offset, leaderEpoch ?? null)
    return true
  }

  async listGroupOffsets(): Promise<GroupOffsets[]> {
    return this.state.groupOffsets()
  }

  async appendMirrorState(entries: MirrorStateAppendEntry[]): Promise<void> {
    this.maybeFail('appendMirrorState')
    // The port's fencing (KIP-1279.md §5.3), all entries checked before any is kept: a refused append writes nothing.
    const { fenced, fencingAfter } = judgeStateWrites(entries, (key) => this.fencingOf(key))
    if (fenced.length > 0) throw new ClusterError(fenced[0]!.code, fencedWritesMessage(fenced), { details: { fenced } })
    for (const [key, value] of fencingAfter) if (value) this.stateFencing.set(key, value)
    for (const { key, value } of entries) {
      this.mirrorState.set(key, value)
      if (value === null) this.stateFencing.delete(key)
    }
  }

  private fencingOf(key: string): StoredFencing | null {
    return this.stateFencing.get(key) ?? null
  }

  async readMirrorState(): Promise<Array<{ key: string; value: string | null }>> {
    return [...this.mirrorState].map(([key, value]) => ({ key, value }))
  }

  private maybeFail(method: keyof MirrorHost): void {
    const lasting = this.lastingFailures.get(method)
    if (lasting) throw lasting
    const error = this.failures.get(method)
    if (!error) return
    this.failures.delete(method)
    throw error
  }
}
