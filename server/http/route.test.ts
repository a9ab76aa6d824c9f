import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { EMPTY, type Endpoint } from '@/lib/api/endpoints'
import { ApiError } from '@/lib/api/errors'
import { DEFAULT_AUDIT_RETENTION } from '@/server/audit/audit-files'
import { AuditLog } from '@/server/audit/audit-log'
import { ClusterRegistry } from '@/server/cluster/registry'
import { createEngine, startAlerting } from '@/server/runtime'
import type { Runtime } from '@/server/runtime'
import { Auth, SessionStore } from './auth'
import { EventHub } from './events'
import { logger } from '../observability/logger'
import { MetricsRegistry } from '../observability/metrics'
import { reply, route } from './route'
import { createVerifier } from '../verification/verifier-wiring'
import { createDrills } from '../drills/drill-wiring'

const tokens = { operator: 'route-op', viewer: 'route-view' }
const holder = globalThis as typeof globalThis & { __mirrorboardRuntime?: Promise<Runtime> }
let dataDir: string
let runtime: Runtime

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-route-'))
  const events = new EventHub()
  const audit = await AuditLog.open(path.join(dataDir, 'audit.jsonl'), { onAppend: (entry) => events.publish('audit', entry) })
  const clusters = await ClusterRegistry.open({ dataDir, log: logger })
  const metrics = new MetricsRegistry()
  const { engine, splitBrain } = await createEngine({ clusters, events, metrics, log: logger, dataDir })
  const verifier = await createVerifier({ clusters, engine, dataDir, log: logger, publish: (summary) => events.publish('verification', summary) })
  const drills = await createDrills({ clusters, engine, metrics, dataDir, log: logger, publish: (drill) => events.publish('drill', drill) })
  const alerts = await startAlerting({ engine, splitBrain, drills, events, dataDir, url: 'http://127.0.0.1:3000', log: logger })
  runtime = {
    version: '0.0.0-test',
    config: { dataDir, demo: false, url: 'http://127.0.0.1:3000', metricsPublic: false, metricsClusterPartitions: true, checkResponses: true, tokens, auditRetention: DEFAULT_AUDIT_RETENTION, kafkaAllowedHosts: null, oidc: null, rolesFile: undefined, tokenSignIn: true, sessionIdleMs: 3_600_000 },
    startedAt: 0,
    events,
    audit,
    identity: null,
    auth: new Auth(tokens, await SessionStore.open(dataDir)),
    clusters,
    engine,
    splitBrain,
    verifier,
    drills,
    metrics,
    alerts,
    demo: null,
    close: async () => {
      splitBrain.stop()
      await alerts.close()
      await drills.close()
      await verifier.close()
      await engine.close()
      await clusters.close()
      await audit.close()
    },
  }
  holder.__mirrorboardRuntime = Promise.resolve(runtime)
})
afterAll(async () => {
  await runtime.close()
  delete holder.__mirrorboardRuntime
  rmSync(dataDir, { recursive: true, force: true })
})
beforeEach(() => {
  vi.restoreAllMocks()
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
})

const Thing = z.object({ id: z.number() })
const mutation = {
  operationId: 'makeThing',
  method: 'POST',
  path: '/api/v1/things/{name}',
  role: 'operator',
  summary: 'test',
  audit: 'thing.make',
  params: z.object({ name: z.string().regex(/^[a-z]+$/) }),
  body: z.strictObject({ size: z.number().int().nonnegative(), dryRun: z.boolean().optional(), token: z.string().optional() }),
  status: 201,
  response: Thing,
  otherResponses: { 200: z.object({ plan: z.array(z.string()) }) },
} as const satisfies Endpoint
const read = {
  operationId: 'readThing',
  method: 'GET',
  path: '/api/v1/things',
  role: 'viewer',
  summary: 'test',
  query: z.object({ limit: z.string().regex(/^\d+$/).transform(Number).default(10) }),
  status: 200,
  response: z.object({ limit: z.number() }),
} as const satisfies Endpoint
const removal = { operationId: 'dropThing', method: 'DELETE', path: '/api/v1/things', role: 'operator', summary: 'test', audit: 'thing.drop', status: 204, response: EMPTY } as const satisfies Endpoint

function call(handler: (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>, init: { method?: string; body?: string; headers?: Record<string, string>; name?: string; query?: string } = {}) {
  const request = new Request(`http://127.0.0.1/api/v1/things/${init.name ?? 'box'}${init.query ?? ''}`, {
    method: init.method ?? 'POST',
    headers: { host: '127.0.0.1', authorization: `Bearer ${tokens.operator}`, ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  })
  return handler(request, { params: Promise.resolve({ name: init.name ?? 'box' }) })
}

async function lastAudit() {
  const [entry] = await runtime.audit.query({ limit: 1 })
  return entry
}

describe('route', () => {
  it('parses, calls and answers with the declared status, auditing the accepted mutation', async () => {
    const handler = route(mutation, ({ params, body, principal }) => {
      expect(principal.role).toBe('operator')
      return { id: body.size + params.name.length }
    })
    const response = await call(handler, { body: '{"size":4}' })
    expect(response.status).toBe(201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({ id: 7 })
    expect(await lastAudit()).toMatchObject({
      actor: 'token:operator',
      role: 'operator',
      action: 'thing.make',
      target: '/things/box',
      request: { size: 4 },
      outcome: 'ok',
      error: null,
      dryRun: false,
    })
  })

  it('lets a handler answer another declared status and attach a dry-run plan to the audit entry', async () => {
    const handler = route(mutation, ({ audit }) => {
      audit.plan = ['truncate orders-0 to 3']
      return reply(200, { plan: ['truncate orders-0 to 3'] })
    })
    const response = await call(handler, { body: '{"size":1,"dryRun":true}' })
    expect(response.status).toBe(200)
    expect(await lastAudit()).toMatchObject({ outcome: 'ok', dryRun: true, plan: ['truncate orders-0 to 3'] })
  })

  it('attaches the plan a dry run answered with when the handler did not', async () => {
    const response = await call(route(mutation, () => reply(200, { plan: ['remove 3 records'] })), { body: '{"size":1,"dryRun":true}' })
    expect(response.status).toBe(200)
    expect(await lastAudit()).toMatchObject({ dryRun: true, plan: ['remove 3 records'] })
  })

  it('refuses before reading anything when credentials are missing, and audits the attempt as anonymous', async () => {
    const handler = vi.fn(() => ({ id: 1 }))
    const response = await call(route(mutation, handler), { body: '{"size":1}', headers: { authorization: '' } })
    expect(response.status).toBe(401)
    expect(handler).not.toHaveBeenCalled()
    expect(await lastAudit()).toMatchObject({ actor: 'anonymous', role: null, request: null, outcome: 'rejected', error: { code: 'UNAUTHENTICATED' } })
  })

  it('audits invalid input with the request summary, secrets removed', async () => {
    const handler = vi.fn(() => ({ id: 1 }))
    const response = await call(route(mutation, handler), { body: '{"size":-1,"token":"hunter2"}' })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^body\.size: /)
    expect(handler).not.toHaveBeenCalled()
    const entry = await lastAudit()
    expect(entry).toMatchObject({ request: { size: -1, token: '[redacted]' }, outcome: 'rejected', error: { code: 'VALIDATION_FAILED' } })
    expect(JSON.stringify(entry)).not.toContain('hunter2')
  })

  it('validates path params before the body', async () => {
    const response = await call(route(mutation, () => ({ id: 1 })), { name: 'NOT-lower', body: '{' })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^params\.name: /)
  })

  it('answers INTERNAL for a handler bug, audits it as failed and logs it', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const response = await call(
      route(mutation, () => {
        throw new TypeError('cannot read properties of undefined')
      }),
      { body: '{"size":1}' },
    )
    expect(response.status).toBe(500)
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('INTERNAL')
    expect(body.error.message).not.toContain('undefined')
    expect(await lastAudit()).toMatchObject({ outcome: 'failed', error: { code: 'INTERNAL' } })
    expect(write.mock.calls.some((args) => String(args[0]).includes('cannot read properties of undefined'))).toBe(true)
  })

  it('answers INTERNAL when a handler returns a body its schema does not allow, or an undeclared status', async () => {
    const wrongBody = await call(route(mutation, () => ({ id: 'one' }) as unknown as { id: number }), { body: '{"size":1}' })
    expect(wrongBody.status).toBe(500)
    const wrongStatus = await call(route(mutation, () => reply(202, { id: 1 })), { body: '{"size":1}' })
    expect(wrongStatus.status).toBe(500)
    // A field the schema would strip is a leak of internals, not something to drop silently.
    const extraField = await call(route(mutation, () => ({ id: 1, secret: 'x' }) as unknown as { id: number }), { body: '{"size":1}' })
    expect(extraField.status).toBe(500)
  })

  it('sends a long list in pieces that make the same JSON as one encoding', async () => {
    const list = { operationId: 'listThings', method: 'GET', path: '/api/v1/things', role: 'viewer', summary: 'test', status: 200, response: z.object({ total: z.number(), items: z.array(z.object({ n: z.number(), name: z.string() })) }) } as const satisfies Endpoint
    const items = Array.from({ length: 5_001 }, (_, n) => ({ n, name: `ä-${n}` }))
    const response = await call(route(list, () => ({ total: items.length, items })), { method: 'GET' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(await response.text()).toBe(JSON.stringify({ total: items.length, items }))
  })

  it('sends the body unchecked when response checks are off (production), exactly as built', async () => {
    const config = runtime.config
    ;(runtime as { config: typeof config }).config = { ...config, checkResponses: false }
    try {
      const response = await call(route(mutation, () => ({ id: 7 })), { body: '{"size":1}' })
      expect(response.status).toBe(201)
      expect(await response.json()).toEqual({ id: 7 })
    } finally {
      ;(runtime as { config: typeof config }).config = config
    }
  })

  it('keeps the code and status of typed errors from handlers', async () => {
    const response = await call(
      route(mutation, () => {
        throw new ApiError('CONFLICT', 'thing exists', { details: { name: 'box' } })
      }),
      { body: '{"size":1}' },
    )
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ error: { code: 'CONFLICT', message: 'thing exists', details: { name: 'box' } } })
  })

  it('parses queries with defaults and does not audit reads', async () => {
    const before = runtime.audit.lastEntryId
    const handler = route(read, ({ query }) => ({ limit: query.limit }))
    const viewer = { authorization: `Bearer ${tokens.viewer}` }
    expect(await (await call(handler, { method: 'GET', headers: viewer })).json()).toEqual({ limit: 10 })
    expect(await (await call(handler, { method: 'GET', headers: viewer, query: '?limit=3' })).json()).toEqual({ limit: 3 })
    expect((await call(handler, { method: 'GET', headers: viewer, query: '?limit=-3' })).status).toBe(400)
    expect(runtime.audit.lastEntryId).toBe(before)
  })

  it('answers 204 without a body for empty responses', async () => {
    const response = await call(route(removal, () => undefined), { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    expect(await lastAudit()).toMatchObject({ action: 'thing.drop', outcome: 'ok' })
  })

  it('publishes each audit entry to the event hub', async () => {
    const seen: unknown[] = []
    const unsubscribe = runtime.events.subscribe((event) => seen.push(event.data))
    await call(route(mutation, () => ({ id: 1 })), { body: '{"size":1}' })
    unsubscribe()
    expect(seen).toEqual([expect.objectContaining({ action: 'thing.make', outcome: 'ok' })])
  })

  it('keeps what auditRequest makes of a body instead of its summary (a sign-in: no more than that a token came)', async () => {
    const handler = route(mutation, () => ({ id: 1 }), { auditRequest: () => ({ token: '[redacted]' }) })
    await call(handler, { body: JSON.stringify({ size: 1, token: 'route-op', extra: 'x'.repeat(5000) }) })
    expect((await lastAudit())?.request).toEqual({ token: '[redacted]' })
  })

  it('collapses anonymous refusals from one client address into one entry per minute', async () => {
    const before = runtime.audit.lastEntryId
    const anonymous = (address: string) => ({ authorization: '', 'x-mirrorboard-client-address': address })
    for (let n = 0; n < 20; n++) expect((await call(route(mutation, () => ({ id: 1 })), { body: '{"size":1}', headers: anonymous('192.0.2.7') })).status).toBe(401)
    expect((await call(route(mutation, () => ({ id: 1 })), { body: '{"size":1}', headers: anonymous('192.0.2.8') })).status).toBe(401)
    expect(runtime.audit.lastEntryId - before).toBe(2)
    expect(await lastAudit()).toMatchObject({ actor: 'anonymous', outcome: 'rejected', count: 1, source: '192.0.2.8' })
  })
})
