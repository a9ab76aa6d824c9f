/**
 * The record format of a destination's `__mirror_state` compacted topic (DESIGN.md §4 "State store"). The
 * engine writes it; the cluster that holds it reads it to answer, on its own, which mirrors it hosts and
 * their last mirror positions (DescribeClusterMirrors, the failback lookup). One definition for both, so
 * the writer and the readers cannot drift. Three keyed record kinds, values JSON:
 *   mirror/<mirror>                          → the mirror definition (name, source cluster id, topics, ...)
 *   partition/<mirror>/<topicId>/<partition> → the partition's state record (topic, partition, state, ...)
 *   position/<mirror>/<topicId>/<partition>  → a last mirror position { epoch, offset }, written by earlier
 *                                              versions of STOPPING and read by none (the position is a field
 *                                              of the partition record); deleteMirror still tombstones it
 * A null value is a tombstone; the last value per key counts, as log compaction would keep it.
 */
export type StateRecordKey =
  | { kind: 'mirror'; mirror: string }
  | { kind: 'partition'; mirror: string; topicId: string; partition: number }
  | { kind: 'position'; mirror: string; topicId: string; partition: number }

export function encodeKey(key: StateRecordKey): string {
  return key.kind === 'mirror' ? `mirror/${key.mirror}` : `${key.kind}/${key.mirror}/${key.topicId}/${key.partition}`
}

/** A partition number as encodeKey spells it: no sign, no leading zero, no blank, no exponent. */
const PARTITION_NUMBER = /^(0|[1-9][0-9]*)$/

/**
 * Null for a key this version does not know: readers leave those alone, so an older reader can read a newer
 * log. A key is known only in the spelling encodeKey writes: compaction keeps `…/01` and `…/1` apart, so a
 * reader that took both for partition 1 would answer whichever came last.
 */
export function decodeKey(text: string): StateRecordKey | null {
  const parts = text.split('/')
  if (parts[0] === 'mirror' && parts.length === 2 && parts[1]) return { kind: 'mirror', mirror: parts[1] }
  if ((parts[0] === 'partition' || parts[0] === 'position') && parts.length === 4) {
    const partition = Number(parts[3])
    if (!parts[1] || !parts[2] || !PARTITION_NUMBER.test(parts[3]!) || !Number.isSafeInteger(partition)) return null
    return { kind: parts[0], mirror: parts[1], topicId: parts[2], partition }
  }
  return null
}

/** The fields of a mirror definition record that a cluster reads back. */
export interface StoredMirrorDefinition {
  name: string
  sourceClusterId: string
  topics: string[]
}

/** The fields of a partition state record that a cluster reads back. */
export interface StoredPartitionState {
  topic: string
  partition: number
  state: string
  lastMirrorPosition: { epoch: number; offset: number } | null
  /** +1 per accepted state change (KIP-1279.md §5.2 StateEpoch); -1 in a record that has none. */
  stateEpoch: number
  /** The leader epoch its writer acted under (§5.2 LeaderEpoch), for fencing; -1 in a record that has none. */
  leaderEpoch: number
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A mirror definition value, or null when the value is not one (another writer's bug must not stop the reader). */
export function readMirrorDefinition(value: unknown): StoredMirrorDefinition | null {
  if (!isRecord(value)) return null
  const { name, sourceClusterId, topics } = value
  if (typeof name !== 'string' || typeof sourceClusterId !== 'string' || !Array.isArray(topics) || !topics.every((t) => typeof t === 'string')) return null
  return { name, sourceClusterId, topics: [...(topics as string[])] }
}

function readPosition(value: unknown): { epoch: number; offset: number } | null {
  if (!isRecord(value)) return null
  const { epoch, offset } = value
  return Number.isSafeInteger(epoch) && Number.isSafeInteger(offset) ? { epoch: epoch as number, offset: offset as number } : null
}

/** A partition state value, or null when the value is not one. */
export function readPartitionState(value: unknown): StoredPartitionState | null {
  if (!isRecord(value)) return null
  const { topic, partition, state } = value
  if (typeof topic !== 'string' || !Number.isSafeInteger(partition) || (partition as number) < 0 || typeof state !== 'string') return null
  return {
    topic,
    partition: partition as number,
    state,
    lastMirrorPosition: readPosition(value.lastMirrorPosition),
    stateEpoch: readEpoch(value.stateEpoch),
    leaderEpoch: readEpoch(value.leaderEpoch),
  }
}

function readEpoch(value: unknown): number {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : -1
}
