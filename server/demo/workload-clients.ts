import 'server-only'
import { isClusterError } from '@/server/cluster/errors'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { ProduceRecord, TransactionalProducer } from '@/server/cluster/embedded/producers'

/**
 * The clients behind the demo's workloads, each a model of what an application in the source region does
 * with its cluster. `step(budget)` does up to `budget` records of work and says how many it did; the
 * workload (workloads.ts) decides the budget from its rate. A step that throws is retried at the next turn.
 */
export interface WorkloadClient {
  step(budget: number): Promise<number>
  close(): Promise<void>
  /** A consumer's records not yet read, as of its last reads; producers have none. */
  behindRecords?(): number | null
}

/** Largest number of records one produce call carries. */
const MAX_BATCH = 200

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!
}

/** Click events: fire-and-forget (acks=1), no producer id, many small records — the high-volume topic. */
export class PlainWriter implements WorkloadClient {
  private sequence = 0

  constructor(
    private readonly cluster: () => EmbeddedCluster,
    private readonly topic: string,
    private readonly random: () => number = Math.random,
  ) {}

  async step(budget: number): Promise<number> {
    const count = Math.min(budget, MAX_BATCH)
    const pages = ['/', '/cart', '/checkout', '/search', '/product']
    const records: ProduceRecord[] = Array.from({ length: count }, () => {
      this.sequence += 1
      return { key: `user-${Math.floor(this.random() * 500)}`, value: JSON.stringify({ page: pick(pages, this.random), n: this.sequence }) }
    })
    await this.cluster().produce(this.topic, { idempotent: false, acks: 'leader', records })
    return count
  }

  async close(): Promise<void> {}
}

/** Payments: idempotent producer (producer id + sequences), acks=all, keyed by account. */
export class IdempotentWriter implements WorkloadClient {
  private sequence = 0

  constructor(
    private readonly cluster: () => EmbeddedCluster,
    private readonly topic: string,
    private readonly random: () => number = Math.random,
  ) {}

  async step(budget: number): Promise<number> {
    const count = Math.min(budget, MAX_BATCH)
    const records: ProduceRecord[] = Array.from({ length: count }, () => {
      this.sequence += 1
      const cents = 100 + Math.floor(this.random() * 99_900)
      return { key: `account-${Math.floor(this.random() * 50)}`, value: JSON.stringify({ payment: this.sequence, cents }) }
    })
    await this.cluster().produce(this.topic, { idempotent: true, records })
    return count
  }

  async close(): Promise<void> {}
}

type Fate = 'commit' | 'abort' | 'holdOpen'

interface TransactionSlot {
  transactionalId: string
  producer: TransactionalProducer | null
  /** The partition the open transaction writes (one order's items stay together). */
  partition: number
  /** Records sent in the open transaction; 0 when none is open. */
  sent: number
  size: number
  fate: Fate
  /** For `holdOpen`: when the transaction finally commits. */
  holdUntil: number
}

export interface TransactionalWriterOptions {
  transactionalIds: readonly string[]
  random?: () => number
  now?: () => number
  /** How long a held-open transaction stays open, at least and at most. */
  holdOpenMs?: readonly [number, number]
}

/**
 * Orders: transactional producers that commit most transactions, abort some and leave some open for a while
 * (the open ones hold the last stable offset of their partition back and are what a failover must abort).
 * Each transaction writes one partition, as an order's items keyed by the order would. A producer that was
 * fenced or closed under it (a restart) is started again with the same transactional id, which aborts
 * whatever its predecessor left open, as Kafka's initTransactions does.
 */
export class TransactionalWriter implements WorkloadClient {
  private readonly slots: TransactionSlot[]
  private readonly random: () => number
  private readonly now: () => number
  private readonly holdOpenMs: readonly [number, number]
  private next = 0

  constructor(
    private readonly cluster: () => EmbeddedCluster,
    private readonly topic: string,
    options: TransactionalWriterOptions,
  ) {
    this.random = options.random ?? Math.random
    this.now = options.now ?? Date.now
    this.holdOpenMs = options.holdOpenMs ?? [3_000, 10_000]
    this.slots = options.transactionalIds.map((transactionalId) => ({ transactionalId, producer: null, partition: 0, sent: 0, size: 0, fate: 'commit', holdUntil: 0 }))
  }

  /** Counts of transaction endings, for tests and the workload's description. */
  readonly outcomes = { committed: 0, aborted: 0, heldOpen: 0 }

  private chooseFate(): Fate {
    const roll = this.random()
    return roll < 0.85 ? 'commit' : roll < 0.95 ? 'abort' : 'holdOpen'
  }

  async step(budget: number): Promise<number> {
    let done = 0
    for (let turns = 0; turns < this.slots.length && done < budget; turns++) {
      const slot = this.slots[this.next]!
      this.next = (this.next + 1) % this.slots.length
      done += await this.advance(slot, budget - done)
    }
    return done
  }

  private async advance(slot: TransactionSlot, budget: number): Promise<number> {
    try {
      slot.producer ??= await this.cluster().createTransactionalProducer(slot.transactionalId)
      const producer = slot.producer
      if (slot.sent === 0) {
        slot.size = 5 + Math.floor(this.random() * 20)
        slot.fate = this.chooseFate()
        const partitions = (await this.cluster().describeTopic(this.topic)).partitions.length
        slot.partition = Math.floor(this.random() * partitions)
      }
      if (slot.sent < slot.size) {
        const count = Math.min(budget, slot.size - slot.sent, MAX_BATCH)
        const records = Array.from({ length: count }, (_, i) => ({ key: `order-${slot.transactionalId}-${slot.partition}`, value: JSON.stringify({ item: slot.sent + i, txn: slot.transactionalId }) }))
        await producer.send(this.topic, { partition: slot.partition, records })
        slot.sent += count
        if (slot.sent >= slot.size && slot.fate === 'holdOpen') {
          const [low, high] = this.holdOpenMs
          slot.holdUntil = this.now() + low + Math.floor(this.random() * (high - low))
          this.outcomes.heldOpen += 1
        }
        return count
      }
      if (slot.fate === 'holdOpen' && this.now() < slot.holdUntil) return 0
      if (slot.fate === 'abort') {
        await producer.abort()
        this.outcomes.aborted += 1
      } else {
        await producer.commit()
        this.outcomes.committed += 1
      }
      slot.sent = 0
      return 0
    } catch (error) {
      // Fenced, closed or its transaction aborted by the coordinator: start over with a fresh epoch.
      if (isClusterError(error, 'INVALID_PRODUCER_EPOCH') || isClusterError(error, 'NOT_FOUND') || isClusterError(error, 'INVALID_TXN_STATE')) {
        slot.producer?.close()
        slot.producer = null
        slot.sent = 0
      }
      throw error
    }
  }

  /** Leaves open transactions open, as a process that exits does; the next start aborts them (same ids). */
  async close(): Promise<void> {
    for (const slot of this.slots) slot.producer?.close()
  }
}

/**
 * A consumer group member reading a topic at the source (read_committed, as transactional consumers do) and
 * committing its position about once a second, so the group's committed offsets trail the log a little:
 * offset sync and the failover's "groups behind" have something to show.
 */
export class GroupConsumer implements WorkloadClient {
  private memberId: string | null = null
  private positions: Map<number, number> | null = null
  private lastCommitAt = 0
  private readonly uncommitted = new Set<number>()
  /** Per partition: the last stable offset its last read saw minus the position after it. */
  private readonly behind = new Map<number, number>()

  constructor(
    private readonly cluster: () => EmbeddedCluster,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly now: () => number = Date.now,
    private readonly commitIntervalMs = 1_000,
  ) {}

  private async join(): Promise<{ memberId: string; positions: Map<number, number> }> {
    const cluster = this.cluster()
    // One stable member id: after a restart the consumer takes its old place instead of adding a member.
    this.memberId ??= await cluster.joinGroup(this.groupId, { memberId: `${this.groupId}-consumer-1` })
    if (this.positions === null) {
      const group = (await cluster.describeGroups()).find((candidate) => candidate.groupId === this.groupId)
      const positions = new Map<number, number>()
      for (const entry of group?.offsets ?? []) if (entry.topic === this.topic) positions.set(entry.partition, entry.offset)
      this.positions = positions
    }
    return { memberId: this.memberId, positions: this.positions }
  }

  async step(budget: number): Promise<number> {
    const cluster = this.cluster()
    const { memberId, positions } = await this.join()
    try {
      await cluster.heartbeat(this.groupId, memberId)
    } catch (error) {
      // The session expired while the cluster could not be reached: join again at the next turn.
      if (isClusterError(error, 'NOT_FOUND')) this.memberId = null
      throw error
    }
    const partitions = (await cluster.describeTopic(this.topic)).partitions.map((p) => p.partition)
    const share = Math.max(1, Math.ceil(budget / partitions.length))
    let consumed = 0
    for (const partition of partitions) {
      if (consumed >= budget) break
      const fromOffset = positions.get(partition) ?? 0
      const page = await this.readFrom(cluster, partition, fromOffset, Math.min(share, budget - consumed))
      const last = page.records.at(-1)
      const limit = Math.min(share, budget - consumed)
      // A full page ends at its last record; a short one reached the last stable offset (aborted data skipped).
      const next = page.records.length >= limit && last ? last.offset + 1 : Math.max(fromOffset, page.lastStableOffset)
      consumed += page.records.filter((record) => record.type === 'DATA').length
      this.behind.set(partition, Math.max(0, page.lastStableOffset - next))
      if (next !== fromOffset) {
        positions.set(partition, next)
        this.uncommitted.add(partition)
      }
    }
    if (this.uncommitted.size > 0 && this.now() - this.lastCommitAt >= this.commitIntervalMs) {
      const offsets = [...this.uncommitted].map((partition) => ({ topic: this.topic, partition, offset: positions.get(partition)! }))
      await cluster.commitOffsets(this.groupId, offsets, { memberId })
      this.uncommitted.clear()
      this.lastCommitAt = this.now()
    }
    return consumed
  }

  /**
   * A position outside the log (records deleted below it, or the log cut back by an unclean election) is
   * reset as Kafka's consumer does with auto.offset.reset: to the log start below it, to the log end above it
   * ("latest"); the next commit stores the reset position. Without this the consumer stalled for good.
   */
  private async readFrom(cluster: EmbeddedCluster, partition: number, fromOffset: number, limit: number) {
    const read = (offset: number) => cluster.readRecords(this.topic, partition, { fromOffset: offset, limit, isolation: 'read_committed' })
    try {
      return await read(fromOffset)
    } catch (error) {
      if (!isClusterError(error, 'OFFSET_OUT_OF_RANGE')) throw error
      // The refusal names the log's range (records-reader.ts).
      const range = error.details as { logStartOffset: number; logEndOffset: number }
      const reset = fromOffset < range.logStartOffset ? range.logStartOffset : range.logEndOffset
      this.positions?.set(partition, reset)
      this.uncommitted.add(partition)
      return read(reset)
    }
  }

  behindRecords(): number | null {
    if (this.behind.size === 0) return null
    let total = 0
    for (const records of this.behind.values()) total += records
    return total
  }

  /** Leaves the group, as a consumer that shuts down cleanly does (its committed offsets stay). */
  async close(): Promise<void> {
    if (this.memberId === null) return
    await this.cluster()
      .leaveGroup(this.groupId, this.memberId)
      .catch(() => undefined)
    this.memberId = null
  }
}
