import 'server-only'
import type { Operation, OperationChange, OperationEvent } from '@/lib/api/operations'

type OperationPartition = Operation['partitions'][number]

/**
 * The `operation` events' data, small while an operation runs: `accepted`, `resumed` and `finished` carry
 * every partition, a `progress` event only the partitions whose step, state, error or finish time changed
 * since this operation's previous event, marked `partial: true`. A failover of 10,000 partitions emits a
 * progress event every 250 ms; sending all of them each time was megabytes a second for every open tab to
 * parse. The stream's ring buffer replays deltas in order on a resume, and a client that missed more gets a
 * `resync` and refetches the operation, so a delta always lands on the state it was computed against — or
 * on a fresher answer of GET /operations/{id}, which it only brings closer to the truth; the `finished`
 * event makes every tab exact.
 */
export class OperationEventPayloads {
  /** Per running operation, what the stream has said about each partition (index-aligned: the list never reorders). */
  private readonly sent = new Map<string, string[]>()

  payload(operation: Operation, change: OperationChange): OperationEvent {
    const signatures = operation.partitions.map(signature)
    const previous = this.sent.get(operation.id)
    if (change === 'finished') this.sent.delete(operation.id)
    else this.sent.set(operation.id, signatures)
    if (change !== 'progress' || previous === undefined || previous.length !== signatures.length) return { ...operation, change }
    const partitions: OperationPartition[] = []
    signatures.forEach((current, index) => {
      if (current !== previous[index]) partitions.push(operation.partitions[index]!)
    })
    return { ...operation, partitions, change, partial: true }
  }
}

function signature(partition: OperationPartition): string {
  return `${partition.topic}/${partition.partition}|${partition.step}|${partition.state}|${partition.finishedAt ?? ''}|${partition.error ?? ''}`
}
