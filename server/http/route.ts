import 'server-only'
import type { z } from 'zod'
import { isMutation, type AccessRole, type EmptyContent, type Endpoint } from '@/lib/api/endpoints'
import { summarizePlan, summarizeRequest } from '@/server/audit/summarize'

/** What a redacted field reads as in the audit log (the sign-in route records its token so). */
export { REDACTED } from '@/server/audit/summarize'
import { getRuntime, type Runtime } from '@/server/runtime'
import type { Resource } from '@/lib/auth/grants'
import { authorize, requireGrant, type Authentication, type Principal } from './auth'
export { requesterOf } from './auth'
import { clientAddressOf } from './client-address'
import { logger, withRequestId } from '../observability/logger'
import { randomUUID } from 'node:crypto'
import { problem, problemResponse, toProblem } from './problem'
import { parseInput, queryObject, readJsonBody } from './request'
import { jsonBody } from './json-body'
import { authenticateCaller, forwardToOwner } from './forwarding'
import { refuseWithoutControlCluster } from './control-guard'

/**
 * Builds a route handler from a catalog entry (lib/api/endpoints.ts), so each `route.ts` stays
 * parse → call → respond:
 *
 *   export const POST = route(clusterEndpoints.createTopic, async ({ params, body, runtime }) =>
 *     (await runtime.clusters.get(params.cluster)).createTopic(body))
 *
 * In order: authenticate and authorise (401/403 before anything is read), parse params, query and body
 * (400/413), run the handler, check its result against the response schema (a mismatch is a bug, so 500),
 * and for a mutation append the audit entry whatever the outcome. Every thrown error becomes a response in
 * `problem()`; none escapes to Next.js.
 */

type Output<S> = S extends z.ZodType ? z.output<S> : Record<string, never>
type ResponseBody<E extends Endpoint> = E['response'] extends z.ZodType ? z.input<E['response']> : never

/** A response with a status other than the endpoint's default (a dry run's 200), or with extra headers. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function reply(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return new Reply(status, body, headers)
}

/** What a handler may add to its audit entry. */
export interface AuditNote {
  target?: string
  dryRun?: boolean
  plan?: unknown
  /** The operation the request started, so its audit entry links to it. */
  operation?: string
  /** Overrides the caller's identity (a sign-in names the session it opened). */
  actor?: { actor: string; role: Principal['role']; actorName?: string | null }
}

export interface RouteContext<E extends Endpoint> {
  request: Request
  url: URL
  runtime: Runtime
  /** null only on public endpoints called without credentials. */
  principal: E['role'] extends 'public' ? Principal | null : Principal
  params: Output<E['params']>
  query: Output<E['query']>
  body: Output<E['body']>
  audit: AuditNote
  /**
   * For routes with `scope: 'handler'`: checks the caller's grants on the mirror or cluster the handler found
   * (a drill's mirror); FORBIDDEN otherwise. Call it before changing anything.
   */
  requireGrant: (resource: Resource) => void
}

export type HandlerResult<E extends Endpoint> =
  | ResponseBody<E>
  | Reply
  | Response
  | (E['response'] extends EmptyContent ? void : never)

export interface RouteOptions {
  /** Decides the required role per request (metrics are public when configured so). */
  role?: (runtime: Runtime) => AccessRole
  /** What the audit entry keeps of the body instead of its summary (a sign-in keeps no more than that a token came). */
  auditRequest?: (body: unknown) => unknown
  /**
   * Where the role is needed. By default the `{mirror}` or `{cluster}` of the path (changes on nothing named need
   * the role everywhere); `handler`: the route finds the resource itself (an operation by id) and calls
   * `requireGrant`, after authorisation checked the role is held somewhere.
   */
  scope?: 'path' | 'handler'
}

/** The mirror or cluster a path names, from its raw parameters (checked before anything is parsed). */
function resourceOf(params: Record<string, string | string[] | undefined>): Resource {
  if (typeof params.mirror === 'string') return { mirror: params.mirror }
  if (typeof params.cluster === 'string') return { cluster: params.cluster }
  return null
}

type NextContext = { params: Promise<Record<string, string | string[] | undefined>> }

const NO_STORE = { 'Cache-Control': 'no-store' }

/** Seconds: most answers take milliseconds; a dry run of 10,000 partitions or a held fetch of records longer. */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** By the catalog's path template (never the concrete path: one series per endpoint, not per mirror or topic). */
function requestDurations(runtime: Runtime) {
  return runtime.metrics.histogram('mirrorboard_http_request_duration_seconds', 'API requests by method, route template and status (until the answer starts; a stream counts until it opens).', ['method', 'route', 'status'], REQUEST_BUCKETS)
}

function hasDryRun(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { dryRun?: unknown }).dryRun === true
}

/** The `plan` a dry run answered with, for its audit entry. */
function planOf(result: unknown): unknown {
  const body = result instanceof Reply ? result.body : result
  return typeof body === 'object' && body !== null && !(body instanceof Response) && 'plan' in body ? (body as { plan: unknown }).plan : undefined
}

function buildResponse(endpoint: Endpoint, result: unknown, checkResponses: boolean): Response {
  if (result instanceof Response) return result
  const status = result instanceof Reply ? result.status : endpoint.status
  const body = result instanceof Reply ? result.body : result
  const headers = { ...NO_STORE, ...(result instanceof Reply ? result.headers : {}) }
  const schema = status === endpoint.status ? endpoint.response : endpoint.otherResponses?.[status]
  if (schema === undefined || ('kind' in schema && schema.kind === 'text')) {
    throw new Error(`${endpoint.operationId} answered status ${status}, which its catalog entry does not declare`)
  }
  if ('kind' in schema && schema.kind === 'empty') return new Response(null, { status, headers })
  if (checkResponses) checkBody(endpoint, schema as z.ZodType, body)
  // The body goes out as the handler built it, checked or not, so checking never changes what clients see.
  // Compression is the server's (server/main.ts), by what the client accepts; a Content-Encoding set here is dropped.
  return new Response(jsonBody(body), { status, headers: { ...headers, 'Content-Type': 'application/json' } })
}

/** A body that fails its schema, or carries fields the schema would strip or values it would transform, is a bug. */
function checkBody(endpoint: Endpoint, schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw new Error(`${endpoint.operationId} answered a body that does not match its schema`, { cause: parsed.error })
  if (canonicalJson(parsed.data) !== canonicalJson(body)) {
    throw new Error(`${endpoint.operationId} answered fields or values its schema does not declare: ${canonicalJson(body).slice(0, 300)}`)
  }
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  )
}

export function route<const E extends Endpoint>(
  endpoint: E,
  handler: (context: RouteContext<E>) => Promise<HandlerResult<E>> | HandlerResult<E>,
  options: RouteOptions = {},
): (request: Request, context: NextContext) => Promise<Response> {
  const mutation = isMutation(endpoint)
  // server/main.ts gives every request an id (a proxy's, or a new one); `next dev` has no main.ts.
  return (request, context) => withRequestId(request.headers.get('x-request-id') ?? randomUUID(), () => handle(request, context))
  async function handle(request: Request, context: NextContext): Promise<Response> {
    const started = performance.now()
    let runtime: Runtime
    try {
      runtime = await getRuntime()
    } catch (error) {
      return problem(error)
    }
    const url = new URL(request.url)
    const note: AuditNote = {}
    let authentication: Authentication = { status: 'anonymous' }
    let requestSummary: unknown = null
    let response: Response
    let failure: { code: string; message: string } | null = null
    let forwardedBy: string | null = null
    try {
      ;({ authentication, forwardedBy } = await authenticateCaller(runtime, request))
      const rawParams = (await context.params) ?? {}
      const required = options.role?.(runtime) ?? endpoint.role
      const principal = authorize(authentication, required, request, mutation, options.scope === 'handler' ? 'somewhere' : resourceOf(rawParams))
      refuseWithoutControlCluster(runtime, endpoint)
      // Several instances: a mirror another instance runs is answered (and audited) there (server/http/forwarding.ts).
      const owners = await forwardToOwner({ runtime, endpoint, request, params: rawParams, principal, forwardedBy })
      if (owners !== null) return owners
      const params = endpoint.params ? parseInput(endpoint.params, rawParams, 'params') : {}
      const query = endpoint.query ? parseInput(endpoint.query, queryObject(url), 'query') : {}
      let body: unknown = undefined
      if (endpoint.body) {
        const read = await readJsonBody(request)
        if (!read.ok) throw read.error
        requestSummary = options.auditRequest ? options.auditRequest(read.value) : summarizeRequest(read.value)
        if (hasDryRun(read.value)) note.dryRun = true
        body = parseInput(endpoint.body, read.value, 'body')
      }
      const result = await handler({
        request,
        url,
        runtime,
        principal: principal as RouteContext<E>['principal'],
        params: params as RouteContext<E>['params'],
        query: query as RouteContext<E>['query'],
        body: body as RouteContext<E>['body'],
        audit: note,
        requireGrant: (resource) => {
          if (principal !== null && required !== 'public') requireGrant(principal, required, resource)
        },
      })
      if (note.dryRun && note.plan === undefined) note.plan = planOf(result)
      response = buildResponse(endpoint, result, runtime.config.checkResponses)
    } catch (error) {
      const details = toProblem(error)
      failure = { code: details.body.error.code, message: details.body.error.message }
      response = problemResponse(details)
    }

    if (endpoint.audit !== undefined) {
      const identity: { actor: string; role: Principal['role'] | null; actorName?: string | null } =
        note.actor ??
        (authentication.status === 'authenticated'
          ? { actor: authentication.principal.actor, role: authentication.principal.role, actorName: authentication.principal.actorName }
          : { actor: 'anonymous', role: null })
      try {
        await runtime.audit.record({
          actor: identity.actor,
          ...(identity.actorName ? { actorName: identity.actorName } : {}),
          role: identity.role,
          action: endpoint.audit,
          target: note.target ?? url.pathname.replace(/^\/api\/v1/, ''),
          request: requestSummary,
          outcome: response.status < 400 ? 'ok' : response.status < 500 ? 'rejected' : 'failed',
          error: failure,
          dryRun: note.dryRun ?? false,
          ...(note.plan === undefined ? {} : { plan: summarizePlan(note.plan) }),
          ...(note.operation === undefined ? {} : { operation: note.operation }),
          ...(forwardedBy === null ? {} : { forwardedBy }),
        }, clientAddressOf(request))
      } catch (error) {
        // The change (if any) has happened; the caller still gets its outcome, and the gap is in the log.
        logger.error('could not append to the audit log', { action: endpoint.audit, error })
      }
    }
    const seconds = (performance.now() - started) / 1000
    requestDurations(runtime).observe({ method: endpoint.method, route: endpoint.path, status: String(response.status) }, seconds)
    const line = { method: endpoint.method, route: endpoint.path, status: response.status, ms: Math.round(seconds * 1000) }
    // Bugs (500) are logged where they are answered (problem.ts); every request at MIRRORBOARD_LOG_LEVEL=debug.
    logger.debug('request', failure === null ? line : { ...line, code: failure.code })
    return response
  }
}
