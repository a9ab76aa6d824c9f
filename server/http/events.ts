import 'server-only'
import { randomBytes } from 'node:crypto'
import type { EventType, ResyncEvent } from '@/lib/api/events'
import { ApiError } from '@/lib/api/errors'
import { StreamQueue } from './events-stream-queue'

/**
 * The one live stream (STYLE B31): producers of events (the audit log, the cluster registry, later the
 * engine) `publish`; each `GET /api/v1/events` subscribes. The hub keeps the most recent events in a ring
 * buffer, numbered `<stream>:<sequence>`; the stream id changes with every process, so a client that
 * reconnects after a restart is told to refetch (`resync`) instead of being fed a wrong resume point.
 */

export interface HubEvent {
  /** `<stream>:<sequence>`, the SSE `id` a client sends back as Last-Event-ID. */
  id: string
  sequence: number
  type: EventType
  data: unknown
  /** Several instances: the instance whose stream this event was relayed from (server/ha/event-relay.ts); absent for this instance's own. */
  relayedFrom?: string
}

export type EventListener = (event: HubEvent) => void

export type Replay =
  | { ok: true; events: HubEvent[] }
  /** The client missed events the hub no longer holds (or held in another process). */
  | { ok: false; reason: ResyncEvent['reason'] }

export interface EventHubOptions {
  /** How many recent events are kept for Last-Event-ID resume. */
  capacity?: number
  streamId?: string
  /** Open streams one principal may hold (429 beyond), and all together (503 beyond). */
  maxStreamsPerOwner?: number
  maxStreams?: number
}

/** A dashboard holds one stream per tab; a viewer token shared by scripts a few more. */
export const MAX_STREAMS_PER_OWNER = 32
export const MAX_STREAMS = 256

export class EventHub {
  readonly streamId: string
  private readonly capacity: number
  private readonly buffer: HubEvent[] = []
  private readonly listeners = new Set<EventListener>()
  private readonly closers = new Map<EventListener, () => void>()
  private sequence = 0
  private closed = false
  private readonly streamsByOwner = new Map<string, number>()
  private streams = 0
  private readonly maxStreamsPerOwner: number
  private readonly maxStreams: number

  constructor(options: EventHubOptions = {}) {
    this.capacity = options.capacity ?? 2000
    this.maxStreamsPerOwner = options.maxStreamsPerOwner ?? MAX_STREAMS_PER_OWNER
    this.maxStreams = options.maxStreams ?? MAX_STREAMS
    this.streamId = options.streamId ?? randomBytes(6).toString('base64url').replace(/[-_]/g, 'x')
  }

  get subscriberCount(): number {
    return this.listeners.size
  }

  get lastSequence(): number {
    return this.sequence
  }

  publish(type: EventType, data: unknown, relayedFrom?: string): HubEvent {
    this.sequence += 1
    const event: HubEvent = { id: `${this.streamId}:${this.sequence}`, sequence: this.sequence, type, data, ...(relayedFrom === undefined ? {} : { relayedFrom }) }
    this.buffer.push(event)
    if (this.buffer.length > this.capacity) this.buffer.shift()
    // A throwing listener must not keep the event from the others.
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch {
        this.listeners.delete(listener)
        this.closers.delete(listener)
      }
    }
    return event
  }

  /** `onClose` runs when the hub closes (the server shuts down), so open streams can end. */
  subscribe(listener: EventListener, onClose?: () => void): () => void {
    if (this.closed) {
      onClose?.()
      return () => {}
    }
    this.listeners.add(listener)
    if (onClose) this.closers.set(listener, onClose)
    return () => {
      this.listeners.delete(listener)
      this.closers.delete(listener)
    }
  }

  /**
   * Counts a stream `owner` (a principal's actor) opens; throws TOO_MANY_REQUESTS past the owner's cap and
   * SERVER_BUSY past the total. The returned function gives the place back, once, when the stream ends.
   */
  reserveStream(owner: string): () => void {
    const held = this.streamsByOwner.get(owner) ?? 0
    if (held >= this.maxStreamsPerOwner) {
      throw new ApiError('TOO_MANY_REQUESTS', `${held} event streams are open for this principal already; close one first`, { details: { retryAfterSeconds: 5 } })
    }
    if (this.streams >= this.maxStreams) throw new ApiError('SERVER_BUSY', `${this.streams} event streams are open on this server; try again later`, { details: { retryAfterSeconds: 5 } })
    this.streamsByOwner.set(owner, held + 1)
    this.streams += 1
    let released = false
    return () => {
      if (released) return
      released = true
      this.streams -= 1
      const left = (this.streamsByOwner.get(owner) ?? 1) - 1
      if (left <= 0) this.streamsByOwner.delete(owner)
      else this.streamsByOwner.set(owner, left)
    }
  }

  get openStreams(): number {
    return this.streams
  }

  /** Ends every subscription: long-lived event streams would otherwise hold a graceful shutdown open. */
  close(): void {
    this.closed = true
    const closers = [...this.closers.values()]
    this.listeners.clear()
    this.closers.clear()
    for (const close of closers) close()
  }

  /** Events after `lastEventId`, or why they cannot be replayed. A malformed id counts as another stream's. */
  replaySince(lastEventId: string): Replay {
    const match = /^([A-Za-z0-9]+):(\d+)$/.exec(lastEventId.trim())
    if (!match || match[1] !== this.streamId) return { ok: false, reason: 'serverRestarted' }
    const last = Number(match[2])
    if (last > this.sequence) return { ok: false, reason: 'serverRestarted' }
    const oldest = this.buffer[0]?.sequence ?? this.sequence + 1
    if (last + 1 < oldest) return { ok: false, reason: 'eventsDropped' }
    return { ok: true, events: this.buffer.filter((event) => event.sequence > last) }
  }
}

export const HEARTBEAT_MS = 15_000
/** A client that falls this many events behind is dropped; it reconnects and resumes from its last id. */
const MAX_QUEUED_EVENTS = 1000

export function formatEvent(event: Pick<HubEvent, 'id' | 'type' | 'data'>): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`
}

const encoder = new TextEncoder()
/**
 * Each event is serialised once however many streams carry it: a lag event of a 10,000-partition mirror is
 * about a megabyte, and fifty open dashboards would otherwise stringify it fifty times a second. Streams only
 * read what they are given, so they can share the bytes.
 */
const encodedEvents = new WeakMap<object, Uint8Array>()

export function encodeEvent(event: Pick<HubEvent, 'id' | 'type' | 'data'>): Uint8Array {
  let bytes = encodedEvents.get(event)
  if (bytes === undefined) encodedEvents.set(event, (bytes = encoder.encode(formatEvent(event))))
  return bytes
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0))
  let at = 0
  for (const chunk of chunks) {
    joined.set(chunk, at)
    at += chunk.length
  }
  return joined
}

export interface StreamOptions {
  /** Only these event types; all when absent. */
  types?: readonly EventType[]
  heartbeatMs?: number
  /** From the query string, for a client that had to open a new EventSource (which cannot set the header). */
  lastEventId?: string
  /** Whose stream this is, for the hub's caps (EventHub.reserveStream); uncapped without. */
  owner?: string
  /** Only what this instance published itself, not what it relayed from others (for another instance's relay). */
  ownOnly?: boolean
  /** Only the events this caller may see (its scope); all when absent. */
  visible?: (event: HubEvent) => boolean
}

/**
 * An SSE response: first whatever the client missed since Last-Event-ID (or a `resync` event when that is
 * gone), then live events, and a comment line every 15 s so proxies keep the connection open. The
 * subscription ends when the client goes away (request aborted or stream cancelled).
 */
export function eventStreamResponse(hub: EventHub, request: Request, options: StreamOptions = {}): Response {
  const wanted = options.types && options.types.length > 0 ? new Set(options.types) : null
  const lastEventId = request.headers.get('last-event-id') ?? options.lastEventId ?? null
  // Before anything is set up, so a refused stream is a plain error answer.
  const release = options.owner === undefined ? () => {} : hub.reserveStream(options.owner)
  let cleanup: () => void = () => {}
  let pull: () => void = () => {}
  const queue = new StreamQueue()

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const state: { closed: boolean; unsubscribe: () => void; heartbeat: ReturnType<typeof setInterval> | undefined } = {
        closed: false,
        unsubscribe: () => {},
        heartbeat: undefined,
      }
      const close = () => {
        if (state.closed) return
        state.closed = true
        release()
        state.unsubscribe()
        if (state.heartbeat !== undefined) clearInterval(state.heartbeat)
        request.signal.removeEventListener('abort', close)
        try {
          controller.close()
        } catch {
          // Already closed or errored by the runtime: nothing left to release.
        }
      }
      cleanup = close
      // Handed to the reader as it asks (pull), so what waits for a slow reader can still be cut down.
      const flush = () => {
        if (state.closed || queue.size === 0) return
        const chunks = queue.take().map((item) => (item.kind === 'text' ? encoder.encode(item.text) : encodeEvent(item.event)))
        try {
          controller.enqueue(chunks.length === 1 ? chunks[0]! : concat(chunks))
        } catch {
          close()
        }
      }
      pull = flush
      const afterPush = () => {
        if (queue.size > MAX_QUEUED_EVENTS) close()
        else if ((controller.desiredSize ?? 0) > 0) flush()
      }
      const send = (text: string) => {
        if (state.closed) return
        queue.pushText(text)
        afterPush()
      }
      const deliver = (event: HubEvent) => {
        if (state.closed || (wanted !== null && !wanted.has(event.type))) return
        if ((options.ownOnly && event.relayedFrom !== undefined) || (options.visible && !options.visible(event))) return
        queue.push(event)
        afterPush()
      }

      if (request.signal.aborted) {
        close()
        return
      }
      send('retry: 2000\n\n')
      // Replay and subscribe in the same synchronous step: no event can slip in between.
      if (lastEventId !== null) {
        const replay = hub.replaySince(lastEventId)
        if (replay.ok) replay.events.forEach(deliver)
        else send(formatEvent({ id: `${hub.streamId}:${hub.lastSequence}`, type: 'resync', data: { reason: replay.reason } }))
      }
      state.unsubscribe = hub.subscribe(deliver, close)
      state.heartbeat = setInterval(() => send(': ping\n\n'), options.heartbeatMs ?? HEARTBEAT_MS)
      state.heartbeat.unref?.()
      request.signal.addEventListener('abort', close)
    },
    pull() {
      pull()
    },
    cancel() {
      cleanup()
    },
  })

  return new Response(stream, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    },
  })
}
