import { clusterEndpoints, mirrorEndpoints } from '@/lib/api/routes'

/**
 * The requests behind the partition page, in one place, so the server's prefetch (app/…/page.tsx) and the
 * client hooks (components/data/use-*.ts) ask with the very same endpoint, params and query, and so share
 * the cache entry the first render hydrates.
 */

export function mirrorRequest(mirror: string) {
  return { endpoint: mirrorEndpoints.getMirror, params: { mirror } }
}

export function partitionHistoryRequest(mirror: string, topic: string, partition: number) {
  return { endpoint: mirrorEndpoints.partitionHistory, params: { mirror, topic, partition } }
}

export function topicPartitionsRequest(cluster: string, topic: string) {
  return { endpoint: clusterEndpoints.listPartitions, params: { cluster, topic } }
}

export function recordsRequest(cluster: string, topic: string, partition: number, read: { fromOffset: number; limit: number }) {
  return { endpoint: clusterEndpoints.readRecords, params: { cluster, topic, partition }, query: { fromOffset: read.fromOffset, limit: read.limit } }
}

/** The partition page's one reading: the partition and both logs at one moment (lib/api/partition-snapshot.ts). */
export function partitionSnapshotRequest(mirror: string, topic: string, partition: number) {
  return { endpoint: mirrorEndpoints.partitionSnapshot, params: { mirror, topic, partition } }
}
