import 'server-only'
import type { PartitionSnapshot } from '@/lib/api/partition-snapshot'
import { partitionSnapshotFigures, type LogExtentReading } from '@/lib/mirror/partition-snapshot'
import { EngineError } from '@/server/engine/errors'
import { withTimeout } from '@/server/util/with-timeout'
import { clusterApiOf } from './cluster-api'
import { mirrorApiOf } from './mirror-api'

/** A silent source must not hold the page's figures back: its log counts as unread after this long. */
const LOG_READ_TIMEOUT_MS = 3_000

type SnapshotRuntime = Parameters<typeof mirrorApiOf>[0] & Parameters<typeof clusterApiOf>[0]

/**
 * The partition page's one reading (GET …/partitions/{topic}/{partition}/snapshot, and the page's first render):
 * both logs' extents read together, then the engine's partition, then the figures from
 * lib/mirror/partition-snapshot.ts at one `at`. NOT_FOUND for a topic the mirror does not mirror or a partition
 * it does not have. A log that does not answer is null (its figures fall back to the mirror's last fetch), never
 * an error: the page is most needed when a cluster is down.
 */
export async function partitionSnapshot(runtime: SnapshotRuntime, mirror: string, topic: string, partition: number): Promise<PartitionSnapshot> {
  const api = mirrorApiOf(runtime)
  const clusters = clusterApiOf(runtime)
  const definition = runtime.engine.getMirror(mirror)
  // Checks the mirror and topic first (NOT_FOUND), before asking any cluster.
  api.partitions(mirror, { topic })
  const extentOf = async (cluster: string): Promise<LogExtentReading | null> => {
    try {
      const found = (await withTimeout(clusters.listPartitions(cluster, topic), LOG_READ_TIMEOUT_MS)).find((entry) => entry.partition === partition)
      return found === undefined ? null : { logStartOffset: found.logStartOffset, highWatermark: found.highWatermark, logEndOffset: found.logEndOffset }
    } catch {
      return null
    }
  }
  const [source, destination] = await Promise.all([extentOf(definition.sourceCluster), extentOf(definition.destinationCluster)])
  const rows = api.partitions(mirror, { topic })
  const row = rows.find((entry) => entry.partition === partition)
  if (row === undefined) throw new EngineError('NOT_FOUND', `mirror ${mirror} has no partition ${topic}/${partition}`)
  const before = partitionSnapshotFigures({ now: Date.now(), row, source, destination, oldestUnmirroredTimestamp: null })
  // The age of the oldest record at risk, read as the failover plan reads it (server/engine/failover/failover-planner.ts).
  const oldestUnmirroredTimestamp = source !== null && before.atRisk !== null && source.logEndOffset > before.mirroredOffset ? await timestampAt(clusters, definition.sourceCluster, topic, partition, before.mirroredOffset) : null
  const at = Date.now()
  const figures = partitionSnapshotFigures({ now: at, row, source, destination, oldestUnmirroredTimestamp })
  return { at, partition: row, topicPartitions: rows.length, source, destination, ...figures }
}

async function timestampAt(clusters: ReturnType<typeof clusterApiOf>, cluster: string, topic: string, partition: number, offset: number): Promise<number | null> {
  try {
    const page = await withTimeout(clusters.readRecords(cluster, topic, partition, { fromOffset: offset, limit: 1, isolation: 'read_uncommitted' }), LOG_READ_TIMEOUT_MS)
    return page.records[0]?.timestamp ?? null
  } catch {
    return null
  }
}
