import { STATE_METADATA } from './state-metadata'
import type { MirrorPartitionState } from './states'

/**
 * One partition as `kafka-cluster-mirrors.sh --describe --json` prints it (KIP-1279.md §6.3; the prototype's
 * ClusterMirrorCommand serialises its PartitionInfo records): the field names, their order and their
 * conventions, so a script written for Apache Kafka's tool reads ours. Offsets and lag are -1 where not known;
 * the tool's table prints those as "-". `errorMessage` is null when the partition has none.
 */
export interface DescribeEntry {
  mirror: string
  topic: string
  partition: number
  /** The source's high watermark as the last fetch answered. */
  sourceOffset: number
  /** The destination's high watermark. */
  destinationOffset: number
  /** max(0, sourceOffset − destinationOffset). */
  lag: number
  state: string
  /** -1 for a failure that is not retried. */
  retryAttempt: number
  errorMessage: string | null
}

/** What a partition tells the describe: the fields of the API's partition it reads. */
export interface DescribedPartition {
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  readonly sourceHighWatermark: number | null
  readonly destinationHighWatermark: number
  readonly retryAttempt: number
  readonly error: string | null
}

/** Our state names (the API's), or the voted KIP's (LOG_ALIGNMENT for PREPARING, ...) as Kafka's tool prints them. */
export type DescribeStateNames = 'api' | 'kip'

const UNKNOWN = -1

/**
 * The entries of one mirror, sorted by topic then partition as the tool sorts them (Java's String order: UTF-16
 * code units, not the locale's). Offsets exist only while the partition has a fetcher (MIRRORING), as the
 * prototype removes them with the fetcher: every other state shows -1, and so does a MIRRORING partition whose
 * source has not answered yet.
 */
export function describeEntries(mirror: string, partitions: readonly DescribedPartition[], stateNames: DescribeStateNames = 'api'): DescribeEntry[] {
  return partitions
    .map((partition): DescribeEntry => {
      const fetching = partition.state === 'MIRRORING'
      const sourceOffset = fetching ? (partition.sourceHighWatermark ?? UNKNOWN) : UNKNOWN
      const destinationOffset = fetching ? partition.destinationHighWatermark : UNKNOWN
      return {
        mirror,
        topic: partition.topic,
        partition: partition.partition,
        sourceOffset,
        destinationOffset,
        lag: sourceOffset === UNKNOWN ? UNKNOWN : Math.max(0, sourceOffset - destinationOffset),
        state: stateNames === 'kip' ? STATE_METADATA[partition.state].kipName : partition.state,
        retryAttempt: partition.retryAttempt,
        errorMessage: partition.error,
      }
    })
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
}
