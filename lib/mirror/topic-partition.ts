/**
 * Partitions are looked up by (topic, partition) as a pair, never by a joined string: `orders-eu-0` read
 * with the prefix `orders-` is a partition of `orders-eu`, not of `orders`, and the mirror-loop check that
 * matched keys that way refused a failback of `orders` while `orders-eu` still mirrored (issue #18).
 *
 * The ports still spell a partition as `${topic}-${partition}` on the wire (HostedMirror.partitionStates,
 * lastMirrorPositions), as Kafka's TopicPartition.toString does. That spelling is read and written only
 * through `topicPartitionName` and `parseTopicPartitionName` below.
 */

export interface TopicPartition {
  readonly topic: string
  readonly partition: number
}

/** The wire spelling `${topic}-${partition}`: branded so a plain topic string cannot be passed for it. */
export type TopicPartitionName = string & { readonly __topicPartitionName: true }

export function topicPartitionName(topicPartition: TopicPartition): TopicPartitionName {
  return `${topicPartition.topic}-${topicPartition.partition}` as TopicPartitionName
}

/**
 * The partition a wire name denotes. The partition number is what follows the *last* dash (topic names may
 * hold dashes, partition numbers never do); null for a name without one.
 */
export function parseTopicPartitionName(name: string): TopicPartition | null {
  const dash = name.lastIndexOf('-')
  if (dash <= 0) return null
  const digits = name.slice(dash + 1)
  if (!/^(0|[1-9][0-9]*)$/.test(digits)) return null
  return { topic: name.slice(0, dash), partition: Number(digits) }
}

export function sameTopicPartition(a: TopicPartition, b: TopicPartition): boolean {
  return a.topic === b.topic && a.partition === b.partition
}

/** Orders partitions by topic name, then partition number (the order every list in the API uses). */
export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition
}

/**
 * A map keyed by (topic, partition), kept by topic and then by partition number: a topic's partitions are
 * one lookup away (syncs and commands work a topic at a time), and no string is built per lookup (a fetch
 * round looks up every partition of a 10,000-partition mirror).
 */
export class TopicPartitionMap<V> {
  private readonly byTopic = new Map<string, Map<number, V>>()
  private count = 0

  static of<V>(entries: Iterable<readonly [TopicPartition, V]>): TopicPartitionMap<V> {
    const map = new TopicPartitionMap<V>()
    for (const [topicPartition, value] of entries) map.set(topicPartition, value)
    return map
  }

  get size(): number {
    return this.count
  }

  get(topicPartition: TopicPartition): V | undefined {
    return this.byTopic.get(topicPartition.topic)?.get(topicPartition.partition)
  }

  has(topicPartition: TopicPartition): boolean {
    return this.byTopic.get(topicPartition.topic)?.has(topicPartition.partition) ?? false
  }

  set(topicPartition: TopicPartition, value: V): this {
    let partitions = this.byTopic.get(topicPartition.topic)
    if (!partitions) this.byTopic.set(topicPartition.topic, (partitions = new Map()))
    if (!partitions.has(topicPartition.partition)) this.count += 1
    partitions.set(topicPartition.partition, value)
    return this
  }

  delete(topicPartition: TopicPartition): boolean {
    const partitions = this.byTopic.get(topicPartition.topic)
    if (!partitions?.delete(topicPartition.partition)) return false
    this.count -= 1
    if (partitions.size === 0) this.byTopic.delete(topicPartition.topic)
    return true
  }

  clear(): void {
    this.byTopic.clear()
    this.count = 0
  }

  /** The values of one topic's partitions, in insertion order; empty for a topic with none. */
  ofTopic(topic: string): V[] {
    const partitions = this.byTopic.get(topic)
    return partitions ? [...partitions.values()] : []
  }

  /** One topic's partitions with their values, in insertion order. */
  entriesOfTopic(topic: string): Array<[TopicPartition, V]> {
    const partitions = this.byTopic.get(topic)
    return partitions ? [...partitions].map(([partition, value]) => [{ topic, partition }, value]) : []
  }

  hasTopic(topic: string): boolean {
    return this.byTopic.has(topic)
  }

  topics(): IterableIterator<string> {
    return this.byTopic.keys()
  }

  *values(): IterableIterator<V> {
    for (const partitions of this.byTopic.values()) yield* partitions.values()
  }

  *entries(): IterableIterator<[TopicPartition, V]> {
    for (const [topic, partitions] of this.byTopic) for (const [partition, value] of partitions) yield [{ topic, partition }, value]
  }

  [Symbol.iterator](): IterableIterator<[TopicPartition, V]> {
    return this.entries()
  }
}

/**
 * A per-partition record spelled with wire names (HostedMirror.partitionStates) read as a map by pair.
 * Names that denote no partition are left out.
 */
export function topicPartitionMapFromNames<V>(record: Readonly<Record<string, V>>): TopicPartitionMap<V> {
  const map = new TopicPartitionMap<V>()
  for (const [name, value] of Object.entries(record)) {
    const topicPartition = parseTopicPartitionName(name)
    if (topicPartition) map.set(topicPartition, value)
  }
  return map
}
