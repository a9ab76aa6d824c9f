import 'server-only'
import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { formatReplicationOffsetCheckpoint } from '@/lib/log/replication-offset-checkpoint'
import { copyPlan, LogCopies, type CopyPlan, type LogCopyOutcome } from '@/server/storage/log-copy'
import type { LogCloseState, LogFileSnapshot } from '@/server/storage/types'
import { yieldToEventLoop } from '@/server/util/cooperative'
import { writeFileDurablyAsync } from '@/server/util/durable-file'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import type { ClusterDirectory } from './cluster-directory'
import { REPLICATION_OFFSET_CHECKPOINT_FILE } from './high-watermarks'
import { partitionDirName, type ClusterMetadata, type TopicMetadata } from './metadata'

/**
 * A new one-broker cluster directory holding copies of some partitions of this cluster (a drill's sandbox,
 * server/drills/), openable with `EmbeddedCluster.open(dir, { brokers: 1 })`. Each partition is copied from
 * its leader replica as it was at one instant (storage/log-copy.ts, on a worker thread: sealed segments hard-linked, the active one
 * copied to its size then, producer-state snapshots and leader-epoch checkpoint included), its topic as it is
 * (id, configs, read-only flag, mirror), its leader epoch as the metadata has it. The instant is each
 * partition's own: its snapshot is taken synchronously, so no append falls between its offsets and its files;
 * the event loop gets a turn every CAPTURES_PER_TURN partitions.
 */

export interface CopiedPartition extends TopicPartition {
  /** The partition's offsets in the copy: the original's at the instant of its snapshot. */
  readonly logStartOffset: number
  readonly logEndOffset: number
  readonly highWatermark: number
  readonly leaderEpoch: number
  /** When its snapshot was taken (the cluster's clock). */
  readonly copiedAt: number
  readonly filesLinked: number
  readonly bytesCopied: number
  /** The copy's replica directory (broker 1), where the cluster opened on the copy finds its log. */
  readonly dir: string
  /**
   * The original's state at the snapshot, as a clean close then would have written it: handed to the copy's open
   * (PartitionLogConfig.closeState), the copy opens without scanning its active segment or replaying producer state.
   */
  readonly closeState: LogCloseState | undefined
}

const BROKER = 1

/**
 * Partitions captured per turn of the event loop, their copy plans handed to the copy's worker as each turn ends
 * (it copies them while the next are captured). A capture is synchronous (its offsets, sizes and the state a clean
 * close would write, from memory, at one instant: no append falls between them), ~30–70 µs of CPU each (the
 * active segment's indexes encoded, producer state and epochs copied), and 2,000 of them with their plans in one
 * turn were the drill's longest stall of the server's event loop: 133 ms of main-thread CPU in a drill alone (a
 * CPU profile laid over the stall meter's long turns, `BENCH_STALL_LOG`, session 23). Each partition's instant was
 * already its own (`copiedAt`; mirroring appends between partitions), so a turn between captures changes nothing
 * a copy promises. A count, not a time budget: the same partitions per turn at any load, and few turns — at load
 * each turn also waits for production's callbacks queued meanwhile.
 */
export const CAPTURES_PER_TURN = 128

export async function copyPartitions(directory: ClusterDirectory, targetDir: string, partitions: readonly TopicPartition[]): Promise<CopiedPartition[]> {
  directory.ensureReachable()
  const topics: Record<string, TopicMetadata> = {}
  const captured: Array<{ tp: TopicPartition; snapshot: LogFileSnapshot; leaderEpoch: number; at: number; dir: string }> = []
  // Every log's files on a worker thread of its own (log-copy.ts LogCopies), in the order they were captured.
  const copies = new LogCopies()
  try {
    let plans: CopyPlan[] = []
    for (const [index, tp] of partitions.entries()) {
      if (index > 0 && index % CAPTURES_PER_TURN === 0) {
        copies.add(plans)
        plans = []
        await yieldToEventLoop()
      }
      const partition = directory.requirePartition(tp)
      const topic = directory.requireTopic(tp.topic)
      const leader = partition.metadata.leader
      const log = leader < 0 ? undefined : partition.replicaLog(leader)
      if (log === undefined) throw new ClusterError('LEADER_NOT_AVAILABLE', `${partitionDirName(tp.topic, tp.partition)} of ${directory.name} has no leader to copy from`, { details: { ...tp } })
      if (log.fileSnapshot === undefined) throw new ClusterError('VALIDATION_FAILED', `the log of ${partitionDirName(tp.topic, tp.partition)} cannot be copied`)
      const snapshot = log.fileSnapshot()
      const dir = path.resolve(targetDir, `broker-${BROKER}`, partitionDirName(tp.topic, tp.partition))
      captured.push({ tp, snapshot, leaderEpoch: partition.metadata.leaderEpoch, at: directory.clock.now(), dir })
      plans.push(copyPlan(snapshot, dir))
      const copy = (topics[topic.name] ??= { ...topic, configs: { ...topic.configs }, replicationFactor: 1, partitions: [] })
      copy.partitions.push({ partition: tp.partition, replicas: [BROKER], leader: BROKER, isr: [BROKER], leaderEpoch: partition.metadata.leaderEpoch })
    }
    copies.add(plans)
  } catch (error) {
    copies.abort()
    throw error
  }
  const outcomes: LogCopyOutcome[] = await copies.finish()
  // Built field by field, a turn every few hundred: 2,000 spreads of the worker's outcomes were 40 ms of one turn.
  const copied: CopiedPartition[] = []
  for (const [index, { tp, snapshot, leaderEpoch, at, dir }] of captured.entries()) {
    if (index > 0 && index % (4 * CAPTURES_PER_TURN) === 0) await yieldToEventLoop()
    const outcome = outcomes[index]!
    copied.push({
      topic: tp.topic,
      partition: tp.partition,
      logStartOffset: snapshot.logStartOffset,
      logEndOffset: snapshot.logEndOffset,
      highWatermark: snapshot.highWatermark,
      leaderEpoch,
      copiedAt: at,
      filesLinked: outcome.filesLinked,
      bytesCopied: outcome.bytesCopied,
      dir,
      closeState: snapshot.closeState,
    })
  }
  await writeCopyMetadata(targetDir, topics, copied)
  return copied
}

async function writeCopyMetadata(targetDir: string, topics: Record<string, TopicMetadata>, highWatermarks: ReadonlyArray<{ topic: string; partition: number; highWatermark: number }>): Promise<void> {
  const metadata: ClusterMetadata = { version: 1, clusterId: randomBytes(16).toString('base64url'), brokerIds: [BROKER], topics }
  await mkdir(path.join(targetDir, `broker-${BROKER}`), { recursive: true })
  const entries = highWatermarks.map(({ topic, partition, highWatermark }) => ({ topic, partition, highWatermark }))
  await writeFileDurablyAsync(path.join(targetDir, `broker-${BROKER}`, REPLICATION_OFFSET_CHECKPOINT_FILE), formatReplicationOffsetCheckpoint(entries))
  // Last: a directory without metadata.json is no cluster, so a copy cut short by a crash never opens as one.
  await writeFileDurablyAsync(path.join(targetDir, 'metadata.json'), JSON.stringify(metadata))
}

/** A mirror topic of an empty copy: its id, configs and mirror, and the partitions it holds with their leader epochs. */
export interface EmptyCopyTopic {
  readonly name: string
  readonly topicId: string
  readonly configs: Record<string, string>
  readonly mirror: string
  readonly partitions: ReadonlyArray<{ readonly partition: number; readonly leaderEpoch: number }>
}

/**
 * A one-broker cluster directory with these read-only mirror topics and empty logs (a drill's sandbox of a
 * destination whose files cannot be copied: a Kafka cluster, whose batches are then appended as mirrored).
 */
export async function createEmptyCopy(targetDir: string, copies: readonly EmptyCopyTopic[]): Promise<void> {
  const topics: Record<string, TopicMetadata> = {}
  for (const topic of copies) {
    topics[topic.name] = {
      name: topic.name,
      topicId: topic.topicId,
      internal: false,
      replicationFactor: 1,
      configs: { ...topic.configs },
      readOnly: true,
      mirror: { name: topic.mirror },
      partitions: topic.partitions.map(({ partition, leaderEpoch }) => ({ partition, replicas: [BROKER], leader: BROKER, isr: [BROKER], leaderEpoch })),
    }
  }
  await writeCopyMetadata(targetDir, topics, [])
}
