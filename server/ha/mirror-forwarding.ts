import 'server-only'
import { ApiError } from '@/lib/api/errors'
import { FORWARDED_HEADER, signForwardedCaller, verifyForwardedCaller, type ForwardedCaller } from './forwarded-caller'
import type { InstanceStatus } from './instance-directory'

/**
 * One API from any instance (issue #40; docs/high-availability.md): a request about a mirror that reaches an instance
 * which does not run it is sent on to the instance that does, as Kafka Connect's workers forward REST calls to
 * their leader. The owner is the live instance whose status on the instances topic lists the mirror; the request
 * goes to its advertised URL with the caller vouched for (forwarded-caller.ts) instead of the caller's credentials.
 * A forwarded request is never forwarded again: an owner that gave the mirror up meanwhile answers
 * MIRROR_OWNER_UNAVAILABLE, and so does the forwarding instance when the owner does not answer, naming it.
 */

/** Request headers the owner needs (conditions, content, tracing); credentials never travel. */
const PASSED_ON = ['content-type', 'accept', 'accept-language', 'if-match', 'if-none-match', 'x-request-id']
/** Answer headers that describe the hop, not the answer (the body is read decoded). */
const HOP_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length']
/** The answering instance, on a forwarded answer. */
export const ANSWERED_BY_HEADER = 'x-mirrorboard-instance'

const FORWARD_TIMEOUT_MS = 30_000
const COLLECT_TIMEOUT_MS = 5_000

export interface ForwardingDeps {
  self: string
  key: Buffer
  /** The instances as the directory shows them now. */
  instances(): Array<InstanceStatus & { alive: boolean }>
  /** This instance runs the mirror now (the engine's view, fresher than its own status record). */
  runsHere(mirror: string): boolean
}

export type MirrorPlace = { here: true } | { here: false; owner: string; url: string | null; alive: boolean }

export class MirrorForwarding {
  constructor(private readonly deps: ForwardingDeps) {}

  /**
   * Where a mirror runs: here, on a live instance that lists it, or last on an instance that died (its work goes to
   * the others within the session timeout). A mirror nobody lists (none such, or between owners) is answered here.
   */
  placeOf(mirror: string): MirrorPlace {
    if (this.deps.runsHere(mirror)) return { here: true }
    const listing = this.deps.instances().filter((instance) => instance.id !== this.deps.self && instance.mirrors.includes(mirror))
    const owner = listing.find((instance) => instance.alive) ?? listing.sort((a, b) => b.heartbeatAt - a.heartbeatAt)[0]
    if (!owner) return { here: true }
    return { here: false, owner: owner.id, url: owner.url ?? null, alive: owner.alive }
  }

  /** The caller another instance vouched for, null when the request came straight from a client. */
  forwardedCaller(request: Request): ForwardedCaller | { refused: string } | null {
    const header = request.headers.get(FORWARDED_HEADER)
    if (header === null) return null
    const url = new URL(request.url)
    return verifyForwardedCaller(this.deps.key, header, { method: request.method, path: url.pathname + url.search })
  }

  /** Another instance sent this request on (route() has checked its signature by then). */
  isForwarded(request: Request): boolean {
    return request.headers.has(FORWARDED_HEADER)
  }

  /** Sends the request to the mirror's owner and answers what it answers; MIRROR_OWNER_UNAVAILABLE when it cannot. */
  async forward(request: Request, mirror: string, place: Exclude<MirrorPlace, { here: true }>, principal: unknown, body: ArrayBuffer | null): Promise<Response> {
    const unavailable = (why: string, cause?: unknown) =>
      new ApiError('MIRROR_OWNER_UNAVAILABLE', `mirror ${mirror} runs on instance ${place.owner}${place.url ? ` (${place.url})` : ''}, ${why}`, {
        cause,
        details: { owner: place.owner, url: place.url },
      })
    if (!place.alive) throw unavailable('which stopped answering; another instance takes the mirror over within the session timeout: retry then')
    if (place.url === null) throw unavailable('which advertises no address (MIRRORBOARD_ADVERTISED_URL): send the request to it directly')
    const url = new URL(request.url)
    const path = url.pathname + url.search
    const headers = new Headers()
    for (const name of PASSED_ON) {
      const value = request.headers.get(name)
      if (value !== null) headers.set(name, value)
    }
    headers.set(FORWARDED_HEADER, signForwardedCaller(this.deps.key, { principal, from: this.deps.self, method: request.method, path }))
    let answer: Response
    try {
      answer = await fetch(`${place.url}${path}`, { method: request.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) })
    } catch (error) {
      throw unavailable(`which did not answer (${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)}): retry, or send the request to it directly`, error)
    }
    const passed = new Headers(answer.headers)
    for (const name of HOP_HEADERS) passed.delete(name)
    if (!passed.has(ANSWERED_BY_HEADER)) passed.set(ANSWERED_BY_HEADER, place.owner)
    return new Response(answer.body, { status: answer.status, headers: passed })
  }

  /**
   * A read of a mirror another instance runs, asked of its owner for a page this instance renders (the pages read
   * the engine directly, not through a route): the owner's JSON answer, null for 404, MIRROR_OWNER_UNAVAILABLE when
   * it cannot be asked.
   */
  async readFromOwner(mirror: string, place: Exclude<MirrorPlace, { here: true }>, path: string, principal: unknown): Promise<unknown> {
    const headers = new Headers({ accept: 'application/json' })
    const request = new Request(new URL(path, 'http://this-instance'), { headers })
    const answer = await this.forward(request, mirror, place, principal, null)
    if (answer.status === 404) return null
    const body: unknown = await answer.json()
    if (!answer.ok) {
      const error = (body as { error?: { code?: string; message?: string } }).error
      throw new ApiError('MIRROR_OWNER_UNAVAILABLE', `instance ${place.owner}, which runs mirror ${mirror}, answered ${answer.status}${error?.message ? `: ${error.message}` : ''}`, {
        details: { owner: place.owner, url: place.url },
      })
    }
    return body
  }

  /**
   * The same read (a path below /api/v1 with its query) answered by every other live instance for what it runs, for
   * lists that span the group (GET /mirrors). An instance that does not answer is left out and named.
   */
  async collect(request: Request, principal: unknown): Promise<{ answers: unknown[]; missing: string[] }> {
    const url = new URL(request.url)
    const path = url.pathname + url.search
    const others = this.deps.instances().filter((instance) => instance.alive && instance.id !== this.deps.self)
    const answers: unknown[] = []
    const missing: string[] = []
    await Promise.all(
      others.map(async (instance) => {
        try {
          if (!instance.url) throw new Error('no advertised URL')
          const answer = await fetch(`${instance.url}${path}`, {
            headers: { accept: 'application/json', [FORWARDED_HEADER]: signForwardedCaller(this.deps.key, { principal, from: this.deps.self, method: 'GET', path }) },
            signal: AbortSignal.timeout(COLLECT_TIMEOUT_MS),
          })
          if (!answer.ok) throw new Error(`status ${answer.status}`)
          answers.push(await answer.json())
        } catch {
          missing.push(instance.id)
        }
      }),
    )
    return { answers, missing: missing.sort() }
  }
}
