import { topicPartitionMapFromNames, topicPartitionName, type TopicPartition, type TopicPartitionName } from './topic-partition'

/** What a cluster says about a mirror it hosts as a destination (the ports' HostedMirror). */
export interface HostedMirrorView {
  readonly name: string
  readonly sourceClusterId: string
  readonly topics: readonly string[]
  /** Per-partition state by wire name `${topic}-${partition}`. */
  readonly partitionStates: Readonly<Record<string, string>>
}

export interface MirrorLoop {
  /** The mirror on the would-be source that still mirrors the topic from the would-be destination. */
  mirror: string
  topic: string
  /** Its partitions of the topic that are not STOPPED, by wire name. */
  states: Record<TopicPartitionName, string>
}

/**
 * The mirror loop a start of `topics` from a source into `destinationClusterId` would close (KIP-1279.md
 * §11 #19): a mirror hosted on that source whose own source is the destination and which still has a
 * partition of one of the topics not STOPPED. The only copy of the check: the start, its dry run and the
 * create all ask it. Partitions are matched by (topic, partition), so `orders-eu-0` is never a partition
 * of `orders`.
 */
export function findMirrorLoop(hosted: readonly HostedMirrorView[], destinationClusterId: string, topics: readonly string[]): MirrorLoop | null {
  for (const mirror of hosted) {
    if (mirror.sourceClusterId !== destinationClusterId) continue
    const states = topicPartitionMapFromNames(mirror.partitionStates)
    for (const topic of topics) {
      if (!mirror.topics.includes(topic)) continue
      const live = states.entriesOfTopic(topic).filter(([, state]) => state !== 'STOPPED')
      if (live.length === 0) continue
      return { mirror: mirror.name, topic, states: Object.fromEntries(live.map(([tp, state]) => [topicPartitionName(tp), state])) }
    }
  }
  return null
}

/** What PREPARING makes of a reverse mirror's state for one partition (KIP-1279.md §11 #19, #20). */
export type ReverseMirrorVerdict = { kind: 'none' } | { kind: 'loop'; mirror: string; state: string } | { kind: 'notStopped'; mirror: string; state: string }

const LOOP_STATES: ReadonlySet<string> = new Set(['MIRRORING', 'PREPARING', 'EPOCH_FENCING', 'ULE_LOG_TRUNCATION'])

/**
 * Whether a partition may start PREPARING, judged from the mirrors its source hosts: one that mirrors it
 * back from us while mirroring (or about to) is a loop; one in any other state that has not STOPPED must
 * stop first; STOPPED or absent is no obstacle.
 */
export function reverseMirrorVerdict(hosted: readonly HostedMirrorView[], destinationClusterId: string, topicPartition: TopicPartition): ReverseMirrorVerdict {
  for (const mirror of hosted) {
    if (mirror.sourceClusterId !== destinationClusterId || !mirror.topics.includes(topicPartition.topic)) continue
    const state = mirror.partitionStates[topicPartitionName(topicPartition)]
    if (state === undefined || state === 'STOPPED') continue
    return { kind: LOOP_STATES.has(state) ? 'loop' : 'notStopped', mirror: mirror.name, state }
  }
  return { kind: 'none' }
}
