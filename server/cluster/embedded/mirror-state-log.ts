import 'server-only'
import { decodeRecords } from '@/lib/log/records-view'
import { MIRROR_STATE_TOPIC } from '@/lib/mirror/constants'
import { ClusterError } from '../errors'
import type { HostedMirror, LastMirrorPosition, TopicPartition } from '../ports'
import type { ClusterDirectory } from './cluster-directory'
import type { TopicMetadata } from './metadata'
import { MirrorStateView } from './mirror-state-view'
import { readChunks } from './records-reader'
import type { ReplicatedPartition } from './replicated-partition'
import type { Topics } from './topics'

const INTERNAL_TOPIC_REPLICATION_FACTOR = 3

export interface MirrorStateEntry {
  key: string
  value: string | null
}

/**
 * The `__mirror_state` internal topic (1 partition, RF min(3, brokers), `cleanup.policy=compact`), created on
 * first append, and the view of it the cluster answers DescribeClusterMirrors and the last-mirror-position
 * lookup from. Compaction is not run: `read()` returns every record ever written, in order.
 */
export class MirrorStateLog {
  private readonly view = new MirrorStateView()

  constructor(
    private readonly directory: ClusterDirectory,
    private readonly topics: Topics,
  ) {}

  /** Builds the view from what the log holds (cluster open). */
  async load(): Promise<void> {
    this.view.apply(await this.read())
  }

  private async partition(create: boolean): Promise<ReplicatedPartition | undefined> {
    if (!this.directory.topicNamed(MIRROR_STATE_TOPIC)) {
      if (!create) return undefined
      const topic: TopicMetadata = {
        name: MIRROR_STATE_TOPIC,
        topicId: this.topics.newTopicId(),
        internal: true,
        replicationFactor: Math.min(INTERNAL_TOPIC_REPLICATION_FACTOR, this.directory.metadata.brokerIds.length),
        configs: { 'cleanup.policy': 'compact' },
        readOnly: false,
        mirror: null,
        partitions: [],
      }
      await this.topics.addTopic(topic, 1)
    }
    return this.directory.findPartition(MIRROR_STATE_TOPIC, 0)
  }

  /** Durable (acks=all) on resolve; the view answers with the entries from then on. */
  async append(entries: MirrorStateEntry[]): Promise<void> {
    this.directory.ensureReachable()
    if (!Array.isArray(entries) || entries.some((e) => typeof e?.key !== 'string' || e.key.length === 0 || (e.value !== null && typeof e.value !== 'string'))) {
      throw new ClusterError('VALIDATION_FAILED', 'mirror state entries must be { key: non-empty string, value: string | null }')
    }
    if (entries.length === 0) return
    const partition = (await this.partition(true))!
    const records = entries.map((e) => ({ key: e.key, value: e.value }))
    const deadline = partition.requestDeadline()
    const append = await partition.appendOnLeader('all', (log, leaderEpoch) => log.appendAsLeader(records, { leaderEpoch }))
    await partition.awaitCommitted(append, deadline)
    this.view.apply(records)
  }

  async read(): Promise<MirrorStateEntry[]> {
    this.directory.ensureReachable()
    const partition = await this.partition(false)
    if (!partition) return []
    const log = partition.leaderLog()
    const decoder = new TextDecoder()
    const out: MirrorStateEntry[] = []
    for await (const { read, fromOffset } of readChunks(log, log.logStartOffset, log.highWatermark)) {
      for (const record of decodeRecords(read.batches, { fromOffset, includeControl: false })) {
        if (record.key === null) continue
        out.push({ key: decoder.decode(record.key), value: record.value === null ? null : decoder.decode(record.value) })
      }
    }
    return out
  }

  listHostedMirrors(filter?: { topics?: string[] }): HostedMirror[] {
    this.directory.ensureReachable()
    return this.view.hostedMirrors(filter)
  }

  lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Map<string, LastMirrorPosition> {
    this.directory.ensureReachable()
    return this.view.lastMirrorPositions(sourceClusterId, partitions)
  }
}
