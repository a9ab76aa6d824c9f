import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as auditRoute from '@/app/api/v1/audit/route'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import * as pauseRoute from '@/app/api/v1/mirrors/[mirror]/topics/pause/route'
import * as operationsRoute from '@/app/api/v1/operations/route'
import * as sessionRoute from '@/app/api/v1/session/route'
import * as tokenRoute from '@/app/api/v1/tokens/[name]/route'
import * as tokensRoute from '@/app/api/v1/tokens/route'
import { AuditList } from '@/lib/api/audit'
import { ClusterList } from '@/lib/api/clusters'
import { MirrorList } from '@/lib/api/mirrors'
import { Session } from '@/lib/api/session'
import { ApiTokenList, CreatedApiToken } from '@/lib/api/tokens'
import type { Runtime } from '@/server/runtime'
import { embeddedMirrors } from '@/server/testing/embedded-mirrors'
import { callRoute, openTestRuntime, TEST_TOKENS } from '@/server/testing/test-runtime'
import { ApiTokenStore } from './api-token-store'
import { Auth, SessionStore } from './auth'

/**
 * Named API tokens (issue #39) through the HTTP API: an administrator creates one with a role, scopes and an
 * expiry; its secret is answered once and only its hash is kept; it authenticates as `token:<name>` within its
 * scopes, in every audit entry; lists show what its scopes reach; revoking it ends it; it survives a restart.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-api-tokens-fallback-${process.pid}`)

let dataDir: string
let runtime: Runtime

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })
const createToken = (body: unknown, headers: Record<string, string> = {}) => callRoute(tokensRoute.POST, { method: 'POST', path: '/api/v1/tokens', body, headers })
const listTokens = (headers: Record<string, string> = {}) => callRoute(tokensRoute.GET, { path: '/api/v1/tokens', headers })
const revokeToken = (name: string, headers: Record<string, string> = {}) => callRoute(tokenRoute.DELETE, { method: 'DELETE', path: `/api/v1/tokens/${name}`, params: { name }, headers })
const pause = (mirror: string, headers: Record<string, string>) =>
  callRoute(pauseRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/topics/pause`, params: { mirror }, body: {}, headers })

async function secretOf(body: unknown): Promise<string> {
  const created = await createToken(body)
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return CreatedApiToken.parse(created.body).secret
}

describe('named API tokens over HTTP', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-api-tokens-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await embeddedMirrors(runtime, { source: 'east', destination: 'west', mirrors: { 'orders-to-eu-west': 'orders', 'billing-dr': 'billing' } })
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('creates a token whose secret is answered once and kept only as a hash; the list shows role, scopes, expiry, never the secret', async () => {
    const before = Date.now()
    const created = await createToken({ name: 'ci-failover', role: 'operator', mirrors: ['.*-to-eu-west'], expiresInDays: 30 })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const { token, secret } = CreatedApiToken.parse(created.body)
    expect(secret).toMatch(/^mbk_[A-Za-z0-9_-]{43}$/)
    expect(token).toMatchObject({ name: 'ci-failover', role: 'operator', mirrors: ['.*-to-eu-west'], createdBy: 'token:operator', lastUsedAt: null, prefix: secret.slice(0, 10) })
    expect(token.expiresAt - token.createdAt).toBe(30 * 24 * 3600 * 1000)
    expect(token.createdAt).toBeGreaterThanOrEqual(before)

    const listed = ApiTokenList.parse((await listTokens()).body)
    expect(listed.tokens.map((entry) => entry.name)).toEqual(['ci-failover'])
    expect(JSON.stringify((await listTokens()).body)).not.toContain(secret.slice(10))
    expect(JSON.stringify((await listTokens()).body)).not.toContain('hash')

    const file = path.join(dataDir, 'api-tokens.json')
    expect(readFileSync(file, 'utf8')).not.toContain(secret.slice(10))
    expect(statSync(file).mode & 0o777).toBe(0o600)
    // Nor in the audit log: the create is audited with its request, which holds no secret.
    expect(readFileSync(path.join(dataDir, 'audit', 'audit.jsonl'), 'utf8')).not.toContain(secret.slice(10))
  })

  it('refuses bad names, reserved names, bad patterns, unknown keys and a taken name with coded errors, creating nothing', async () => {
    for (const body of [
      { name: 'Bad Name', role: 'viewer' },
      { name: 'operator', role: 'viewer' },
      { name: 'x', role: 'root' },
      { name: 'x', role: 'viewer', mirrors: ['(unclosed'] },
      { name: 'x', role: 'viewer', mirrors: [] },
      { name: 'x', role: 'viewer', expiresInDays: 0 },
      { name: 'x', role: 'viewer', expiresInDays: 10_000 },
      { name: 'x', role: 'viewer', secret: 'mine' },
    ]) {
      expect(await createToken(body), JSON.stringify(body)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    }
    expect(await createToken({ name: 'ci-failover', role: 'viewer' })).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    expect(ApiTokenList.parse((await listTokens()).body).tokens.map((token) => token.name)).toEqual(['ci-failover'])
    expect(await revokeToken('nope')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
  })

  it('lets only an administrator everywhere manage tokens: not the viewer token, not an operator, not an admin scoped to some mirrors', async () => {
    const operator = await secretOf({ name: 'ops-bot', role: 'operator' })
    const scopedAdmin = await secretOf({ name: 'scoped-admin', role: 'admin', mirrors: ['.*'] })
    for (const headers of [bearer(TEST_TOKENS.viewer), bearer(operator), bearer(scopedAdmin)]) {
      expect(await createToken({ name: 'sneaky', role: 'admin' }, headers)).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
      expect(await revokeToken('ci-failover', headers)).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
      expect((await listTokens(headers)).status).toBe(403)
    }
    const admin = await secretOf({ name: 'platform-admin', role: 'admin' })
    const made = await createToken({ name: 'made-by-token', role: 'viewer' }, bearer(admin))
    expect(CreatedApiToken.parse(made.body).token.createdBy).toBe('token:platform-admin')
    const entries = AuditList.parse((await callRoute(auditRoute.GET, { path: '/api/v1/audit?action=token.create' })).body).entries
    expect(entries.filter((entry) => entry.outcome === 'rejected').map((entry) => entry.actor)).toEqual(expect.arrayContaining(['token:viewer', 'token:ops-bot', 'token:scoped-admin']))
    expect(entries.find((entry) => entry.target === '/tokens/made-by-token')).toMatchObject({ actor: 'token:platform-admin', outcome: 'ok' })
    for (const name of ['ops-bot', 'scoped-admin', 'platform-admin', 'made-by-token']) expect((await revokeToken(name)).status).toBe(204)
  })

  it('acts within its scopes as token:<name>: says who it is, changes the mirrors it names, is refused elsewhere, and every entry names it', async () => {
    const secret = await secretOf({ name: 'eu-operator', role: 'operator', mirrors: ['.*-to-eu-west'] })
    const session = Session.parse((await callRoute(sessionRoute.GET, { path: '/api/v1/session', headers: bearer(secret) })).body)
    expect(session).toMatchObject({ subject: 'token:eu-operator', method: 'token', via: 'bearer', roles: [{ role: 'operator', mirrors: ['.*-to-eu-west'] }] })

    expect((await pause('orders-to-eu-west', bearer(secret))).status).toBe(200)
    expect(await pause('billing-dr', bearer(secret))).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', details: { required: 'operator', mirror: 'billing-dr' } } } })
    expect(runtime.engine.partitions('billing-dr').some((p) => p.state === 'PAUSED')).toBe(false)

    const entries = AuditList.parse((await callRoute(auditRoute.GET, { path: '/api/v1/audit?action=mirror.topics.pause' })).body).entries
    expect(entries.map((entry) => [entry.actor, entry.target, entry.outcome])).toEqual(
      expect.arrayContaining([
        ['token:eu-operator', '/mirrors/orders-to-eu-west/topics/pause', 'ok'],
        ['token:eu-operator', '/mirrors/billing-dr/topics/pause', 'rejected'],
      ]),
    )
    // Its last use is recorded.
    expect(ApiTokenList.parse((await listTokens()).body).tokens.find((token) => token.name === 'eu-operator')?.lastUsedAt).toEqual(expect.any(Number))
  })

  it('shows a scoped token only the mirrors, clusters, operations and audit entries its scopes reach, and refuses the others by path', async () => {
    const secret = await secretOf({ name: 'eu-viewer', role: 'viewer', mirrors: ['.*-to-eu-west'] })
    const clusterViewer = await secretOf({ name: 'east-viewer', role: 'viewer', clusters: ['east'] })
    expect(MirrorList.parse((await callRoute(mirrorsRoute.GET, { path: '/api/v1/mirrors', headers: bearer(secret) })).body).mirrors.map((m) => m.name)).toEqual(['orders-to-eu-west'])
    expect(MirrorList.parse((await callRoute(mirrorsRoute.GET, { path: '/api/v1/mirrors' })).body).mirrors.map((m) => m.name).sort()).toEqual(['billing-dr', 'orders-to-eu-west'])
    expect(ClusterList.parse((await callRoute(clustersRoute.GET, { path: '/api/v1/clusters', headers: bearer(secret) })).body).clusters).toEqual([])
    expect(ClusterList.parse((await callRoute(clustersRoute.GET, { path: '/api/v1/clusters', headers: bearer(clusterViewer) })).body).clusters.map((c) => c.name)).toEqual(['east'])
    expect(await callRoute(mirrorRoute.GET, { path: '/api/v1/mirrors/billing-dr', params: { mirror: 'billing-dr' }, headers: bearer(secret) })).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
    expect((await callRoute(mirrorRoute.GET, { path: '/api/v1/mirrors/orders-to-eu-west', params: { mirror: 'orders-to-eu-west' }, headers: bearer(secret) })).status).toBe(200)

    // An entry about the other mirror (the operator's pause) and one about no mirror (a token's creation) stay hidden.
    expect((await pause('billing-dr', {})).status).toBe(200)
    const everything = AuditList.parse((await callRoute(auditRoute.GET, { path: '/api/v1/audit' })).body).entries
    expect(everything.some((entry) => entry.target === '/mirrors/billing-dr/topics/pause')).toBe(true)
    const seen = AuditList.parse((await callRoute(auditRoute.GET, { path: '/api/v1/audit', headers: bearer(secret) })).body).entries
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((entry) => entry.target.startsWith('/mirrors/orders-to-eu-west'))).toBe(true)
    // The limit counts what the caller sees: one entry asked, one entry about its mirror answered.
    expect(AuditList.parse((await callRoute(auditRoute.GET, { path: '/api/v1/audit?limit=1', headers: bearer(secret) })).body).entries.map((entry) => entry.target)).toEqual([seen[0]?.target])

    const operations = (await callRoute(operationsRoute.GET, { path: '/api/v1/operations', headers: bearer(secret) })).body as { operations: unknown[] }
    expect(operations.operations).toEqual([])
  })

  it('stops working the moment it is revoked, audited', async () => {
    const secret = await secretOf({ name: 'short-lived', role: 'viewer' })
    expect((await callRoute(sessionRoute.GET, { path: '/api/v1/session', headers: bearer(secret) })).status).toBe(200)
    expect((await revokeToken('short-lived')).status).toBe(204)
    expect(await callRoute(sessionRoute.GET, { path: '/api/v1/session', headers: bearer(secret) })).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED' } } })
    const entries = AuditList.parse((await callRoute(auditRoute.GET, { path: '/api/v1/audit?action=token.revoke' })).body).entries
    expect(entries.find((entry) => entry.target === '/tokens/short-lived')).toMatchObject({ actor: 'token:operator', outcome: 'ok' })
  })

  it('is not a way to sign a browser in', async () => {
    const secret = await secretOf({ name: 'no-browser', role: 'admin' })
    const signIn = await callRoute(sessionRoute.POST, { method: 'POST', path: '/api/v1/session', body: { token: secret }, headers: { authorization: '', origin: 'http://127.0.0.1:3000' } })
    expect(signIn).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: expect.stringContaining('for machines') } } })
  })
})

describe('ApiTokenStore', () => {
  it('keeps tokens across a restart, and refuses one past its expiry by name without counting it as a guess', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-api-token-store-'))
    try {
      let now = 1_000_000
      const store = await ApiTokenStore.open(dir, () => now)
      const { secret } = await store.create({ name: 'nightly', role: 'viewer', clusters: ['east'], expiresInDays: 1 }, 'user:alice@example.com')
      const reopened = await ApiTokenStore.open(dir, () => now)
      expect(reopened.find(secret)).toMatchObject({ status: 'live', token: { name: 'nightly', clusters: ['east'], createdBy: 'user:alice@example.com' } })
      expect(reopened.find(`${secret}x`)).toEqual({ status: 'unknown' })

      const auth = new Auth({ operator: 'op-token-for-test', viewer: 'viewer-token-for-test' }, await SessionStore.open(dir), { apiTokens: reopened })
      const request = () => new Request('http://127.0.0.1/api/v1/session', { headers: { authorization: `Bearer ${secret}` } })
      expect(auth.authenticate(request())).toMatchObject({ status: 'authenticated', principal: { actor: 'token:nightly', grants: [{ role: 'viewer', clusters: ['east'] }] } })
      now += 24 * 3600 * 1000
      expect(auth.authenticate(request())).toEqual({ status: 'invalid', message: expect.stringContaining('API token nightly expired') })
      const failures = auth.metricFamilies().find((family) => family.name === 'mirrorboard_auth_failures_total')
      expect(JSON.stringify(failures?.samples)).toContain('"via":"bearer"},"value":0')

      expect(await reopened.revoke('nightly')).toBe(true)
      expect((await ApiTokenStore.open(dir, () => now)).list()).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('stops the start on a damaged file instead of dropping every token', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-api-token-store-'))
    try {
      const { writeFileSync } = await import('node:fs')
      writeFileSync(path.join(dir, 'api-tokens.json'), '{"tokens": [{"name": 1}]}')
      await expect(ApiTokenStore.open(dir)).rejects.toThrow(/not an API tokens file/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
