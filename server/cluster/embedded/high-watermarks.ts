import 'server-only'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { formatReplicationOffsetCheckpoint, parseReplicationOffsetCheckpoint, type ReplicaHighWatermark } from '@/lib/log/replication-offset-checkpoint'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { TimeSlice, yieldToEventLoop } from '@/server/util/cooperative'
import { readFileIfExists, writeFileDurablyAsync } from '@/server/util/durable-file'
import type { ReplicatedPartition } from './replicated-partition'

export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint'
/** Kafka's `replica.high.watermark.checkpoint.interval.ms`. */
export const HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = 5_000

/** A replica's high watermark, with the broker that hosts it. */
export interface BrokerReplicaHighWatermark extends ReplicaHighWatermark {
  readonly brokerId: number
}

/** The high watermark of every open replica log of `partition`. */
export function replicaHighWatermarks(partition: ReplicatedPartition): BrokerReplicaHighWatermark[] {
  const out: BrokerReplicaHighWatermark[] = []
  for (const brokerId of partition.metadata.replicas) {
    const log = partition.replicaLog(brokerId)
    if (log) out.push({ brokerId, topic: partition.topic, partition: partition.partition, highWatermark: log.highWatermark })
  }
  return out
}

/**
 * Each broker's high watermarks in one file, `broker-N/replication-offset-checkpoint`, as Kafka's ReplicaManager
 * keeps them per log directory: written every 5 s when one moved and at a clean close, read when a replica log
 * opens. The logs write no checkpoint of their own (PartitionLogConfig.highWatermarkCheckpointIntervalMs null):
 * one file per partition per change was 10,000 files, 20,000 fsyncs, in the second after a 10,000-partition
 * failover, and the fsyncs of the failover's own markers queued behind them.
 *
 * A file lost, torn or older than the logs costs only a lower high watermark after a crash, which replication
 * re-establishes (a leader's resume recomputes it from its ISR); one above a log's end is cut to it on open.
 * Every replica is read at every interval, as Kafka does, rather than only those marked changed: a high
 * watermark lowered by a truncation and missed would come back too high after a crash. A stopped broker's file
 * stays as last written, as a crashed broker's would.
 *
 * The periodic write shares the event loop with requests: the replicas are read a time slice at a time, the
 * lines keep the partitions' order (nothing sorted), and the lookup the logs open with is parsed only when one
 * opens (a broker start, the cluster's open), not after every write.
 */
export class HighWatermarkCheckpoints {
  /** Per broker: the lookup a replica log opens with (HW by partition); parsed from `text` when first asked. */
  private readonly held = new Map<number, TopicPartitionMap<number>>()
  /** Per broker: the checkpoint as last written (or read), so an unchanged one is not written again. */
  private readonly text = new Map<number, string>()
  private lastCheckpointAt: number
  private inFlight: Promise<void> | null = null

  constructor(
    private readonly clusterDir: string,
    now: number,
  ) {
    this.lastCheckpointAt = now
  }

  private file(brokerId: number): string {
    return path.join(this.clusterDir, `broker-${brokerId}`, REPLICATION_OFFSET_CHECKPOINT_FILE)
  }

  /** The high watermark `brokerId`'s checkpoint holds for a replica, or null when it lists none. */
  checkpointed(brokerId: number, topic: string, partition: number): number | null {
    return this.lookup(brokerId).get({ topic, partition }) ?? null
  }

  private lookup(brokerId: number): TopicPartitionMap<number> {
    let held = this.held.get(brokerId)
    if (held) return held
    held = new TopicPartitionMap()
    let text = this.text.get(brokerId)
    if (text === undefined) {
      text = readFileIfExists(this.file(brokerId))?.toString('utf8')
      if (text !== undefined) this.text.set(brokerId, text)
    }
    if (text !== undefined) {
      try {
        for (const entry of parseReplicationOffsetCheckpoint(text)) held.set(entry, entry.highWatermark)
      } catch {
        // A torn checkpoint is no checkpoint: each log falls back to its own file, or to 0.
      }
    }
    this.held.set(brokerId, held)
    return held
  }

  /**
   * Writes the checkpoints when the interval has passed since the last (the cluster's tick calls it); one write
   * at a time, in the background lane of durable writes.
   */
  maybeCheckpoint(now: number, partitions: () => Iterable<ReplicatedPartition>): void {
    if (this.inFlight || now - this.lastCheckpointAt < HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS) return
    this.lastCheckpointAt = now
    this.inFlight = this.collect(partitions())
      .then((entries) => this.write(entries))
      .catch(() => {
        // The next interval writes again; until then a crash only costs a lower high watermark.
      })
      .finally(() => {
        this.inFlight = null
      })
  }

  /** Writes every broker's checkpoint from `entries` (the high watermarks of its open replicas), awaited (cluster close). */
  async checkpointNow(entries: BrokerReplicaHighWatermark[]): Promise<void> {
    while (this.inFlight) await this.inFlight
    await this.write(entries)
  }

  private async collect(partitions: Iterable<ReplicatedPartition>): Promise<BrokerReplicaHighWatermark[]> {
    const entries: BrokerReplicaHighWatermark[] = []
    const slice = new TimeSlice()
    for (const partition of partitions) {
      const turn = slice.maybeYield()
      if (turn) await turn
      for (const entry of replicaHighWatermarks(partition)) entries.push(entry)
    }
    return entries
  }

  private async write(entries: BrokerReplicaHighWatermark[]): Promise<void> {
    const byBroker = new Map<number, BrokerReplicaHighWatermark[]>()
    for (const entry of entries) {
      let list = byBroker.get(entry.brokerId)
      if (!list) byBroker.set(entry.brokerId, (list = []))
      list.push(entry)
    }
    for (const [brokerId, list] of byBroker) {
      await yieldToEventLoop()
      const text = formatReplicationOffsetCheckpoint(list)
      if (this.text.get(brokerId) === text) continue
      const file = this.file(brokerId)
      await mkdir(path.dirname(file), { recursive: true })
      await writeFileDurablyAsync(file, text, { logWrite: true })
      this.text.set(brokerId, text)
      this.held.delete(brokerId)
    }
  }
}
