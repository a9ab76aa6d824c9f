import 'server-only'
import { topicPartitionName } from '@/lib/mirror/topic-partition'
import { decodeKey, readMirrorDefinition, readPartitionState, type StoredMirrorDefinition, type StoredPartitionState } from '@/lib/mirror/mirror-state-records'
import { fencingAfterWrite, parseStateValue, type StoredFencing } from '@/lib/mirror/state-fencing'
import type { HostedMirror, LastMirrorPosition, TopicPartition } from '../ports'

/**
 * What a cluster knows of the mirrors it hosts, read from its own `__mirror_state` log: the last value per
 * key, as compaction would keep it. It answers DescribeClusterMirrors and the failback lookup without
 * asking the engine. Kept up to date as records are appended (and rebuilt from the log on open), because
 * PREPARING asks once per partition and a scan of the log per question would make a large start quadratic.
 */
export class MirrorStateView {
  /** Mirror definitions by name, in the order the mirrors were (re)created. */
  private readonly mirrors = new Map<string, StoredMirrorDefinition>()
  /** mirror → topic → partition → state record; the record key each came from, to follow overwrites. */
  private readonly partitions = new Map<string, Map<string, Map<number, StoredPartitionState>>>()
  private readonly partitionOfKey = new Map<string, { mirror: string; topic: string; partition: number }>()
  /** Per partition record key: its stateEpoch and the highest writer epoch (KIP-1279.md §5.3 fencing). */
  private readonly fencing = new Map<string, StoredFencing>()

  /**
   * Applies records in log order. Values that do not parse are skipped (the key keeps its earlier value).
   * `parsed`: the value as JSON, when the caller has parsed it already (the append path judges it first).
   */
  apply(records: Iterable<{ key: string; value: string | null; parsed?: { value: unknown } }>): void {
    for (const record of records) this.applyOne(record.key, record.value, record.parsed)
  }

  private applyOne(text: string, value: string | null, parsed: { value: unknown } | undefined): void {
    const key = decodeKey(text)
    if (!key || key.kind === 'position') return
    if (key.kind === 'mirror') {
      if (value === null) {
        this.mirrors.delete(key.mirror)
        return
      }
      const definition = readMirrorDefinition(parsed === undefined ? parseStateValue(value) : parsed.value)
      if (!definition) return
      // A rewrite keeps the mirror's place; only a mirror created again after a tombstone moves to the end.
      this.mirrors.set(key.mirror, definition)
      return
    }
    if (value === null) {
      this.forgetPartition(text)
      return
    }
    const state = readPartitionState(parsed === undefined ? parseStateValue(value) : parsed.value)
    if (!state) return
    this.fencing.set(text, fencingAfterWrite(this.fencing.get(text) ?? null, state))
    const where = this.partitionOfKey.get(text)
    if (where && where.mirror === key.mirror && where.topic === state.topic && where.partition === state.partition) {
      // The usual overwrite, a partition's next state: its place in the maps stays (a failover rewrites 30,000).
      this.partitions.get(key.mirror)!.get(state.topic)!.set(state.partition, state)
      return
    }
    if (where) this.forgetPlace(text, where)
    let topics = this.partitions.get(key.mirror)
    if (!topics) this.partitions.set(key.mirror, (topics = new Map()))
    let byPartition = topics.get(state.topic)
    if (!byPartition) topics.set(state.topic, (byPartition = new Map()))
    byPartition.set(state.partition, state)
    this.partitionOfKey.set(text, { mirror: key.mirror, topic: state.topic, partition: state.partition })
  }

  private forgetPartition(text: string): void {
    this.fencing.delete(text)
    const where = this.partitionOfKey.get(text)
    if (where) this.forgetPlace(text, where)
  }

  private forgetPlace(text: string, where: { mirror: string; topic: string; partition: number }): void {
    this.partitionOfKey.delete(text)
    const topics = this.partitions.get(where.mirror)
    const byPartition = topics?.get(where.topic)
    byPartition?.delete(where.partition)
    if (byPartition?.size === 0) topics!.delete(where.topic)
    if (topics?.size === 0) this.partitions.delete(where.mirror)
  }

  /** What a fenced write of the partition record `key` is checked against; null for a key never written (or tombstoned). */
  fencingOf(key: string): StoredFencing | null {
    return this.fencing.get(key) ?? null
  }

  /**
   * The hosted mirrors; with `topics`, only mirrors of one of them, each with only those topics' partition
   * states. Partition states are keyed `${topic}-${partition}` as the port defines them.
   */
  hostedMirrors(filter: { topics?: string[] } = {}): HostedMirror[] {
    const wanted = filter.topics ? new Set(filter.topics) : null
    const out: HostedMirror[] = []
    for (const definition of this.mirrors.values()) {
      if (wanted && !definition.topics.some((topic) => wanted.has(topic))) continue
      const partitionStates: Record<string, string> = {}
      for (const [topic, byPartition] of this.partitions.get(definition.name) ?? []) {
        if (wanted && !wanted.has(topic)) continue
        for (const [partition, state] of byPartition) partitionStates[topicPartitionName({ topic, partition })] = state.state
      }
      out.push({ name: definition.name, sourceClusterId: definition.sourceClusterId, topics: [...definition.topics], partitionStates })
    }
    return out
  }

  /** Per partition, the largest last mirror position over hosted mirrors whose source is `sourceClusterId`. */
  lastMirrorPositions(sourceClusterId: string, partitions: TopicPartition[]): Map<string, LastMirrorPosition> {
    const positions = new Map<string, LastMirrorPosition>()
    for (const definition of this.mirrors.values()) {
      if (definition.sourceClusterId !== sourceClusterId) continue
      const topics = this.partitions.get(definition.name)
      if (!topics) continue
      for (const tp of partitions) {
        const position = topics.get(tp.topic)?.get(tp.partition)?.lastMirrorPosition
        if (!position) continue
        const key = topicPartitionName(tp)
        const current = positions.get(key)
        if (!current || position.epoch > current.epoch || (position.epoch === current.epoch && position.offset > current.offset)) {
          positions.set(key, { epoch: position.epoch, offset: position.offset })
        }
      }
    }
    return positions
  }
}
