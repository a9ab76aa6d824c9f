import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { TimeSlice } from '@/server/util/cooperative'
import { ClusterError } from '../errors'
import type { FetchOptions, FetchPartitionRequest, FetchPartitionResult, FetchSession, TopicPartition } from '../ports'
import { isInteger, type ClusterDirectory } from './cluster-directory'
import type { TopicMetadata } from './metadata'
import type { ReplicatedPartition } from './replicated-partition'
import { isQuietResult, validateFetchRequest, validFetchOptions, type SourceFetch } from './source-fetch'

/**
 * A partition's fetch position can move without an append the session hears of (the log start advanced by
 * retention or deleteRecords, a leader epoch bumped): once in this long a call compares every partition's
 * high watermark, log start offset and leader epoch with what it last answered.
 */
export const SESSION_SWEEP_INTERVAL_MS = 5_000
/** A session not called for this long is evicted (its fetcher went away), as Kafka's fetch session cache does. */
export const SESSION_IDLE_EVICTION_MS = 120_000

interface Member {
  request: FetchPartitionRequest
  partition: ReplicatedPartition | undefined
  /** What the session last answered for it; null before its first answer or after an error. */
  answered: { highWatermark: number; logStartOffset: number; leaderEpoch: number } | null
}

/**
 * KIP-227's incremental fetch session on the embedded source (FetchSession in ports.ts). The directory tells
 * every open session when one of its partitions became fetchable (an append moved the high watermark, a new
 * leader): only those partitions, the ones the call names, and those a periodic sweep finds moved are
 * answered, so an idle session costs a Set lookup per append and a held call waits without passing over its
 * partitions at all.
 */
export class EmbeddedFetchSession implements FetchSession {
  private readonly members = new TopicPartitionMap<Member>()
  private readonly byPartition = new Map<ReplicatedPartition, Member>()
  private readonly byTopic = new Map<string, { metadata: TopicMetadata | undefined; members: Set<Member> }>()
  private readonly changed = new Set<Member>()
  private endWait: (() => void) | null = null
  private closed = false
  private lastSweepAt: number
  lastUsedAt: number

  constructor(
    private readonly directory: ClusterDirectory,
    private readonly answers: SourceFetch,
  ) {
    this.lastSweepAt = directory.clock.now()
    this.lastUsedAt = this.lastSweepAt
    for (const session of directory.fetchSessions) {
      if (this.lastUsedAt - session.lastUsedAt >= SESSION_IDLE_EVICTION_MS) session.close()
    }
    directory.fetchSessions.add(this)
  }

  get isOpen(): boolean {
    return !this.closed && !this.directory.closed
  }

  close(): void {
    this.closed = true
    this.directory.fetchSessions.delete(this)
    this.endWait?.()
  }

  /** Called by the directory for every open session: the partition may have something to answer. */
  partitionChanged(partition: ReplicatedPartition): void {
    const member = this.byPartition.get(partition)
    if (member === undefined) return
    this.changed.add(member)
    this.endWait?.()
  }

  async fetch(changes: { partitions: FetchPartitionRequest[]; forget: TopicPartition[] }, options: FetchOptions): Promise<FetchPartitionResult[]> {
    if (!Array.isArray(changes?.partitions) || !Array.isArray(changes.forget)) throw new ClusterError('VALIDATION_FAILED', 'a fetch session call needs partitions and forget arrays')
    const maxWaitMs = validFetchOptions(options)
    for (const request of changes.partitions) validateFetchRequest(request)
    for (const forgotten of changes.forget) {
      if (typeof forgotten?.topic !== 'string' || !isInteger(forgotten.partition, 0)) throw new ClusterError('VALIDATION_FAILED', `invalid partition to forget ${JSON.stringify(forgotten)}`)
    }
    if (!this.isOpen) throw new ClusterError('SOURCE_UNAVAILABLE', `the fetch session on ${this.directory.name} is closed`)
    this.lastUsedAt = this.directory.clock.now()
    for (const forgotten of changes.forget) this.remove(forgotten)
    const named = new Set<Member>()
    for (const request of changes.partitions) named.add(this.upsert(request))

    // The named partitions are answered whatever they hold, but only something else (records, a divergence, an
    // error, a partition that moved) ends the call before its wait: a fetcher naming quiet partitions waits.
    const first = await this.answerChanged(named, options.maxBytes)
    if (first.urgent || maxWaitMs === 0 || options.signal?.aborted || !this.isOpen) return [...first.answers.values()]
    if (this.changed.size === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, maxWaitMs)
        const signal = options.signal
        const endWait = () => done()
        function done() {
          clearTimeout(timer)
          signal?.removeEventListener('abort', endWait)
          resolve()
        }
        this.endWait = endWait
        signal?.addEventListener('abort', endWait, { once: true })
      })
      this.endWait = null
    }
    if (!this.isOpen) return [...first.answers.values()]
    // A named partition answered again after the wait is answered once, with the later answer.
    const second = await this.answerChanged(named, options.maxBytes)
    for (const [member, result] of second.answers) first.answers.set(member, result)
    return [...first.answers.values()]
  }

  private upsert(request: FetchPartitionRequest): Member {
    const existing = this.members.get(request)
    if (existing !== undefined) {
      existing.request = request
      this.changed.add(existing)
      return existing
    }
    const member: Member = { request, partition: this.directory.findPartition(request.topic, request.partition), answered: null }
    this.members.set(request, member)
    if (member.partition) this.byPartition.set(member.partition, member)
    let topic = this.byTopic.get(request.topic)
    if (topic === undefined) this.byTopic.set(request.topic, (topic = { metadata: this.directory.topicNamed(request.topic), members: new Set() }))
    topic.members.add(member)
    this.changed.add(member)
    return member
  }

  private remove(tp: TopicPartition): void {
    const member = this.members.get(tp)
    if (member === undefined) return
    this.members.delete(tp)
    if (member.partition) this.byPartition.delete(member.partition)
    this.changed.delete(member)
    const topic = this.byTopic.get(member.request.topic)
    topic?.members.delete(member)
    if (topic?.members.size === 0) this.byTopic.delete(member.request.topic)
  }

  /** Answers the changed members (and, rarely, all of them); keeps the answers with something to say. */
  private async answerChanged(named: ReadonlySet<Member>, maxBytes: number): Promise<{ answers: Map<Member, FetchPartitionResult>; urgent: boolean }> {
    const { directory } = this
    // An unreachable cluster, a deleted or recreated topic: every affected partition is answered (an error, or
    // the new topic's partition), as a full fetch would.
    if (!directory.isReachable()) for (const member of this.members.values()) this.changed.add(member)
    for (const [name, topic] of this.byTopic) {
      const metadata = directory.topicNamed(name)
      if (metadata === topic.metadata) continue
      topic.metadata = metadata
      for (const member of topic.members) {
        if (member.partition) this.byPartition.delete(member.partition)
        member.partition = directory.findPartition(member.request.topic, member.request.partition)
        if (member.partition) this.byPartition.set(member.partition, member)
        this.changed.add(member)
      }
    }
    const now = directory.clock.now()
    if (now - this.lastSweepAt >= SESSION_SWEEP_INTERVAL_MS) {
      this.lastSweepAt = now
      await this.sweep()
    }
    const answers = new Map<Member, FetchPartitionResult>()
    if (this.changed.size === 0) return { answers, urgent: false }
    const members = [...this.changed]
    this.changed.clear()
    const results = await this.answers.answer(
      members.map((member) => member.request),
      members.map((member) => member.partition),
      maxBytes,
    )
    let urgent = false
    results.forEach((result, index) => {
      const member = members[index]!
      const previous = member.answered
      const moved = !result.ok || previous === null || previous.highWatermark !== result.highWatermark || previous.logStartOffset !== result.logStartOffset || previous.leaderEpoch !== result.leaderEpoch
      member.answered = result.ok ? { highWatermark: result.highWatermark, logStartOffset: result.logStartOffset, leaderEpoch: result.leaderEpoch } : null
      const quiet = isQuietResult(result)
      if (!quiet || (moved && !named.has(member))) urgent = true
      if (named.has(member) || moved || !quiet) answers.set(member, result)
    })
    return { answers, urgent }
  }

  /** Marks every member whose leader's high watermark, log start offset or leader epoch moved since its last answer. */
  private async sweep(): Promise<void> {
    const slice = new TimeSlice()
    for (const member of this.members.values()) {
      const turn = slice.maybeYield()
      if (turn) await turn
      const { partition, answered } = member
      if (partition === undefined || answered === null) {
        this.changed.add(member)
        continue
      }
      try {
        const log = partition.leaderLog()
        if (log.highWatermark !== answered.highWatermark || log.logStartOffset !== answered.logStartOffset || partition.metadata.leaderEpoch !== answered.leaderEpoch) this.changed.add(member)
      } catch {
        // No leader now: the answer says so.
        this.changed.add(member)
      }
    }
  }
}
