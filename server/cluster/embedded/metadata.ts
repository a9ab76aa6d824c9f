import 'server-only'
import { z } from 'zod'
import { MIRROR_STATE_TOPIC } from '@/lib/mirror/constants'
import { ClusterError } from '../errors'

/**
 * The controller's view of the cluster, persisted as one JSON document (`metadata.json`, replaced atomically):
 * what KRaft keeps in its metadata log. Partition data lives in the replica logs, not here.
 */

const PartitionMetadataSchema = z.object({
  partition: z.number().int().nonnegative(),
  replicas: z.array(z.number().int()),
  /** -1 while the partition is offline. */
  leader: z.number().int(),
  isr: z.array(z.number().int()),
  leaderEpoch: z.number().int().nonnegative(),
})

const TopicMetadataSchema = z.object({
  name: z.string(),
  topicId: z.string(),
  internal: z.boolean(),
  replicationFactor: z.number().int().positive(),
  configs: z.record(z.string(), z.string()),
  readOnly: z.boolean(),
  mirror: z.object({ name: z.string() }).nullable(),
  /**
   * Set while a planned switchover (or its aftermath: the old source of a switched mirror) refuses client
   * writes to the topic with TOPIC_WRITE_FENCED; absent in metadata written before fences existed.
   */
  writeFence: z.object({ mirror: z.string(), operation: z.string(), since: z.number().int() }).nullable().optional(),
  partitions: z.array(PartitionMetadataSchema),
})

export const ClusterMetadataSchema = z.object({
  version: z.literal(1),
  clusterId: z.string(),
  brokerIds: z.array(z.number().int().nonnegative()).min(1),
  topics: z.record(z.string(), TopicMetadataSchema),
})

export type PartitionMetadata = z.infer<typeof PartitionMetadataSchema>
export type TopicMetadata = z.infer<typeof TopicMetadataSchema>
export type ClusterMetadata = z.infer<typeof ClusterMetadataSchema>

/** API.md: cluster, mirror and topic names (the one pattern, lib/mirror/names.ts). */
import { NAME_PATTERN } from '@/lib/mirror/names'

export { NAME_PATTERN }

/**
 * The internal topics' names (Kafka's `Topic.isInternal` and its metadata log, KIP-1279's `__mirror_state`).
 * Other names starting with `__` are ordinary topics, as Kafka allows them; a mirror's default
 * `topics.exclude` (`__.*`) is what keeps them out of mirrors.
 */
export const INTERNAL_TOPIC_NAMES: readonly string[] = ['__consumer_offsets', '__transaction_state', '__share_group_state', '__cluster_metadata', MIRROR_STATE_TOPIC]

export function isInternalTopicName(name: string): boolean {
  return INTERNAL_TOPIC_NAMES.includes(name)
}

export function validateTopicName(name: unknown): string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name === '.' || name === '..') {
    throw new ClusterError('VALIDATION_FAILED', `invalid topic name ${JSON.stringify(name)}: expected ${NAME_PATTERN.source}, not "." or ".."`)
  }
  if (isInternalTopicName(name)) {
    throw new ClusterError('VALIDATION_FAILED', `${name} is the name of an internal topic`)
  }
  return name
}

/** Kafka refuses topics that differ only by '.' vs '_' because their metric names collide. */
export function collidingTopicName(name: string, existing: Iterable<string>): string | undefined {
  const normalized = name.replaceAll('.', '_')
  for (const other of existing) {
    if (other !== name && other.replaceAll('.', '_') === normalized) return other
  }
  return undefined
}

export function validateCount(value: unknown, what: string, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ClusterError('VALIDATION_FAILED', `${what} must be a positive integer, got ${JSON.stringify(value)}`)
  }
  if (value > max) throw new ClusterError('VALIDATION_FAILED', `${what} must be at most ${max}, got ${value}`)
  return value
}

export function validateOffset(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ClusterError('VALIDATION_FAILED', `${what} must be a non-negative integer, got ${JSON.stringify(value)}`)
  }
  return value
}

/** Kafka topic ids are 16 random bytes; we accept any URL-safe id so a mirror can keep a source's id as given. */
export function validateTopicId(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) {
    throw new ClusterError('VALIDATION_FAILED', `invalid topic id ${JSON.stringify(value)}`)
  }
  return value
}

/** FNV-1a: a stable spread of topics over brokers, so the same topic lands on the same brokers in every run. */
function stableHash(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/**
 * Kafka's round-robin replica placement without racks: partition p starts at broker (start + p) and takes the
 * next `replicationFactor` brokers; the first replica is the preferred leader.
 */
export function assignReplicas(topic: string, brokerIds: readonly number[], firstPartition: number, count: number, replicationFactor: number): number[][] {
  const n = brokerIds.length
  const start = stableHash(topic) % n
  const result: number[][] = []
  for (let p = firstPartition; p < firstPartition + count; p++) {
    const replicas: number[] = []
    for (let i = 0; i < replicationFactor; i++) replicas.push(brokerIds[(start + p + i) % n]!)
    result.push(replicas)
  }
  return result
}

/** A replica's directory under its broker's, as Kafka names it (`<topic>-<partition>`). */
export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`
}
