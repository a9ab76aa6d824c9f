import 'server-only'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { EmulationNote } from '@/lib/api/mirrors'
import { splitBatches } from '@/lib/log/record-batch'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEmptyCopy } from '@/server/cluster/embedded/partition-copies'
import { PartitionLog } from '@/server/storage/partition-log'
import { removeTree } from '@/server/util/remove-tree'
import type { LogCloseState, PartitionLogConfig } from '@/server/storage/types'
import type { GroupOffsets, MirrorStateAppendEntry, SourceCluster, TopicDescription, TopicPartition } from '@/server/cluster/ports'

/**
 * A drill's sandbox: an embedded cluster of one broker, named after the drill, in a directory of its own, holding
 * a copy of the destination's mirror partitions taken at the mirrored point, the mirror's `__mirror_state`
 * records for them and the consumer groups' committed offsets on them. The drill's failover runs there
 * (sandbox-failover.ts) and its checks read and write there; it is removed when the drill ends.
 *
 * Two ways to fill it: an embedded destination's replica files are copied in Kafka's layout (segments linked
 * or copied, producer-state snapshots and the leader-epoch checkpoint with them: EmbeddedCluster.copyPartitions);
 * a Kafka destination's files are out of reach, so its partitions' batches are read from the broker up to its
 * high watermark and appended to an empty copy as mirrored batches are (same bytes, offsets and producer ids).
 */

export interface CopiedPartition extends TopicPartition {
  readonly logStartOffset: number
  /** The copy's log end: the destination's when the copy was taken. */
  readonly logEndOffset: number
  readonly copiedAt: number
}

export interface SandboxCopy {
  readonly copiedFrom: 'files' | 'brokerLog'
  readonly partitions: readonly CopiedPartition[]
  readonly filesLinked: number
  readonly bytesCopied: number
  readonly emulation: readonly EmulationNote[]
  /** Each copied log's state at its snapshot, by its directory in the sandbox (files copies only): for the first open. */
  readonly closeStates: ReadonlyMap<string, LogCloseState>
}

/**
 * The sandbox cluster's tick: transaction timeouts, pending markers' retries and group sessions move as on any
 * cluster, only later. Each tick looks at every one of the copy's thousands of partitions, and at the production
 * cluster's 100 ms that was ~6 % of the sandbox process's CPU through its failover (a CPU profile of the process
 * at load 17–21, session 21), which is the RTO: markers are written as a transaction ends, not by a tick, and no
 * drill waits for a timeout.
 */
const TICK_INTERVAL_MS = 1_000

/**
 * Opens the sandbox cluster in `dir`. With the copied logs' close states (a copy from files, opened the first
 * time), each log opens from its original's state at the copy instead of recovering its files as after a crash:
 * the recovery scans of 2,000 logs on the event loop were seconds of a drill's RTO.
 */
export function openSandbox(dir: string, name: string, closeStates?: ReadonlyMap<string, LogCloseState>, pace?: () => Promise<void> | undefined): Promise<EmbeddedCluster> {
  // A copied log's directory exists (the copy made it): no mkdir for it, which waited in the thread pool behind
  // production's fsyncs, 2,000 times. Others (the sandbox's own internal topics) are made as on any cluster.
  // Each close state serves its log's first open only: a partition restarted as after a crash for the read-back
  // (EmbeddedCluster.restartPartitionAsAfterCrash) recovers from its files.
  const unopened = new Map(closeStates)
  const openLog =
    unopened.size > 0
      ? async (logDir: string, config: PartitionLogConfig) => {
          const key = path.resolve(logDir)
          const closeState = unopened.get(key) ?? null
          unopened.delete(key)
          // Each open is a few ms of synchronous work: production mirroring goes first while it lags past its budget.
          const turn = pace?.()
          if (turn) await turn
          if (closeState === null) await mkdir(logDir, { recursive: true })
          return PartitionLog.open(logDir, { ...config, closeState })
        }
      : undefined
  return EmbeddedCluster.open(dir, { name, brokers: 1, config: { tickIntervalMs: TICK_INTERVAL_MS }, openLog })
}

/**
 * Removes the sandbox's directory (its cluster closed first by the caller); a directory already gone is fine. On a
 * worker thread (util/remove-tree.ts): its ~16,000 files through the thread pool were the drill's longest stall.
 */
export async function removeSandbox(dir: string): Promise<void> {
  await removeTree(dir)
}

/** Copies an embedded destination's partitions from their leaders' files (EmbeddedCluster.copyPartitions). */
export async function copyFromFiles(destination: EmbeddedCluster, dir: string, partitions: readonly TopicPartition[]): Promise<SandboxCopy> {
  const copied = await destination.copyPartitions(dir, partitions)
  return {
    copiedFrom: 'files',
    partitions: copied.map(({ topic, partition, logStartOffset, logEndOffset, copiedAt }) => ({ topic, partition, logStartOffset, logEndOffset, copiedAt })),
    filesLinked: copied.reduce((sum, entry) => sum + entry.filesLinked, 0),
    bytesCopied: copied.reduce((sum, entry) => sum + entry.bytesCopied, 0),
    emulation: [],
    closeStates: new Map(copied.flatMap((entry) => (entry.closeState ? [[entry.dir, entry.closeState] as const] : []))),
  }
}

const FETCH_BYTES = 1 << 20

export const BROKER_LOG_NOTE: EmulationNote = {
  code: 'DRILL_COPY_FROM_BROKER_LOG',
  message:
    "The destination is a Kafka cluster, whose files this server cannot copy and whose mirror topics a drill must not touch: the copy is an embedded sandbox filled with the partitions' batches read from the broker up to its high watermark (the broker's own offsets, producer ids and leader epochs). Producer state and the epoch history are rebuilt from those batches; the failover's ABORT markers and MIRROR_PID_RESET are written on the copy as KIP-1279 writes them, where on the broker the emulation aborts through transactional producers and records the reset in its state topic.",
}

/**
 * Fills a new sandbox in `dir` from a destination read as a consumer reads it (the Kafka cluster's SourceCluster
 * port), each partition from its log start to its high watermark as described now. Returns the open sandbox.
 */
export async function copyFromBrokerLog(input: {
  reader: SourceCluster
  dir: string
  name: string
  mirror: string
  topics: readonly TopicDescription[]
  partitions: readonly TopicPartition[]
  /**
   * The leader epoch the engine holds for each partition (`topic\u0000partition`): a Kafka destination's is the
   * emulation's recorded one (the broker's own cannot be raised by a client), which the partition's
   * `__mirror_state` records were written under; the copy takes it, or a higher one its batches carry.
   */
  leaderEpochs: ReadonlyMap<string, number>
  now: () => number
}): Promise<{ sandbox: EmbeddedCluster; copy: SandboxCopy }> {
  const wanted = new Set(input.partitions.map((tp) => `${tp.topic}\u0000${tp.partition}`))
  const described = input.topics.map((topic) => ({ ...topic, partitions: topic.partitions.filter((p) => wanted.has(`${topic.name}\u0000${p.partition}`)) })).filter((topic) => topic.partitions.length > 0)
  await createEmptyCopy(
    input.dir,
    described.map((topic) => ({ name: topic.name, topicId: topic.topicId, configs: topic.configs, mirror: input.mirror, partitions: topic.partitions.map((p) => ({ partition: p.partition, leaderEpoch: Math.max(0, p.leaderEpoch, input.leaderEpochs.get(`${topic.name}\u0000${p.partition}`) ?? 0) })) })),
  )
  const sandbox = await openSandbox(input.dir, input.name)
  const partitions: CopiedPartition[] = []
  let bytesCopied = 0
  try {
    for (const topic of described) {
      for (const p of topic.partitions) {
        const tp = { topic: topic.name, partition: p.partition }
        const copiedAt = input.now()
        if (p.logStartOffset > 0) await sandbox.truncateFullyAndStartAt(tp, p.logStartOffset)
        let offset = p.logStartOffset
        while (offset < p.highWatermark) {
          const [result] = await input.reader.fetch([{ ...tp, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: FETCH_BYTES }], { maxBytes: FETCH_BYTES, maxWaitMs: 0 })
          if (result === undefined || !result.ok) throw new Error(`${topic.name}-${p.partition} could not be read from the destination at offset ${offset}: ${result?.ok === false ? result.error.message : 'no answer'}`)
          const batches = splitBatches(result.records).filter(({ header }) => header.lastOffset >= offset && header.lastOffset < p.highWatermark)
          if (batches.length === 0) break
          const first = batches[0]!.position
          const last = batches.at(-1)!
          const bytes = result.records.subarray(first, last.position + last.header.sizeInBytes)
          const epoch = Math.max(...batches.map(({ header }) => header.partitionLeaderEpoch))
          await sandbox.bumpLeaderEpoch(tp, epoch)
          await sandbox.appendMirroredBatches(tp, bytes)
          bytesCopied += bytes.byteLength
          offset = last.header.lastOffset + 1
        }
        const end = (await sandbox.describePartition(tp)).logEndOffset
        partitions.push({ ...tp, logStartOffset: p.logStartOffset, logEndOffset: end, copiedAt })
      }
    }
  } catch (error) {
    await sandbox.close().catch(() => undefined)
    throw error
  }
  return { sandbox, copy: { copiedFrom: 'brokerLog', partitions, filesLinked: 0, bytesCopied, emulation: [BROKER_LOG_NOTE], closeStates: new Map() } }
}

/**
 * The mirror's `__mirror_state` records for the copied partitions, then the consumer groups' committed offsets
 * on them (as the destination's, to be checked); returns the groups the copy could not take, with the reason.
 */
export async function seedSandbox(sandbox: EmbeddedCluster, state: readonly MirrorStateAppendEntry[], groups: readonly GroupOffsets[], partitions: readonly TopicPartition[]): Promise<Array<{ groupId: string; topic: string; partition: number; reason: string }>> {
  await sandbox.appendMirrorState([...state])
  const wanted = new Set(partitions.map((tp) => `${tp.topic}\u0000${tp.partition}`))
  const refused: Array<{ groupId: string; topic: string; partition: number; reason: string }> = []
  for (const group of groups) {
    for (const committed of group.offsets) {
      if (!wanted.has(`${committed.topic}\u0000${committed.partition}`)) continue
      const tp = { topic: committed.topic, partition: committed.partition }
      await sandbox.commitSyncedGroupOffset(group.groupId, tp, committed.offset, committed.leaderEpoch).catch((error: unknown) => {
        refused.push({ groupId: group.groupId, ...tp, reason: error instanceof Error ? error.message : String(error) })
      })
    }
  }
  return refused
}
