import 'server-only'
import type { EventType } from '@/lib/api/events'
import type { EventHub } from '@/server/http/events'
import { FORWARDED_HEADER, signForwardedCaller } from './forwarded-caller'
import type { InstanceStatus } from './instance-directory'

/**
 * Live events from every instance on every instance's stream (issue #40, "one API from any instance";
 * docs/high-availability.md). Each instance's engine publishes the events of the mirrors it runs; this relay holds
 * one `GET /api/v1/events` stream open to each other live instance (as an internal caller, vouched for with the
 * group's signed header, forwarded-caller.ts) and publishes what arrives into this instance's hub, so a browser's
 * stream carries every mirror's events whichever instance it reached. The other instance sends its own events only
 * (a forwarded caller's stream leaves out what it relayed), so nothing goes round in circles; the relay follows the
 * instances topic (a stream per live instance, dropped when it dies, opened when one joins) and resumes each stream
 * with Last-Event-ID. When another instance cannot replay what the relay missed (it restarted, or the relay fell
 * too far behind), this hub publishes `resync` (reason `eventsDropped`), so its clients refetch rather than trust
 * a gap. Cost: one connection per pair of instances, each event crossing once to each other instance.
 *
 * Not relayed: `audit` (every instance reads the shared audit log and publishes its entries itself,
 * shared-audit.ts), `cluster` (every instance has the clusters and sees their changes itself), `demo`.
 */
export const RELAYED_TYPES: readonly EventType[] = ['partition', 'lag', 'operation', 'alert', 'verification', 'drill']

const RECONCILE_MS = 1_000
const RETRY_MS = 2_000
/** The other instance sends a comment every 15 s: a stream silent for longer is dead (a half-open connection). */
const SILENT_MS = 40_000

export interface EventRelayDeps {
  self: string
  key: Buffer
  hub: EventHub
  instances(): Array<InstanceStatus & { alive: boolean }>
  warn(message: string, fields: Record<string, unknown>): void
}

interface Subscription {
  url: string
  abort: AbortController
  /** The last event id this relay received from that instance's stream, for Last-Event-ID. */
  lastEventId: string | null
}

/** The internal caller a relay subscribes as: a viewer everywhere, named after this instance. */
function relayPrincipal(self: string) {
  return { role: 'viewer', grants: [{ role: 'viewer' }], actor: `instance:${self}`, actorName: null, subject: `instance:${self}`, method: 'token', via: 'bearer', sessionExpiresAt: null }
}

export class EventRelay {
  private readonly subscriptions = new Map<string, Subscription>()
  /** Where each instance's stream left off, kept across its subscriptions (a restart of that instance: resync). */
  private readonly resumeAt = new Map<string, string>()
  private timer: NodeJS.Timeout | null = null
  private closed = false

  constructor(private readonly deps: EventRelayDeps) {}

  start(): void {
    this.reconcile()
    this.timer = setInterval(() => this.reconcile(), RECONCILE_MS)
    this.timer.unref()
  }

  /** The instances whose streams are open now (for tests and /metrics-like views). */
  relaying(): string[] {
    return [...this.subscriptions.keys()].sort()
  }

  /** One stream per other live instance with an address; a dead or moved one's stream is ended. */
  private reconcile(): void {
    if (this.closed) return
    const wanted = new Map(this.deps.instances().filter((instance) => instance.alive && instance.id !== this.deps.self && instance.url).map((instance) => [instance.id, instance.url!]))
    for (const [id, subscription] of this.subscriptions) {
      if (wanted.get(id) === subscription.url) continue
      subscription.abort.abort()
      this.subscriptions.delete(id)
    }
    for (const [id, url] of wanted) {
      if (this.subscriptions.has(id)) continue
      const subscription: Subscription = { url, abort: new AbortController(), lastEventId: this.resumeAt.get(id) ?? null }
      this.subscriptions.set(id, subscription)
      void this.follow(id, subscription)
    }
  }

  /** Reads one instance's stream until it is ended here; reconnects (resuming) after a failure. */
  private async follow(id: string, subscription: Subscription): Promise<void> {
    while (!subscription.abort.signal.aborted) {
      try {
        await this.read(id, subscription)
      } catch (error) {
        if (subscription.abort.signal.aborted) return
        this.deps.warn('the live events of another instance could not be read; retrying', { instance: id, error: String(error) })
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref())
    }
  }

  private async read(id: string, subscription: Subscription): Promise<void> {
    const path = `/api/v1/events?types=${RELAYED_TYPES.join(',')}`
    const silence = new AbortController()
    let timer = setTimeout(() => silence.abort(), SILENT_MS)
    const signal = AbortSignal.any([subscription.abort.signal, silence.signal])
    try {
      const response = await fetch(`${subscription.url}${path}`, {
        headers: {
          accept: 'text/event-stream',
          [FORWARDED_HEADER]: signForwardedCaller(this.deps.key, { principal: relayPrincipal(this.deps.self), from: this.deps.self, method: 'GET', path }),
          ...(subscription.lastEventId === null ? {} : { 'last-event-id': subscription.lastEventId }),
        },
        signal,
      })
      if (!response.ok || response.body === null) throw new Error(`status ${response.status}`)
      const decoder = new TextDecoder()
      let pending = ''
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(timer)
        timer = setTimeout(() => silence.abort(), SILENT_MS)
        pending += decoder.decode(chunk, { stream: true })
        let end: number
        while ((end = pending.indexOf('\n\n')) >= 0) {
          this.deliver(id, subscription, pending.slice(0, end))
          pending = pending.slice(end + 2)
        }
      }
    } finally {
      clearTimeout(timer)
    }
  }

  /** One SSE message of another instance's stream, published into this hub. */
  private deliver(from: string, subscription: Subscription, message: string): void {
    let id: string | null = null
    let type: string | null = null
    const data: string[] = []
    for (const line of message.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4)
      else if (line.startsWith('event: ')) type = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
    }
    if (id !== null) {
      subscription.lastEventId = id
      this.resumeAt.set(from, id)
    }
    if (type === null || data.length === 0) return
    if (type === 'resync') {
      // What that instance published while this relay was away is gone: this hub's clients must refetch too.
      this.deps.hub.publish('resync', { reason: 'eventsDropped' }, from)
      return
    }
    if (!RELAYED_TYPES.includes(type as EventType)) return
    try {
      this.deps.hub.publish(type as EventType, JSON.parse(data.join('\n')), from)
    } catch {
      // Not JSON: not an event of ours.
    }
  }

  close(): void {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    for (const subscription of this.subscriptions.values()) subscription.abort.abort()
    this.subscriptions.clear()
  }
}
