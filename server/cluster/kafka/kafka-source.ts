import 'server-only'
import { sameTopicPartition, TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { ClusterError } from '../errors'
import type {
  EpochEndOffset,
  FetchOptions,
  FetchPartitionRequest,
  FetchPartitionResult,
  GroupOffsets,
  HostedMirror,
  LastMirrorPosition,
  PartitionDescription,
  SourceCluster,
  TopicDescription,
  TopicPartition,
  WriteFence,
  WriteFenceMethod,
} from '../ports'
import { UNDEFINED_EPOCH_END_OFFSET } from '../ports'
import type { KafkaConnection } from './connection'
import { wholeBatches } from './fetched-batches'
import { KafkaMetadata } from './metadata-cache'
import { errorName, fetchRequest, ISOLATION_LEVEL, offsetForLeaderEpochRequest, type FetchedPartition, type FetchPartitionSpec } from './protocol'
import { PartitionOffsets } from './partition-offsets'
import { SourceWriteFence } from './source-write-fence'
import { WriteDenyAcls } from './write-deny-acls'
import { STATE_TOPIC, type KafkaStateTopic } from './kafka-state-topic'

/**
 * SourceCluster over a real Kafka cluster (DESIGN.md §5): raw Fetch v12 read_uncommitted, so batches arrive
 * byte for byte as the broker stores them (producer ids, epochs, sequences, leader epochs, control batches,
 * compressed batches of any codec: nothing is decompressed), with KIP-320 divergence answered by the broker
 * itself; OffsetForLeaderEpoch v4; partition state from Metadata v12 and ListOffsets; configs and groups
 * through kafkajs's admin.
 *
 * Deviations a client cannot avoid: `logEndOffset` is the high watermark (a client never sees a leader's
 * uncommitted tail); a held fetch is cut into broker waits of at most HELD_FETCH_SLICE_MS so that an abort
 * is honoured within that time (a Kafka fetch in flight cannot be cancelled).
 */

const HELD_FETCH_SLICE_MS = 500

const RETRY_AFTER_METADATA = new Set(['NOT_LEADER_OR_FOLLOWER', 'FENCED_LEADER_EPOCH', 'UNKNOWN_LEADER_EPOCH', 'UNKNOWN_TOPIC_OR_PARTITION', 'UNKNOWN_TOPIC_ID', 'LEADER_NOT_AVAILABLE'])

type FetchError = Extract<FetchPartitionResult, { ok: false }>['error']['code']

function fetchErrorCode(name: string): FetchError {
  switch (name) {
    case 'OFFSET_OUT_OF_RANGE':
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'LEADER_NOT_AVAILABLE':
      return name
    case 'UNKNOWN_TOPIC_ID':
      return 'UNKNOWN_TOPIC_OR_PARTITION'
    case 'FENCED_LEADER_EPOCH':
    case 'UNKNOWN_LEADER_EPOCH':
    case 'NOT_LEADER_FOR_PARTITION':
      return 'NOT_LEADER_OR_FOLLOWER'
    case 'CORRUPT_MESSAGE':
      return 'CORRUPT_MESSAGE'
    default:
      return 'SOURCE_UNAVAILABLE'
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

export class KafkaSourceCluster implements SourceCluster {
  readonly metadata: KafkaMetadata
  readonly offsets: PartitionOffsets
  private hostedState: KafkaStateTopic | null = null
  private mirrorTopicIds: ((described: TopicDescription[]) => Promise<TopicDescription[]>) | null = null

  private readonly fence: SourceWriteFence

  /** `acls`: the cluster's one WriteDenyAcls, shared with its mirror host (kafka-cluster.ts). */
  constructor(
    readonly name: string,
    private readonly connection: KafkaConnection,
    acls: WriteDenyAcls = new WriteDenyAcls(connection.admin),
  ) {
    this.metadata = new KafkaMetadata(connection)
    this.offsets = new PartitionOffsets(connection, this.metadata)
    this.fence = new SourceWriteFence(acls)
  }

  /** A planned switchover's fence: DENY WRITE ACLs where an authorizer runs, else none (source-write-fence.ts). */
  writeFenceMethod(): Promise<WriteFenceMethod> {
    return this.fence.method()
  }

  fenceWrites(topics: readonly string[], fence: { mirror: string; operation: string }): Promise<void> {
    return this.fence.fence(topics, fence)
  }

  unfenceWrites(topics: readonly string[], mirror: string): Promise<void> {
    return this.fence.unfence(topics, mirror)
  }

  /** The switchover fences on this cluster, read from its ACLs (fence-marker.ts). */
  writeFences(): Promise<WriteFence[]> {
    return this.fence.list()
  }

  async clusterId(): Promise<string> {
    return this.metadata.clusterId()
  }

  /**
   * As the engine sees the cluster as a source: a mirror topic the destination emulation created keeps the
   * topic id of the topic it mirrors (a client cannot choose a Kafka topic id; a native mirror topic has it),
   * so a failback finds the same id on both sides.
   */
  async describeTopics(topics?: string[]): Promise<TopicDescription[]> {
    const described = await this.describeBrokerTopics(topics)
    return this.mirrorTopicIds ? this.mirrorTopicIds(described) : described
  }

  /** The broker's own view: its topic ids (what the emulation and the cluster views compare with). */
  async describeBrokerTopics(topics?: string[]): Promise<TopicDescription[]> {
    // The destination emulation's state topic is internal, as __mirror_state is on a native cluster.
    const described = (await this.metadata.topics(topics ?? null)).filter((t) => topics !== undefined || t.name !== STATE_TOPIC)
    const configs = await this.dynamicConfigs(described.map((t) => t.name))
    const offsets = await this.offsets.of(described.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition }))))
    return described.map((topic) => ({
      name: topic.name,
      topicId: topic.topicId,
      replicationFactor: topic.partitions[0]?.replicas.length ?? 0,
      configs: configs.get(topic.name) ?? {},
      readOnly: false,
      mirror: null,
      partitions: topic.partitions.map((p) => ({
        partition: p.partition,
        leader: p.leader,
        replicas: p.replicas,
        isr: p.isr,
        leaderEpoch: p.leaderEpoch,
        ...offsets.get({ topic: topic.name, partition: p.partition })!,
      })),
    }))
  }

  async describePartition(tp: TopicPartition): Promise<PartitionDescription> {
    const [topic] = await this.metadata.topics([tp.topic])
    const partition = topic?.partitions.find((p) => p.partition === tp.partition)
    if (!topic || !partition) throw new ClusterError('NOT_FOUND', `${tp.topic}-${tp.partition} does not exist`, { details: { topic: tp.topic, partition: tp.partition } })
    const offsets = await this.offsets.of([tp])
    return { partition: partition.partition, leader: partition.leader, replicas: partition.replicas, isr: partition.isr, leaderEpoch: partition.leaderEpoch, ...offsets.get(tp)! }
  }

  /** Dynamic (explicitly set) configs of each topic: DescribeConfigs entries whose source is DYNAMIC_TOPIC_CONFIG. */
  private async dynamicConfigs(topics: string[]): Promise<Map<string, Record<string, string>>> {
    const result = new Map<string, Record<string, string>>()
    if (topics.length === 0) return result
    // kafkajs ConfigResourceTypes.TOPIC = 2; ConfigSource DYNAMIC_TOPIC_CONFIG = 1.
    const answer = await this.connection.admin.describeConfigs({ resources: topics.map((name) => ({ type: 2, name })), includeSynonyms: false })
    for (const resource of answer.resources) {
      const configs: Record<string, string> = {}
      for (const entry of resource.configEntries) {
        const source = (entry as { configSource?: number }).configSource
        if (source === 1 && entry.configValue !== null) configs[entry.configName] = entry.configValue
      }
      result.set(resource.resourceName, configs)
    }
    return result
  }

  async fetch(requests: FetchPartitionRequest[], options: FetchOptions): Promise<FetchPartitionResult[]> {
    const results: Array<FetchPartitionResult | undefined> = new Array(requests.length)
    const pending = requests.map((request, index) => ({ request, index }))
    const deadline = Date.now() + (options.maxWaitMs ?? 0)
    let refreshed = false
    for (;;) {
      const remaining = Math.max(0, deadline - Date.now())
      const waitMs = options.signal?.aborted ? 0 : Math.min(remaining, HELD_FETCH_SLICE_MS)
      const retry = await this.fetchOnce(pending, results, options.maxBytes, waitMs, !refreshed)
      if (retry.length > 0 && !refreshed) {
        refreshed = true
        await this.metadata.refresh(retry.map((entry) => entry.request.topic))
        pending.splice(0, pending.length, ...retry)
        continue
      }
      for (const entry of retry) results[entry.index] = this.errorResult(entry.request, 'NOT_LEADER_OR_FOLLOWER', 'the partition leader moved; metadata refreshed')
      const anything = results.some((r) => r !== undefined && (!r.ok || r.records.byteLength > 0 || r.divergingEpoch !== null))
      if (anything || remaining <= waitMs || options.signal?.aborted) break
      // Nothing yet for anyone: wait again (a fresh fetch, so the answer is as of its moment).
      if (waitMs === 0) await sleep(Math.min(remaining, 50), options.signal)
      pending.splice(0, pending.length, ...requests.map((request, index) => ({ request, index })))
      refreshed = false
    }
    return results.map((result, index) => result ?? this.errorResult(requests[index]!, 'SOURCE_UNAVAILABLE', 'no answer'))
  }

  private errorResult(request: FetchPartitionRequest, code: FetchError, message: string): FetchPartitionResult {
    return { ok: false, topic: request.topic, partition: request.partition, error: { code, message } }
  }

  /** One Fetch per leader; fills `results`; returns the entries worth retrying after a metadata refresh. */
  private async fetchOnce(
    entries: Array<{ request: FetchPartitionRequest; index: number }>,
    results: Array<FetchPartitionResult | undefined>,
    maxBytes: number,
    maxWaitMs: number,
    mayRetry: boolean,
  ): Promise<Array<{ request: FetchPartitionRequest; index: number }>> {
    await this.metadata.ensure(entries.map((e) => e.request.topic))
    const byLeader = new Map<number, Array<{ request: FetchPartitionRequest; index: number; leaderEpoch: number }>>()
    for (const entry of entries) {
      const partition = this.metadata.cached(entry.request)
      if (!partition) {
        results[entry.index] = this.errorResult(entry.request, 'UNKNOWN_TOPIC_OR_PARTITION', `${entry.request.topic}-${entry.request.partition} does not exist`)
        continue
      }
      if (partition.leader < 0) {
        results[entry.index] = this.errorResult(entry.request, 'LEADER_NOT_AVAILABLE', `${entry.request.topic}-${entry.request.partition} has no leader`)
        continue
      }
      const list = byLeader.get(partition.leader) ?? []
      list.push({ ...entry, leaderEpoch: partition.leaderEpoch })
      byLeader.set(partition.leader, list)
    }
    const retry: Array<{ request: FetchPartitionRequest; index: number }> = []
    // A Fetch names each partition once: a partition asked for twice in one call goes into a second request.
    const requestsOf = (list: Array<{ request: FetchPartitionRequest; index: number; leaderEpoch: number }>) => {
      const rounds: Array<typeof list> = []
      for (const entry of list) {
        let round = rounds.find((r) => !r.some((e) => sameTopicPartition(e.request, entry.request)))
        if (!round) rounds.push((round = []))
        round.push(entry)
      }
      return rounds
    }
    await Promise.all(
      [...byLeader].flatMap(([leader, all]) => requestsOf(all).map((list) => [leader, list] as const)).map(async ([leader, list]) => {
        const topics = new Map<string, FetchPartitionSpec[]>()
        for (const { request, leaderEpoch } of list) {
          const specs = topics.get(request.topic) ?? []
          specs.push({ partition: request.partition, currentLeaderEpoch: leaderEpoch, fetchOffset: request.fetchOffset, lastFetchedEpoch: request.lastFetchedEpoch, maxBytes: request.maxBytes })
          topics.set(request.topic, specs)
        }
        const response = await this.connection.send(
          leader,
          fetchRequest({ maxWaitMs, maxBytes, isolationLevel: ISOLATION_LEVEL.read_uncommitted, topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) }),
        )
        if (response.errorCode !== 0) throw new ClusterError('SOURCE_UNAVAILABLE', `fetch from broker ${leader}: ${errorName(response.errorCode)}`)
        const answers = new TopicPartitionMap<FetchedPartition>()
        for (const topic of response.topics) for (const p of topic.partitions) answers.set({ topic: topic.topic, partition: p.partition }, p)
        for (const entry of list) {
          const { request } = entry
          const answer = answers.get(request)
          if (!answer) {
            results[entry.index] = this.errorResult(request, 'SOURCE_UNAVAILABLE', 'the broker did not answer for this partition')
            continue
          }
          const name = errorName(answer.errorCode)
          if (name !== 'NONE' && mayRetry && RETRY_AFTER_METADATA.has(name)) {
            retry.push({ request, index: entry.index })
            continue
          }
          results[entry.index] = await this.toResult(request, answer, entry.leaderEpoch)
        }
      }),
    )
    return retry
  }

  private async toResult(request: FetchPartitionRequest, answer: FetchedPartition, leaderEpoch: number): Promise<FetchPartitionResult> {
    const { topic, partition } = request
    const name = errorName(answer.errorCode)
    if (name === 'OFFSET_OUT_OF_RANGE') {
      const offsets = (await this.offsets.of([request])).get(request)!
      return { ok: false, topic, partition, error: { code: 'OFFSET_OUT_OF_RANGE', message: `offset ${request.fetchOffset} is outside ${offsets.logStartOffset}..${offsets.logEndOffset}` }, logStartOffset: offsets.logStartOffset, logEndOffset: offsets.logEndOffset }
    }
    if (name !== 'NONE') return this.errorResult(request, fetchErrorCode(name), `the broker answered ${name}`)
    const base = { ok: true as const, topic, partition, highWatermark: answer.highWatermark, lastStableOffset: answer.lastStableOffset, logStartOffset: answer.logStartOffset, leaderEpoch }
    if (answer.divergingEpoch !== null) {
      return { ...base, records: new Uint8Array(0), divergingEpoch: answer.divergingEpoch, nextRecordTimestamp: null }
    }
    const { records, nextOffset, partialBaseTimestamp } = wholeBatches(answer.records)
    let nextRecordTimestamp: number | null = null
    const next = nextOffset ?? request.fetchOffset
    if (next < answer.highWatermark) nextRecordTimestamp = partialBaseTimestamp ?? (await this.timestampAt(request, next))
    return { ...base, records, divergingEpoch: null, nextRecordTimestamp }
  }

  /** The first timestamp of the batch holding `offset` (a one-batch fetch): how old the first unmirrored record is. */
  private async timestampAt(tp: TopicPartition, offset: number): Promise<number | null> {
    const partition = this.metadata.cached(tp)
    if (!partition) return null
    try {
      const response = await this.connection.send(
        partition.leader,
        fetchRequest({ maxWaitMs: 0, maxBytes: 1, isolationLevel: ISOLATION_LEVEL.read_uncommitted, topics: [{ topic: tp.topic, partitions: [{ partition: tp.partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: 1 }] }] }),
      )
      const answer = response.topics[0]?.partitions[0]
      if (!answer || answer.errorCode !== 0) return null
      return wholeBatches(answer.records).firstBaseTimestamp
    } catch {
      return null
    }
  }

  async endOffsetForEpoch(tp: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset> {
    if (leaderEpoch < 0) return UNDEFINED_EPOCH_END_OFFSET
    for (let attempt = 0; ; attempt++) {
      await this.metadata.ensure([tp.topic])
      const partition = this.metadata.cached(tp)
      if (!partition) throw new ClusterError('NOT_FOUND', `${tp.topic}-${tp.partition} does not exist`, { details: { topic: tp.topic, partition: tp.partition } })
      const [answer] = await this.connection.send(partition.leader, offsetForLeaderEpochRequest([{ topic: tp.topic, partitions: [{ partition: tp.partition, leaderEpoch }] }]))
      const name = errorName(answer?.errorCode ?? -1)
      if (answer && name === 'NONE') return { leaderEpoch: answer.leaderEpoch, endOffset: answer.endOffset }
      if (attempt === 0 && RETRY_AFTER_METADATA.has(name)) {
        await this.metadata.refresh([tp.topic])
        continue
      }
      throw new ClusterError(name === 'UNKNOWN_TOPIC_OR_PARTITION' ? 'NOT_FOUND' : 'SOURCE_UNAVAILABLE', `OffsetForLeaderEpoch ${tp.topic}-${tp.partition}: ${name}`)
    }
  }

  async listGroupOffsets(): Promise<GroupOffsets[]> {
    const { admin } = this.connection
    const { groups } = await admin.listGroups()
    const ids = groups.filter((g) => g.protocolType === 'consumer' || g.protocolType === '').map((g) => g.groupId)
    if (ids.length === 0) return []
    const described = await admin.describeGroups(ids)
    return Promise.all(
      described.groups.map(async (group) => {
        const topics = await admin.fetchOffsets({ groupId: group.groupId })
        return {
          groupId: group.groupId,
          hasActiveMembers: group.members.length > 0,
          offsets: topics.flatMap(({ topic, partitions }) =>
            partitions.filter((p) => Number(p.offset) >= 0).map((p) => ({ topic, partition: p.partition, offset: Number(p.offset), leaderEpoch: null })),
          ),
        }
      }),
    )
  }

  /**
   * The mirrors this cluster hosts as a destination, from its own state topic (kafka-state-topic.ts) once the
   * cluster's MirrorHost side gave it; a cluster without one hosts none.
   */
  async listHostedMirrors(filter?: { topics?: string[] }): Promise<HostedMirror[]> {
    if (!this.hostedState) return []
    await this.hostedState.catchUp()
    return this.hostedState.view.hostedMirrors(filter)
  }

  async lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Promise<Map<string, LastMirrorPosition>> {
    if (!this.hostedState) return new Map()
    await this.hostedState.catchUp()
    return this.hostedState.view.lastMirrorPositions(sourceClusterId, partitions)
  }

  /** Gives emulated mirror topics the topic id they keep (describeTopics). */
  reportMirrorTopicIdsFrom(overlay: (described: TopicDescription[]) => Promise<TopicDescription[]>): void {
    this.mirrorTopicIds = overlay
  }

  /** Answers hosted mirrors and last mirror positions from this cluster's state topic. */
  answerHostedMirrorsFrom(state: KafkaStateTopic): void {
    this.hostedState = state
  }
}
