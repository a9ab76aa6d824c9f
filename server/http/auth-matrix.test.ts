import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { SERVED_ENDPOINTS, type AccessRole, type Endpoint } from '@/lib/api/endpoints'
import { roleAtLeast, type GrantRole } from '@/lib/auth/grants'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime, TEST_TOKENS } from '@/server/testing/test-runtime'

/**
 * The auth matrix (issue #39): every mutating endpoint of the catalog × every kind of caller — none, a viewer,
 * an operator and an admin scoped to some mirrors and clusters (in and out of their scope), an operator and an
 * admin everywhere, a cross-origin request, a cookie without its Origin — each answered with the code the table
 * says. The endpoints come from the catalog, so a new one is in the matrix the day it is added: it must name its
 * role in ROLES below, and a handler that forgets its scope check lets an out-of-scope caller through and fails
 * here. Reads that name a mirror or a cluster (by path or by the id of one of its operations, drills or
 * verifications) are checked for scoped viewers the same way.
 *
 * Denied calls change nothing (authorisation runs before the body is read). Allowed calls are sent with a body
 * their schema refuses where they take one, so most stop at 400; the ones that take none do their work, so they
 * run last, after every denied call.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-auth-matrix-fallback-${process.pid}`)

/** The role every mutation needs: the contract, written out so a changed catalog entry is a visible change. */
const ROLES: Record<string, AccessRole> = {
  createSession: 'public',
  deleteSession: 'public',
  signOut: 'public',
  createDemoSession: 'public',
  createCluster: 'admin',
  deleteCluster: 'admin',
  createAlertReceiver: 'admin',
  deleteAlertReceiver: 'admin',
  createApiToken: 'admin',
  revokeApiToken: 'admin',
  createTopic: 'operator',
  produceRecords: 'operator',
  createProducer: 'operator',
  producerSend: 'operator',
  producerCommit: 'operator',
  producerAbort: 'operator',
  closeProducer: 'operator',
  commitGroupOffsets: 'operator',
  deleteTopic: 'operator',
  createPartitions: 'operator',
  deleteRecords: 'operator',
  patchTopicConfigs: 'operator',
  createMirror: 'operator',
  patchMirror: 'operator',
  deleteMirror: 'operator',
  startMirrorTopics: 'operator',
  pauseMirrorTopics: 'operator',
  resumeMirrorTopics: 'operator',
  recoverMirrorTopics: 'operator',
  failover: 'operator',
  unfenceMirror: 'operator',
  cancelOperation: 'operator',
  updateDemoWorkload: 'operator',
  pauseDemoWorkload: 'operator',
  resumeDemoWorkload: 'operator',
  injectDemoFault: 'operator',
  healDemoFault: 'operator',
  runDemoScenario: 'operator',
  testAlertReceiver: 'operator',
  createAlertSilence: 'operator',
  deleteAlertSilence: 'operator',
  verifyMirror: 'operator',
  cancelVerification: 'operator',
  startDrill: 'operator',
  cancelDrill: 'operator',
}

interface Caller {
  name: string
  role: GrantRole
  /** Scoped to mirrors and clusters named `in-…`; global otherwise. */
  scoped: boolean
  headers: Record<string, string>
}

type Scope = 'in' | 'out'
/**
 * What an endpoint acts on: a mirror or cluster by path, a mirror through an id (of an operation, drill,
 * verification or silence), a mirror its body names (`{ mirror }`: a silence), or nothing named.
 */
type Target = 'mirror' | 'cluster' | 'body-mirror' | 'none'

const root = path.resolve(__dirname, '../..')
const ORIGIN = 'http://127.0.0.1:3000'
let dataDir: string
let runtime: Runtime
const ids: Record<'operations' | 'drills' | 'verifications' | 'silences', Record<Scope, string>> = {
  operations: { in: '', out: '' },
  drills: { in: '', out: '' },
  verifications: { in: '', out: '' },
  silences: { in: '', out: '' },
}
const BY_ID = /\/(operations|drills|verifications|silences)\/\{id\}/

/** True when the endpoint's body names the mirror it acts on. */
function namesMirrorInBody(endpoint: Endpoint): boolean {
  const body = endpoint.body as { shape?: Record<string, unknown> } | undefined
  return body?.shape !== undefined && 'mirror' in body.shape
}

/**
 * A body the endpoint's schema accepts, naming the in-scope or the out-of-scope mirror: sent by the callers the
 * matrix expects to be refused, so a handler that forgets to check the mirror it is given changes something
 * and answers 2xx instead of 403.
 */
function validBodyNaming(endpoint: Endpoint, scope: Scope): unknown {
  const mirror = `${scope}-m`
  if (endpoint.operationId === 'createAlertSilence') return { mirror, until: Date.now() + 60 * 60 * 1000, comment: 'auth matrix' }
  throw new Error(`${endpoint.operationId} names its mirror in its body: add a valid body to validBodyNaming`)
}
const callers: Caller[] = []
let cookie = ''

function targetOf(endpoint: Endpoint): Target {
  if (endpoint.path.includes('{mirror}') || BY_ID.test(endpoint.path)) return 'mirror'
  if (endpoint.path.includes('{cluster}')) return 'cluster'
  if (namesMirrorInBody(endpoint)) return 'body-mirror'
  return 'none'
}

/** The concrete path and parameters of an endpoint, naming the in-scope or the out-of-scope resources. */
function concrete(endpoint: Endpoint, scope: Scope): { path: string; params: Record<string, string> } {
  const collection = BY_ID.exec(endpoint.path)?.[1] as keyof typeof ids | undefined
  const values: Record<string, string> = {
    mirror: `${scope}-m`,
    cluster: `${scope}-c`,
    id: collection === undefined ? 'no-such-id' : ids[collection][scope],
    topic: 'orders',
    partition: '0',
    handle: 'no-such-handle',
    group: 'billing',
    name: 'no-such-name',
  }
  const params: Record<string, string> = {}
  const concretePath = endpoint.path.replace(/\{([^}]+)\}/g, (_match, key: string) => {
    params[key] = values[key] ?? 'x'
    return params[key]
  })
  return { path: concretePath, params }
}

type Handler = Parameters<typeof callRoute>[0]

async function handlerOf(endpoint: Endpoint): Promise<Handler> {
  const file = path.join(root, 'app', endpoint.path.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts')
  const module = (await import(/* @vite-ignore */ file)) as Record<string, Handler>
  const handler = module[endpoint.method]
  if (handler === undefined) throw new Error(`${file} exports no ${endpoint.method}`)
  return handler
}

async function call(endpoint: Endpoint, scope: Scope, headers: Record<string, string>, withBody: boolean) {
  const { path: concretePath, params } = concrete(endpoint, scope)
  return callRoute(await handlerOf(endpoint), {
    method: endpoint.method,
    path: concretePath,
    params,
    headers,
    // A key no request schema has: an allowed call stops at 400 instead of changing something. A refused call to
    // an endpoint whose body names the mirror sends a valid body: only the handler's check stands in its way.
    ...(withBody && endpoint.body !== undefined ? { body: { authMatrixProbe: true } } : targetOf(endpoint) === 'body-mirror' ? { body: validBodyNaming(endpoint, scope) } : {}),
  })
}

function expectedAllowed(caller: Caller, endpoint: Endpoint, scope: Scope): boolean {
  const required = ROLES[endpoint.operationId] ?? endpoint.role
  if (required === 'public') return true
  if (!roleAtLeast(caller.role, required)) return false
  if (!caller.scoped) return true
  return targetOf(endpoint) !== 'none' && scope === 'in'
}

const mutations = SERVED_ENDPOINTS.filter((endpoint) => endpoint.method !== 'GET')
const scopesOf = (endpoint: Endpoint): Scope[] => (targetOf(endpoint) === 'none' ? ['in'] : ['in', 'out'])
const label = (endpoint: Endpoint, scope: Scope) => `${endpoint.method} ${concrete(endpoint, scope).path}`

describe('the auth matrix', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-auth-matrix-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    for (const name of ['in-c', 'out-c']) await runtime.clusters.create({ name, kind: 'embedded', brokers: 1 })
    await runtime.clusters.embedded('in-c').createTopic({ name: 'orders', partitions: 1 })
    await runtime.clusters.embedded('out-c').createTopic({ name: 'billing', partitions: 1 })
    await runtime.engine.createMirror({ name: 'in-m', sourceCluster: 'in-c', destinationCluster: 'out-c', topics: ['orders'] })
    await runtime.engine.createMirror({ name: 'out-m', sourceCluster: 'out-c', destinationCluster: 'in-c', topics: ['billing'] })
    const settle = { timeout: 60_000, interval: 50 }
    for (const mirror of ['in-m', 'out-m']) await vi.waitFor(() => expect(runtime.engine.partitions(mirror).every((p) => p.state === 'MIRRORING')).toBe(true), settle)

    // A verification, a drill and a failover of each mirror: the ids the by-id endpoints are called with.
    const started = async (collection: string, mirror: string, body: unknown, key: string) => {
      const answer = await callRoute(await handlerOf(SERVED_ENDPOINTS.find((e) => e.method === 'POST' && e.path === `/api/v1/mirrors/{mirror}/${collection}`) as Endpoint), {
        method: 'POST',
        path: `/api/v1/mirrors/${mirror}/${collection}`,
        params: { mirror },
        body,
      })
      expect(answer.status, JSON.stringify(answer.body)).toBe(202)
      return (answer.body as Record<string, string>)[key] ?? ''
    }
    for (const scope of ['in', 'out'] as const) {
      ids.verifications[scope] = await started('verify', `${scope}-m`, {}, 'verification')
      ids.drills[scope] = await started('drills', `${scope}-m`, {}, 'drill')
      await vi.waitFor(() => expect(runtime.drills.get(ids.drills[scope])?.status).not.toBe('running'), settle)
      ids.operations[scope] = await started('failover', `${scope}-m`, { confirm: `${scope}-m` }, 'operation')
      ids.silences[scope] = (await runtime.alerts.addSilence({ mirror: `${scope}-m`, until: Date.now() + 60 * 60 * 1000, comment: 'auth matrix' }, 'test')).id
    }

    const tokens = runtime.auth.apiTokens
    if (tokens === null) throw new Error('the test runtime keeps no API tokens')
    const scopes = { clusters: ['in-.*'], mirrors: ['in-.*'] }
    for (const [name, role, scoped] of [
      ['viewer', 'viewer', false],
      ['scoped-viewer', 'viewer', true],
      ['scoped-operator', 'operator', true],
      ['scoped-admin', 'admin', true],
      ['operator', 'operator', false],
      ['admin', 'admin', false],
    ] as const) {
      const { secret } = await tokens.create({ name: `matrix-${name}`, role, ...(scoped ? scopes : {}), expiresInDays: 1 }, 'test')
      callers.push({ name, role, scoped, headers: { authorization: `Bearer ${secret}` } })
    }
    callers.push({ name: 'shared operator token', role: 'admin', scoped: false, headers: { authorization: `Bearer ${TEST_TOKENS.operator}` } })
    callers.push({ name: 'shared viewer token', role: 'viewer', scoped: false, headers: { authorization: `Bearer ${TEST_TOKENS.viewer}` } })
    const signIn = await runtime.auth.login(TEST_TOKENS.operator, new Request(`${ORIGIN}/api/v1/session`, { method: 'POST' }))
    cookie = signIn.setCookie.split(';')[0] ?? ''
  }, 120_000)
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('names the role of every mutation of the catalog', () => {
    for (const endpoint of mutations) expect(ROLES[endpoint.operationId], `${endpoint.operationId}: add it to ROLES`).toBe(endpoint.role)
    expect(mutations.length).toBeGreaterThanOrEqual(40)
  })

  it('refuses every mutation to callers without a grant reaching it, with 401 or 403 and nothing changed', async () => {
    const refusals: string[] = []
    for (const endpoint of mutations) {
      const required = ROLES[endpoint.operationId]
      for (const scope of scopesOf(endpoint)) {
        const where = label(endpoint, scope)
        // A cross-origin change is refused whoever asks, even on public endpoints.
        const crossOrigin = await call(endpoint, scope, { authorization: `Bearer ${TEST_TOKENS.operator}`, origin: 'http://evil.example' }, false)
        expect(crossOrigin, `${where} cross-origin`).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
        if (required === 'public') continue
        expect(await call(endpoint, scope, { authorization: '' }, false), `${where} without credentials`).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED' } } })
        // The browser session of the operator token, without the Origin a page's fetch sends.
        expect(await call(endpoint, scope, { authorization: '', cookie }, false), `${where} cookie without Origin`).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
        for (const caller of callers.filter((c) => !expectedAllowed(c, endpoint, scope))) {
          const answer = await call(endpoint, scope, caller.headers, false)
          expect(answer, `${where} as ${caller.name}`).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
          refusals.push(`${scope} ${caller.name} ${endpoint.operationId}`)
        }
      }
    }
    // Scoped callers were refused outside their scope on every mutation naming a mirror or a cluster.
    expect(refusals.filter((refusal) => refusal.startsWith('out scoped-admin ')).length).toBe(mutations.filter((e) => targetOf(e) !== 'none').length)
    expect(refusals).toContain('out scoped-operator createAlertSilence')
    expect(refusals).toContain('out scoped-operator deleteAlertSilence')
    expect(runtime.engine.listMirrors().map((mirror) => mirror.name).sort()).toEqual(['in-m', 'out-m'])
    expect(runtime.alerts.listSilences().map((silence) => silence.id).sort()).toEqual([ids.silences.in, ids.silences.out].sort())
    expect((await runtime.clusters.list()).map((cluster) => cluster.name).sort()).toEqual(['in-c', 'out-c'])
  })

  it('lets scoped viewers read what their scope names and refuses the rest by path or by id', async () => {
    const reads = SERVED_ENDPOINTS.filter((endpoint) => endpoint.method === 'GET' && endpoint.role === 'viewer' && targetOf(endpoint) !== 'none')
    expect(reads.length).toBeGreaterThanOrEqual(15)
    const scopedViewer = callers.find((caller) => caller.name === 'scoped-viewer') as Caller
    for (const endpoint of reads) {
      expect(await call(endpoint, 'out', scopedViewer.headers, false), `${label(endpoint, 'out')} as scoped-viewer`).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
      const inside = await call(endpoint, 'in', scopedViewer.headers, false)
      expect([401, 403], `${label(endpoint, 'in')} as scoped-viewer: ${JSON.stringify(inside.body)}`).not.toContain(inside.status)
    }
    // Lists of things each about one mirror show the scoped viewer those of its mirrors only.
    const silences = await call(SERVED_ENDPOINTS.find((endpoint) => endpoint.operationId === 'listAlertSilences') as Endpoint, 'in', scopedViewer.headers, false)
    expect((silences.body as { silences: Array<{ mirror: string }> }).silences.map((silence) => silence.mirror)).toEqual(['in-m'])
  })

  it('lets every caller whose grant reaches a mutation past authorisation (allowed calls run last: some change things)', async () => {
    for (const endpoint of mutations) {
      if (ROLES[endpoint.operationId] === 'public') continue
      for (const scope of scopesOf(endpoint)) {
        for (const caller of callers.filter((c) => expectedAllowed(c, endpoint, scope))) {
          const answer = await call(endpoint, scope, caller.headers, true)
          expect([401, 403], `${label(endpoint, scope)} as ${caller.name}: ${answer.status} ${JSON.stringify(answer.body)}`).not.toContain(answer.status)
        }
        // A same-origin cookie session of the operator token (admin everywhere) passes too.
        const viaCookie = await call(endpoint, scope, { authorization: '', cookie, origin: ORIGIN }, true)
        expect([401, 403], `${label(endpoint, scope)} by cookie: ${JSON.stringify(viaCookie.body)}`).not.toContain(viaCookie.status)
      }
    }
  })
})
