import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import type { EventType } from '@/lib/api/events'
import type { OperationEvent } from '@/lib/api/operations'

/**
 * What one event stream has not handed to its reader yet. While the reader keeps up it holds nothing:
 * every event goes out as it is published. When it falls behind (a busy tab, a slow link), events wait here
 * and are handed over as one chunk at the next read, and what waits is cut down first:
 *   - a full `operation` event (accepted, resumed, finished: every partition) drops the progress deltas of
 *     that operation still waiting, which it makes moot: `finished` is never held behind them;
 *   - a progress delta joins the one of the same operation still waiting (its partitions replace theirs).
 * Either way the survivor takes the newest place and id, so order and Last-Event-ID stay right: what a client
 * receives up to an id is what it would have known from every event up to that id.
 */

export interface QueuedEvent {
  id: string
  type: EventType
  data: unknown
}

type Item = { kind: 'event'; event: QueuedEvent } | { kind: 'text'; text: string }

export class StreamQueue {
  private items: Item[] = []

  get size(): number {
    return this.items.length
  }

  pushText(text: string): void {
    this.items.push({ kind: 'text', text })
  }

  push(event: QueuedEvent): void {
    const operation = event.type === 'operation' ? operationOf(event.data) : null
    if (operation === null) {
      this.items.push({ kind: 'event', event })
      return
    }
    const waiting = this.items.findIndex((item) => item.kind === 'event' && item.event.type === 'operation' && isDeltaOf(item.event.data, operation.id))
    if (waiting < 0) {
      this.items.push({ kind: 'event', event })
      return
    }
    if (operation.partial !== true) {
      this.items = this.items.filter((item) => !(item.kind === 'event' && item.event.type === 'operation' && isDeltaOf(item.event.data, operation.id)))
      this.items.push({ kind: 'event', event })
      return
    }
    const earlier = (this.items[waiting] as { kind: 'event'; event: QueuedEvent }).event.data as OperationEvent
    this.items.splice(waiting, 1)
    this.items.push({ kind: 'event', event: { ...event, data: mergeDeltas(earlier, operation) } })
  }

  /** Everything waiting, oldest first; the queue is empty afterwards. */
  take(): Item[] {
    const items = this.items
    this.items = []
    return items
  }
}

function operationOf(data: unknown): OperationEvent | null {
  if (typeof data !== 'object' || data === null) return null
  const candidate = data as Partial<OperationEvent>
  return typeof candidate.id === 'string' && Array.isArray(candidate.partitions) ? (data as OperationEvent) : null
}

function isDeltaOf(data: unknown, id: string): boolean {
  const operation = operationOf(data)
  return operation !== null && operation.id === id && operation.partial === true
}

/** The later delta's fields, with the partitions of both (the later one's where both name a partition). */
function mergeDeltas(earlier: OperationEvent, later: OperationEvent): OperationEvent {
  const byKey = TopicPartitionMap.of(earlier.partitions.map((entry) => [entry, entry] as const))
  for (const entry of later.partitions) byKey.set(entry, entry)
  return { ...later, partitions: [...byKey.values()] }
}
