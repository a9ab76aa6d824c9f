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
  if (finishedBefore(held, event) !== undefined) return held
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

/** The held operation when it has finished and `other`, about the same operation, says it still runs: `other` is older. */
function finishedBefore(held: Operation | undefined, other: { id: string; status: Operation['status'] }): Operation | undefined {
  return held !== undefined && held.id === other.id && held.status !== 'running' && other.status === 'running' ? held : undefined
}

/**
 * What a tab holds after a GET of the operation answers. An operation never runs again once it has finished,
 * so a read that says "running" after the `finished` event was applied was answered before it (the read and
 * the event stream travel on different connections) and must not take the operation back: it left the
 * failover wizard's result saying "1 of 1 partition not STOPPED" beside a finished switchover until the next
 * poll (e2e/switchover.spec.ts, 2 of 12 runs).
 */
export function readOperation(held: Operation | undefined, read: Operation): Operation {
  const finished = finishedBefore(held, read)
  if (finished === undefined) return read
  return finished.plan === undefined && read.plan !== undefined ? { ...finished, plan: read.plan } : finished
}
