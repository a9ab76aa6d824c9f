import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import type { KafkaConnection } from './connection'
import type { KafkaMetadata } from './metadata-cache'
import { EARLIEST_TIMESTAMP, errorName, ISOLATION_LEVEL, LATEST_TIMESTAMP, listOffsetsRequest } from './protocol'

/**
 * Log start, high watermark and last stable offset of partitions, from ListOffsets v4 sent to each leader:
 * earliest, latest (read_uncommitted: the high watermark) and latest under read_committed (the LSO).
 * A client cannot see a leader's log end offset; the high watermark stands for it.
 */

const RETRIES = 5

export interface Offsets {
  logStartOffset: number
  highWatermark: number
  lastStableOffset: number
  logEndOffset: number
}

export class PartitionOffsets {
  constructor(
    private readonly connection: KafkaConnection,
    private readonly metadata: KafkaMetadata,
  ) {}

  /**
   * By partition; NOT_FOUND for a partition that does not exist. A leader that moved or is not
   * elected yet (a partition just created) is looked up again, a few times, before the error is passed on.
   */
  async of(partitions: TopicPartition[]): Promise<TopicPartitionMap<Offsets>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(partitions)
      } catch (error) {
        const moved = error instanceof ClusterError && (error.code === 'NOT_LEADER_OR_FOLLOWER' || error.code === 'LEADER_NOT_AVAILABLE')
        if (!moved || attempt >= RETRIES) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
        await this.metadata.refresh(partitions.map((p) => p.topic))
      }
    }
  }

  private async once(partitions: TopicPartition[]): Promise<TopicPartitionMap<Offsets>> {
    await this.metadata.ensure(partitions.map((p) => p.topic))
    const byLeader = new Map<number, TopicPartition[]>()
    for (const tp of partitions) {
      const cached = this.metadata.cached(tp)
      if (!cached) throw new ClusterError('NOT_FOUND', `${tp.topic}-${tp.partition} does not exist`, { details: { ...tp } })
      if (cached.leader < 0) throw new ClusterError('LEADER_NOT_AVAILABLE', `${tp.topic}-${tp.partition} has no leader`)
      byLeader.set(cached.leader, [...(byLeader.get(cached.leader) ?? []), tp])
    }
    const result = new TopicPartitionMap<Offsets>()
    await Promise.all(
      [...byLeader].map(async ([leader, list]) => {
        const ask = (isolation: 0 | 1, timestamp: number) => {
          const topics = new Map<string, Array<{ partition: number; timestamp: number }>>()
          for (const tp of list) topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), { partition: tp.partition, timestamp }])
          return this.connection.send(leader, listOffsetsRequest(isolation, [...topics].map(([topic, ps]) => ({ topic, partitions: ps }))))
        }
        const [earliest, latest, stable] = await Promise.all([
          ask(ISOLATION_LEVEL.read_uncommitted, EARLIEST_TIMESTAMP),
          ask(ISOLATION_LEVEL.read_uncommitted, LATEST_TIMESTAMP),
          ask(ISOLATION_LEVEL.read_committed, LATEST_TIMESTAMP),
        ])
        const pick = (answers: typeof earliest, tp: TopicPartition): number => {
          const answer = answers.find((a) => a.topic === tp.topic && a.partition === tp.partition)
          const name = errorName(answer?.errorCode ?? -1)
          if (!answer || name !== 'NONE') {
            const code = name === 'UNKNOWN_TOPIC_OR_PARTITION' ? 'NOT_FOUND' : name === 'NOT_LEADER_OR_FOLLOWER' || name === 'FENCED_LEADER_EPOCH' ? 'NOT_LEADER_OR_FOLLOWER' : name === 'LEADER_NOT_AVAILABLE' ? 'LEADER_NOT_AVAILABLE' : 'SOURCE_UNAVAILABLE'
            throw new ClusterError(code, `ListOffsets ${tp.topic}-${tp.partition}: ${name}`)
          }
          return answer.offset
        }
        for (const tp of list) {
          const highWatermark = pick(latest, tp)
          result.set(tp, { logStartOffset: pick(earliest, tp), highWatermark, lastStableOffset: pick(stable, tp), logEndOffset: highWatermark })
        }
      }),
    )
    return result
  }
}
