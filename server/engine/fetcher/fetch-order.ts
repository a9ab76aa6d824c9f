import 'server-only'
import type { FetchPartitionResult, TopicPartition } from '@/server/cluster/ports'
import type { EngineMirror } from '../state/engine-mirror'
import type { FetchEntry } from './fetch-state'

/**
 * The order of the partitions in a leader's fetch. A source fills its answer in request order up to
 * `fetch.response.max.bytes`, so with a fixed order the first busy partitions take every answer and the last
 * ones starve: on the throttled demo link payments' time lag grew for minutes behind clickstream. As Kafka's
 * fetchers do since KIP-74, the partitions that got records move to the end: the next fetch starts right after
 * the last partition that got records in this one.
 */
const resumeAfter = new WeakMap<EngineMirror, Map<number, TopicPartition>>()

/** `entries` rotated to start after the partition the last fetch from `leader` stopped at. */
export function inFetchOrder(mirror: EngineMirror, leader: number, entries: FetchEntry[]): FetchEntry[] {
  const after = resumeAfter.get(mirror)?.get(leader)
  if (!after) return entries
  const index = entries.findIndex(({ request }) => request.partition === after.partition && request.topic === after.topic)
  if (index < 0 || index === entries.length - 1) return entries
  return [...entries.slice(index + 1), ...entries.slice(0, index + 1)]
}

/** Remembers where the answer to `entries` (in their order) stopped handing out records. */
export function recordFetchOrder(mirror: EngineMirror, leader: number, entries: readonly FetchEntry[], results: readonly FetchPartitionResult[]): void {
  if (results.length !== entries.length) return
  let last = -1
  for (let index = results.length - 1; index >= 0; index -= 1) {
    const result = results[index]!
    if (result.ok && result.records.byteLength > 0) {
      last = index
      break
    }
  }
  if (last < 0) return
  let byLeader = resumeAfter.get(mirror)
  if (!byLeader) resumeAfter.set(mirror, (byLeader = new Map()))
  const { topic, partition } = entries[last]!.request
  byLeader.set(leader, { topic, partition })
}
