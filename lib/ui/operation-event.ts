/**
 * An `operation` event applied to the operation a tab already holds. A full event (accepted, resumed,
 * finished) replaces it; a `partial` progress event carries only the partitions that changed since the
 * previous one, patched in by position. The plan, which events never carry, is kept.
 */
import type { Operation, OperationEvent } from '../api/operations'
import { TopicPartitionMap } from '../mirror/topic-partition'

type Partitions = Operation['partitions']

/** Where each partition sits in an operation's list; the list never reorders, so a patched copy shares it. */
const positions = new WeakMap<Partitions, TopicPartitionMap<number>>()

function positionsOf(partitions: Partitions): TopicPartitionMap<number> {
  let found = positions.get(partitions)
  if (found === undefined) {
    found = TopicPartitionMap.of(partitions.map((entry, index) => [entry, index] as const))
    positions.set(partitions, found)
  }
  return found
}

/**
 * The operation after `event`; undefined when a partial event cannot be applied (nothing held yet, another
 * operation, or a partition the held list lacks): the caller then refetches the whole operation.
 */
export function applyOperationEvent(held: Operation | undefined, event: OperationEvent): Operation | undefined {
  const { change: _change, partial, partitions, ...fields } = event
  const plan = held?.id === event.id && held.plan !== undefined ? { plan: held.plan } : {}
  if (partial !== true) return { ...fields, partitions, ...plan }
  if (held === undefined || held.id !== event.id) return undefined
  const index = positionsOf(held.partitions)
  const patched = [...held.partitions]
  for (const entry of partitions) {
    const at = index.get(entry)
    if (at === undefined) return undefined
    patched[at] = entry
  }
  positions.set(patched, index)
  return { ...fields, partitions: patched, ...plan }
}
