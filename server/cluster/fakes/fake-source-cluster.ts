import 'server-only'
import { TopicPartitionMap, topicPartitionName, type TopicPartition } from '@/lib/mirror/topic-partition'
import { splitBatches } from '@/lib/log/record-batch'
import type { RecordInput } from '@/lib/log/types'
import { TimeSlice } from '@/server/util/cooperative'
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
} from '../ports'
import { FakeTopics } from './fake-topics'

type FetchErrorCode = Extract<FetchPartitionResult, { ok: false }>['error']['code']

/**
 * A SourceCluster in memory, as Kafka's MockLeaderEndPoint is for its fetcher tests: topics with real
 * record batches, answered at once (a `maxWaitMs` never waits), with the faults a test sets — the whole
 * cluster unreachable, or one partition's next fetch answering an error. What it hosts as a destination
 * (listHostedMirrors, lastMirrorPositions) is what the test sets in `hostedMirrors` and `positions`.
 */
export class FakeSourceCluster implements SourceCluster {
  readonly state: FakeTopics
  id: string
  unreachable = false
  hostedMirrors: HostedMirror[] = []
  readonly positions = new TopicPartitionMap<LastMirrorPosition>()
  /** Every fetch request in the order received, for tests that check what the engine asked for. */
  readonly fetches: FetchPartitionRequest[][] = []
  private readonly pendingErrors = new TopicPartitionMap<FetchErrorCode>()
  private clock: () => number

  constructor(
    readonly name: string,
    options: { clusterId?: string; state?: FakeTopics; now?: () => number } = {},
  ) {
    this.id = options.clusterId ?? `${name}-cluster-id`
    this.state = options.state ?? new FakeTopics(name)
    this.clock = options.now ?? Date.now
  }

  // TEST CONTROLS

  createTopic(name: string, partitions: number, configs?: Record<string, string>): void {
    this.state.create({ name, partitions, configs })
  }

  produce(topicPartition: TopicPartition, values: string[], options: { producerId?: number; producerEpoch?: number; transactional?: boolean } = {}): void {
    const records: RecordInput[] = values.map((value) => ({ value }))
    this.state.log(topicPartition).appendRecords(records, { timestamp: this.clock(), ...options })
  }

  /** A new leader for the partition, in a higher epoch (what an election at the source does). */
  electLeader(topicPartition: TopicPartition, leader: number): void {
    const log = this.state.log(topicPartition)
    log.leader = leader
    log.leaderEpoch += 1
  }

  /** The partition's next fetch answers `code` instead of data. */
  failNextFetch(topicPartition: TopicPartition, code: FetchErrorCode): void {
    this.pendingErrors.set(topicPartition, code)
  }

  // SourceCluster

  async clusterId(): Promise<string> {
    this.reach()
    return this.id
  }

  async describeTopics(topics?: string[]): Promise<TopicDescription[]> {
    this.reach()
    return this.state.describe(topics)
  }

  async fetch(partitions: FetchPartitionRequest[], options: FetchOptions): Promise<FetchPartitionResult[]> {
    this.reach()
    this.fetches.push(partitions)
    let budget = options.maxBytes
    const results: FetchPartitionResult[] = []
    // Answered a slice at a time, as a broker serves a request while others run: the fake must not hold the
    // event loop for a 100,000-partition fetch that a real source answers over the network.
    const slice = new TimeSlice()
    for (const request of partitions) {
      const turn = slice.maybeYield()
      if (turn) await turn
      const result = this.fetchOne(request, Math.max(0, Math.min(request.maxBytes, budget)))
      if (result.ok) budget -= result.records.byteLength
      results.push(result)
    }
    return results
  }

  async endOffsetForEpoch(topicPartition: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset> {
    this.reach()
    return this.state.log(topicPartition).endOffsetForEpoch(leaderEpoch)
  }

  async describePartition(topicPartition: TopicPartition): Promise<PartitionDescription> {
    this.reach()
    return this.state.log(topicPartition).describe(topicPartition.partition)
  }

  async listGroupOffsets(): Promise<GroupOffsets[]> {
    this.reach()
    return this.state.groupOffsets()
  }

  async listHostedMirrors(filter: { topics?: string[] } = {}): Promise<HostedMirror[]> {
    this.reach()
    const wanted = filter.topics ? new Set(filter.topics) : null
    return this.hostedMirrors.filter((mirror) => !wanted || mirror.topics.some((topic) => wanted.has(topic)))
  }

  async lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Promise<Map<string, LastMirrorPosition>> {
    this.reach()
    const answer = new Map<string, LastMirrorPosition>()
    if (!this.hostedMirrors.some((mirror) => mirror.sourceClusterId === sourceClusterId)) return answer
    for (const tp of partitions) {
      const position = this.positions.get(tp)
      if (position) answer.set(topicPartitionName(tp), position)
    }
    return answer
  }

  private fetchOne(request: FetchPartitionRequest, maxBytes: number): FetchPartitionResult {
    const { topic, partition } = request
    const fail = (code: FetchErrorCode, message: string, range?: { logStartOffset: number; logEndOffset: number }) => failedFetch(topic, partition, code, message, range)
    const injected = this.pendingErrors.get(request)
    if (injected) {
      this.pendingErrors.delete(request)
      return fail(injected, `injected ${injected}`)
    }
    const log = this.state.topics.get(topic)?.logs[partition]
    if (!log) return fail('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${partition} does not exist in ${this.name}`)
    if (log.leader < 0) return fail('LEADER_NOT_AVAILABLE', `${topic}-${partition} has no leader`)
    const range = { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset }
    const base = { ok: true as const, topic, partition, highWatermark: log.logEndOffset, lastStableOffset: log.describe(partition).lastStableOffset, logStartOffset: log.logStartOffset, leaderEpoch: log.leaderEpoch }
    if (request.lastFetchedEpoch >= 0) {
      // KIP-320: the caller's history is a prefix of ours only if its last epoch ends where we say it does.
      const answer = log.endOffsetForEpoch(request.lastFetchedEpoch)
      if (answer.leaderEpoch < 0 && log.logEndOffset > log.logStartOffset) return fail('OFFSET_OUT_OF_RANGE', `epoch ${request.lastFetchedEpoch} is unknown to ${topic}-${partition}`, range)
      if (answer.leaderEpoch >= 0 && (answer.leaderEpoch < request.lastFetchedEpoch || answer.endOffset < request.fetchOffset)) {
        return { ...base, records: new Uint8Array(0), divergingEpoch: answer, nextRecordTimestamp: null }
      }
    }
    if (request.fetchOffset < log.logStartOffset || request.fetchOffset > log.logEndOffset) {
      return fail('OFFSET_OUT_OF_RANGE', `offset ${request.fetchOffset} is outside [${log.logStartOffset}, ${log.logEndOffset}] of ${topic}-${partition}`, range)
    }
    const records = maxBytes > 0 || request.fetchOffset === log.logEndOffset ? log.read(request.fetchOffset, maxBytes) : new Uint8Array(0)
    const returnedUpTo = records.byteLength === 0 ? request.fetchOffset : splitBatches(records).at(-1)!.header.lastOffset + 1
    return { ...base, records, divergingEpoch: null, nextRecordTimestamp: log.timestampAt(returnedUpTo) }
  }

  private reach(): void {
    if (this.unreachable) throw new ClusterError('SOURCE_UNAVAILABLE', `${this.name} is unreachable`)
  }
}

function failedFetch(topic: string, partition: number, code: FetchErrorCode, message: string, range?: { logStartOffset: number; logEndOffset: number }): FetchPartitionResult {
  return { ok: false, topic, partition, error: { code, message }, ...range }
}
