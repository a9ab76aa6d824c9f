import { endpointUrl } from '@/lib/api/client'
import { systemEndpoints } from '@/lib/api/routes'
import { EVENT_TYPES, type EventType } from '@/lib/api/event-types'

/**
 * One EventSource per tab (UI.md §3), shared by every component through subscribe(). The browser's
 * EventSource reconnects by itself after a dropped connection and resumes with Last-Event-ID; when it gives
 * up (a non-200 answer: the session expired, the server restarted mid-handshake) this opens a new one after a
 * backoff and passes the last id in the query string, so nothing is missed either way.
 *
 * The stream carries only the event types someone listens to now. A failover of 10,000 partitions sends
 * 20,000 `partition` events; a page that shows only the operation would still pay the browser's dispatch of
 * each one (most of the wizard's main-thread time). When the wanted types change, the stream is opened again
 * with the last id, so the server replays what the new types missed meanwhile (or says `resync`).
 */

export type StreamStatus = 'connecting' | 'open' | 'disconnected'

export type EventListener = (data: unknown) => void

const RECONNECT_MIN_MS = 1_000
const RECONNECT_MAX_MS = 15_000
/** Listeners come and go in bursts as a page mounts: one reopen for the burst, not one per listener. */
export const REOPEN_AFTER_MS = 200
/** Sent whatever is asked (the server's word that missed events are gone), so always listened to. */
const ALWAYS: readonly EventType[] = ['resync']

export class EventStreamClient {
  private source: EventSource | null = null
  private readonly listeners = new Map<EventType, Set<EventListener>>()
  private readonly arrivalListeners = new Map<EventType, Set<() => void>>()
  private readonly statusListeners = new Set<() => void>()
  private currentStatus: StreamStatus = 'connecting'
  private lastEventId: string | undefined
  private reconnectDelayMs = RECONNECT_MIN_MS
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined
  private disconnectedSince: number | null = null
  private stopped = true
  private openedTypes = ''
  private reopenTimer: ReturnType<typeof setTimeout> | undefined

  start(): void {
    this.stopped = false
    this.open()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.reconnectTimer)
    clearTimeout(this.reopenTimer)
    this.reopenTimer = undefined
    this.source?.close()
    this.source = null
  }

  get status(): StreamStatus {
    return this.currentStatus
  }

  /** When the stream was lost (null while open or connecting for the first time). */
  get disconnectedAt(): number | null {
    return this.disconnectedSince
  }

  subscribe(type: EventType, listener: EventListener): () => void {
    let set = this.listeners.get(type)
    if (set === undefined) {
      set = new Set()
      this.listeners.set(type, set)
    }
    return this.addListener(set, listener)
  }

  /**
   * Told that an event of `type` arrived, without its data: the data is parsed only for `subscribe`rs. A lag
   * event of a 10,000-partition mirror is a megabyte of JSON a second, parsed on the main thread on every
   * page whose only use of it is to mark the mirror list stale.
   */
  subscribeArrival(type: EventType, listener: () => void): () => void {
    let set = this.arrivalListeners.get(type)
    if (set === undefined) {
      set = new Set()
      this.arrivalListeners.set(type, set)
    }
    return this.addListener(set, listener)
  }

  /** The types the stream carries while the listeners of now stay: those with a listener, and `resync`. */
  wantedTypes(): EventType[] {
    const listened = (type: EventType) => (this.listeners.get(type)?.size ?? 0) > 0 || (this.arrivalListeners.get(type)?.size ?? 0) > 0
    return EVENT_TYPES.filter((type) => ALWAYS.includes(type) || listened(type))
  }

  /** The types the open stream was asked for (comma-separated; empty before the first open). */
  get streamTypes(): string {
    return this.openedTypes
  }

  private addListener<T>(set: Set<T>, listener: T): () => void {
    set.add(listener)
    this.wantedTypesMayHaveChanged()
    return () => {
      set.delete(listener)
      this.wantedTypesMayHaveChanged()
    }
  }

  private wantedTypesMayHaveChanged(): void {
    if (this.stopped || this.reopenTimer !== undefined) return
    this.reopenTimer = setTimeout(() => {
      this.reopenTimer = undefined
      // A source waiting to reconnect opens with the wanted types anyway.
      if (this.stopped || this.source === null || this.wantedTypes().join(',') === this.openedTypes) return
      this.source.close()
      this.open()
    }, REOPEN_AFTER_MS)
  }

  subscribeStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  getStatus = (): StreamStatus => this.currentStatus

  private open(): void {
    const types = this.wantedTypes()
    this.openedTypes = types.join(',')
    const url = endpointUrl(systemEndpoints.events, {}, { types: this.openedTypes, lastEventId: this.lastEventId })
    const source = new EventSource(url, { withCredentials: true })
    this.source = source
    source.onopen = () => {
      this.reconnectDelayMs = RECONNECT_MIN_MS
      this.disconnectedSince = null
      this.setStatus('open')
    }
    source.onerror = () => {
      if (this.disconnectedSince === null) this.disconnectedSince = Date.now()
      this.setStatus('disconnected')
      if (source.readyState === EventSource.CLOSED && !this.stopped) this.scheduleReconnect()
    }
    for (const type of types) {
      source.addEventListener(type, (event: MessageEvent<string>) => {
        if (event.lastEventId) this.lastEventId = event.lastEventId
        for (const listener of this.arrivalListeners.get(type) ?? []) listener()
        const listeners = this.listeners.get(type)
        if (listeners === undefined || listeners.size === 0) return
        let data: unknown
        try {
          data = JSON.parse(event.data)
        } catch {
          return
        }
        for (const listener of listeners) listener(data)
      })
    }
  }

  private scheduleReconnect(): void {
    this.source?.close()
    this.source = null
    clearTimeout(this.reconnectTimer)
    const delay = this.reconnectDelayMs
    this.reconnectDelayMs = Math.min(RECONNECT_MAX_MS, this.reconnectDelayMs * 2)
    this.reconnectTimer = setTimeout(() => {
      if (!this.stopped) this.open()
    }, delay)
  }

  private setStatus(status: StreamStatus): void {
    if (status === this.currentStatus) return
    this.currentStatus = status
    for (const listener of this.statusListeners) listener()
  }
}
