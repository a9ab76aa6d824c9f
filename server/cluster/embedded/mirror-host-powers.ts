import 'server-only'
import { readControlInfo } from '@/lib/log/record-batch'
import { ClusterError } from '../errors'
import type { OpenTransaction, ReplicaLogState, TopicDescription, TopicPartition } from '../ports'
import { isInteger, type ClusterDirectory } from './cluster-directory'
import { validateTopicConfigs } from './config'
import { NAME_PATTERN, validateCount, validateOffset, validateTopicId, validateTopicName, type TopicMetadata } from './metadata'
import { readChunks } from './records-reader'
import { MAX_PARTITIONS, type Topics } from './topics'

export interface MirrorTopicSpec {
  name: string
  topicId: string
  partitions: number
  replicationFactor?: number
  configs?: Record<string, string>
  mirror: string
}

const MAX_LEADER_EPOCH = 2_147_483_647

function validateMirrorName(mirror: unknown): void {
  if (typeof mirror !== 'string' || !NAME_PATTERN.test(mirror)) throw new ClusterError('VALIDATION_FAILED', `invalid mirror name ${JSON.stringify(mirror)}`)
}

/**
 * The broker-side powers a mirror destination has and a client has not (DESIGN.md §2.1 MirrorHost): mirror
 * topics with the source's topic id, verbatim appends, truncation on every replica, epoch bumps, the STOPPING
 * markers, the read-only flag.
 */
export class MirrorHostPowers {
  constructor(
    private readonly directory: ClusterDirectory,
    private readonly topics: Topics,
  ) {}

  async createMirrorTopic(spec: MirrorTopicSpec): Promise<TopicDescription> {
    this.directory.ensureReachable()
    const name = validateTopicName(spec?.name)
    const topicId = validateTopicId(spec.topicId)
    validateMirrorName(spec.mirror)
    const { partitions, replicationFactor } = this.topics.validateNewTopic(name, spec.partitions, spec.replicationFactor)
    const configs = validateTopicConfigs(spec.configs)
    this.topics.unusedTopicId(topicId)
    const topic: TopicMetadata = { name, topicId, internal: false, replicationFactor, configs, readOnly: true, mirror: { name: spec.mirror }, partitions: [] }
    await this.topics.addTopic(topic, partitions)
    return this.directory.describeTopic(topic)
  }

  async createMirrorPartitions(topicName: string, totalCount: number): Promise<void> {
    this.directory.ensureReachable()
    const topic = this.directory.requireTopic(topicName)
    const count = validateCount(totalCount, 'partition count', MAX_PARTITIONS)
    if (count > topic.partitions.length) await this.topics.addPartitions(topic, count)
  }

  async appendMirroredBatches(topicPartition: TopicPartition, records: Uint8Array): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }> {
    this.directory.ensureReachable()
    if (!(records instanceof Uint8Array)) throw new ClusterError('VALIDATION_FAILED', 'records must be bytes')
    const partition = this.directory.requirePartition(topicPartition)
    const deadline = partition.requestDeadline()
    const append = await partition.appendVerbatim(records)
    await partition.awaitCommitted(append, deadline)
    const log = partition.leaderLog()
    return { logEndOffset: log.logEndOffset, highWatermark: log.highWatermark, lastBatchEpoch: append.result.lastBatchEpoch }
  }

  async truncateTo(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    this.directory.ensureReachable()
    return this.directory.requirePartition(topicPartition).truncateAllReplicas(validateOffset(offset, 'offset'))
  }

  async truncateFullyAndStartAt(topicPartition: TopicPartition, offset: number): Promise<{ removedRecords: number }> {
    this.directory.ensureReachable()
    return this.directory.requirePartition(topicPartition).truncateFullyAllReplicas(validateOffset(offset, 'offset'))
  }

  async deleteRecordsBefore(topicPartition: TopicPartition, offset: number, options: { bypassReadOnly: true }): Promise<void> {
    this.directory.ensureReachable()
    if (options?.bypassReadOnly !== true) throw new ClusterError('VALIDATION_FAILED', 'deleteRecordsBefore is the mirror path; clients use deleteRecords')
    await this.directory.requirePartition(topicPartition).deleteRecordsBefore(validateOffset(offset, 'offset'))
  }

  async bumpLeaderEpoch(topicPartition: TopicPartition, minimumEpoch: number): Promise<number> {
    this.directory.ensureReachable()
    if (!isInteger(minimumEpoch, 0) || minimumEpoch > MAX_LEADER_EPOCH) throw new ClusterError('VALIDATION_FAILED', `invalid leader epoch ${JSON.stringify(minimumEpoch)}`)
    return this.directory.requirePartition(topicPartition).bumpLeaderEpoch(minimumEpoch)
  }

  /** Each replica's own log as its broker holds it; a stopped broker's replica is offline (its disk is not read). */
  describeReplicas(topicPartition: TopicPartition): { leader: number; replicas: ReplicaLogState[] } {
    this.directory.ensureReachable()
    const partition = this.directory.requirePartition(topicPartition)
    const replicas = partition.metadata.replicas.map((brokerId): ReplicaLogState => {
      const log = partition.replicaLog(brokerId)
      return log ? { brokerId, online: true, logEndOffset: log.logEndOffset, latestEpoch: log.latestEpoch() } : { brokerId, online: false, logEndOffset: null, latestEpoch: null }
    })
    return { leader: partition.metadata.leader, replicas }
  }

  latestEpochs(topicPartitions: TopicPartition[]): number[] {
    this.directory.ensureReachable()
    return topicPartitions.map((topicPartition) => this.directory.requirePartition(topicPartition).leaderLog().latestEpoch())
  }

  async findControlRecord(topicPartition: TopicPartition, type: 'MIRROR_PID_RESET' | 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null> {
    this.directory.ensureReachable()
    const log = this.directory.requirePartition(topicPartition).leaderLog()
    for await (const { read } of readChunks(log, Math.max(fromOffset, log.logStartOffset), log.logEndOffset)) {
      for (const batch of read.batches) {
        if (batch.isControl && batch.lastOffset >= fromOffset && readControlInfo(batch.raw, batch).type === type) return batch.baseOffset
      }
    }
    return null
  }

  openTransactions(topicPartition: TopicPartition): OpenTransaction[] {
    this.directory.ensureReachable()
    return this.directory
      .requirePartition(topicPartition)
      .leaderLog()
      .openTransactions()
      .map((t) => ({ producerId: t.producerId, producerEpoch: t.producerEpoch, firstOffset: t.firstOffset }))
      .sort((a, b) => a.firstOffset - b.firstOffset || a.producerId - b.producerId)
  }

  async appendAbortMarkers(topicPartition: TopicPartition, producers: Array<{ producerId: number; producerEpoch: number }>): Promise<{ offsets: number[] }> {
    this.directory.ensureReachable()
    const partition = this.directory.requirePartition(topicPartition)
    if (!Array.isArray(producers) || producers.some((p) => !isInteger(p?.producerId, 0) || !isInteger(p.producerEpoch, 0))) {
      throw new ClusterError('VALIDATION_FAILED', 'producers must be { producerId, producerEpoch } pairs of non-negative integers')
    }
    const offsets: number[] = []
    const deadline = partition.requestDeadline()
    for (const producer of producers) {
      // KIP-1279 aborts open transactions unconditionally: the marker takes the coordinator epoch last seen
      // for its producer in mirrored data, so a source whose coordinator moved (epoch > 0) cannot fence it.
      const seen = partition.leaderLog().producerStates().find((state) => state.producerId === producer.producerId)?.coordinatorEpoch ?? 0
      const append = await partition.appendControl('ABORT', { ...producer, coordinatorEpoch: Math.max(0, seen) })
      await partition.awaitCommitted(append, deadline)
      offsets.push(append.result.baseOffset)
    }
    return { offsets }
  }

  async appendMirrorPidReset(topicPartition: TopicPartition): Promise<{ offset: number }> {
    this.directory.ensureReachable()
    const partition = this.directory.requirePartition(topicPartition)
    const deadline = partition.requestDeadline()
    const append = await partition.appendControl('MIRROR_PID_RESET', {})
    await partition.awaitCommitted(append, deadline)
    return { offset: append.result.baseOffset }
  }

  async setReadOnly(topicName: string, readOnly: boolean, mirror: string | null): Promise<void> {
    this.directory.ensureReachable()
    const topic = this.directory.requireTopic(topicName)
    if (topic.internal) throw new ClusterError('VALIDATION_FAILED', `${topicName} is an internal topic`)
    if (typeof readOnly !== 'boolean') throw new ClusterError('VALIDATION_FAILED', 'readOnly must be a boolean')
    if (mirror !== null) validateMirrorName(mirror)
    if (topic.readOnly === readOnly && (topic.mirror?.name ?? null) === mirror) {
      // Every PREPARING partition sets its topic's flag: 10,000 saves of a metadata file of 10,000 partitions,
      // each a synchronous JSON of megabytes. Unchanged, it only waits for the save that recorded it.
      await this.directory.metadataSaved()
      return
    }
    topic.readOnly = readOnly
    topic.mirror = mirror === null ? null : { name: mirror }
    await this.directory.persistMetadata()
  }
}
