// Over 400 lines on purpose: the HTTP contract of API.md end to end against a production build (auth, clusters, topics, records, events), one journey per section.
import http from 'node:http'
import zlib from 'node:zlib'
import { expect, request as playwrightRequest, test, type APIRequestContext } from '@playwright/test'
import { asNewClient, asOperator, asViewer, createCluster, createTopic, expectError, okJson, openStream, operatorToken, unique, viewerToken } from './support/http'

/**
 * The HTTP API against the production server (API.md): who may call what, what bad input gets back, the
 * source side of the KIP's worked example, and the live event stream. Every test makes its own clusters,
 * so the order of tests does not matter.
 */


interface RecordEntry {
  offset: number
  type: string
  producerId: number | null
  producerEpoch: number | null
  transactional: boolean
  key: string | null
  value: string | null
  encoding?: string
}
interface RecordsResponse {
  highWatermark: number
  lastStableOffset: number
  logEndOffset: number
  records: RecordEntry[]
  nextOffset: number
}

async function readRecords(request: APIRequestContext, cluster: string, topic: string, query = ''): Promise<RecordsResponse> {
  return okJson<RecordsResponse>(await request.get(`/api/v1/clusters/${cluster}/topics/${topic}/partitions/0/records${query}`, { headers: asViewer }))
}

/** A snapshot of everything a rejected request could have changed on a cluster. */
async function clusterState(request: APIRequestContext, cluster: string): Promise<unknown> {
  const topics = await okJson<{ topics: Array<{ name: string; partitions: number }> }>(await request.get(`/api/v1/clusters/${cluster}/topics`, { headers: asViewer }))
  const partitions = await Promise.all(
    topics.topics.map(async (topic) => okJson(await request.get(`/api/v1/clusters/${cluster}/topics/${topic.name}/partitions`, { headers: asViewer }))),
  )
  const groups = await okJson(await request.get(`/api/v1/clusters/${cluster}/groups`, { headers: asViewer }))
  const clusters = await okJson<{ clusters: Array<{ name: string }> }>(await request.get('/api/v1/clusters', { headers: asViewer }))
  return { topics, partitions, groups, clusterNames: clusters.clusters.map((c) => c.name).sort() }
}

test.describe('authentication and roles', () => {
  test('every mutation refuses missing, wrong and viewer credentials and cross-origin cookies, and changes nothing', async ({ request, baseURL }) => {
    const cluster = unique('auth')
    await createCluster(request, cluster, { brokers: 1 })
    await createTopic(request, cluster, 'orders')
    const producer = await okJson<{ producer: string }>(
      await request.post(`/api/v1/clusters/${cluster}/producers`, { headers: asOperator, data: { transactionalId: 'auth-tx' } }),
      201,
    )
    const mutations: Array<{ method: 'POST' | 'DELETE'; path: string; data?: unknown }> = [
      { method: 'POST', path: '/api/v1/clusters', data: { name: unique('never'), kind: 'embedded' } },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/topics`, data: { name: 'never', partitions: 1 } },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/topics/orders/records`, data: { records: [{ value: 'never' }] } },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/producers`, data: { transactionalId: 'never' } },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/producers/${producer.producer}/send`, data: { topic: 'orders', records: [{ value: 'never' }] } },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/producers/${producer.producer}/commit` },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/producers/${producer.producer}/abort` },
      { method: 'DELETE', path: `/api/v1/clusters/${cluster}/producers/${producer.producer}` },
      { method: 'POST', path: `/api/v1/clusters/${cluster}/groups/billing/offsets`, data: { offsets: [{ topic: 'orders', partition: 0, offset: 0 }] } },
    ]
    const before = await clusterState(request, cluster)

    const session = await playwrightRequest.newContext({ baseURL })
    await okJson(await session.post('/api/v1/session', { data: { token: operatorToken }, headers: { Origin: baseURL ?? '' } }))
    try {
      for (const mutation of mutations) {
        const send = (context: APIRequestContext, headers: Record<string, string>) =>
          context.fetch(mutation.path, { method: mutation.method, headers, ...(mutation.data === undefined ? {} : { data: mutation.data }) })
        const label = `${mutation.method} ${mutation.path}`
        await test.step(label, async () => {
          await expectError(await send(request, {}), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, { Authorization: 'Bearer not-a-token' }), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, { Authorization: operatorToken }), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, asViewer), 403, 'FORBIDDEN')
          await expectError(await send(session, {}), 403, 'FORBIDDEN')
          await expectError(await send(session, { Origin: 'http://evil.example' }), 403, 'FORBIDDEN')
          await expectError(await send(request, { ...asOperator, Origin: 'http://evil.example' }), 403, 'FORBIDDEN')
        })
      }
    } finally {
      await session.dispose()
    }

    expect(await clusterState(request, cluster)).toEqual(before)
    const records = await readRecords(request, cluster, 'orders')
    expect(records.records).toEqual([])
    // The producer handle survived every refused DELETE: the operator can still use it.
    await okJson(
      await request.post(`/api/v1/clusters/${cluster}/producers/${producer.producer}/send`, { headers: asOperator, data: { topic: 'orders', records: [{ value: 'v' }] } }),
    )
  })

  test('reads need a viewer; health and the OpenAPI document are public', async ({ request }) => {
    const cluster = unique('reads')
    await createCluster(request, cluster, { brokers: 1 })
    await createTopic(request, cluster, 't')
    const reads = [
      '/api/v1/clusters',
      `/api/v1/clusters/${cluster}`,
      `/api/v1/clusters/${cluster}/topics`,
      `/api/v1/clusters/${cluster}/topics/t/partitions`,
      `/api/v1/clusters/${cluster}/topics/t/partitions/0/records`,
      `/api/v1/clusters/${cluster}/groups`,
      '/api/v1/audit',
      '/api/v1/session',
      '/api/metrics',
    ]
    for (const path of reads) {
      await expectError(await request.get(path), 401, 'UNAUTHENTICATED')
      await expectError(await request.get(path, { headers: { Authorization: 'Bearer wrong' } }), 401, 'UNAUTHENTICATED')
      expect((await request.get(path, { headers: asViewer })).status(), path).toBe(200)
      expect((await request.get(path, { headers: asOperator })).status(), path).toBe(200)
    }
    expect((await request.get('/api/v1/health')).status()).toBe(200)
    const openapi = await okJson<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(await request.get('/api/v1/openapi.json'))
    expect(openapi.openapi).toBe('3.1.0')
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/clusters',
        '/api/v1/clusters/{cluster}/topics/{topic}/partitions/{partition}/records',
        '/api/v1/clusters/{cluster}/producers/{handle}/send',
        '/api/v1/events',
        '/api/metrics',
      ]),
    )
    const metrics = await request.get('/api/metrics', { headers: asViewer })
    expect(metrics.headers()['content-type']).toContain('text/plain')
    expect(await metrics.text()).toMatch(new RegExp(`^mirrorboard_cluster_topics\\{cluster="${cluster}"\\} 1$`, 'm'))
  })

  test('a browser session: sign in for a cookie, use it same-origin, sign out', async ({ baseURL }) => {
    const browser = await playwrightRequest.newContext({ baseURL })
    try {
      await expectError(await browser.post('/api/v1/session', { data: { token: 'wrong' }, headers: asNewClient() }), 401, 'UNAUTHENTICATED')
      await expectError(await browser.get('/api/v1/session'), 401, 'UNAUTHENTICATED')

      const signIn = await browser.post('/api/v1/session', { data: { token: viewerToken }, headers: { Origin: baseURL ?? '' } })
      expect(await okJson(signIn)).toMatchObject({ role: 'viewer', via: 'cookie' })
      const setCookie = signIn.headers()['set-cookie'] ?? ''
      expect(setCookie).toMatch(/^mirrorboard_session=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/)
      expect(setCookie).not.toContain(viewerToken)
      expect(await okJson(await browser.get('/api/v1/session'))).toMatchObject({ role: 'viewer', via: 'cookie' })
      await expectError(await browser.post('/api/v1/clusters', { data: { name: unique('c'), kind: 'embedded' }, headers: { Origin: baseURL ?? '' } }), 403, 'FORBIDDEN')

      await okJson(await browser.post('/api/v1/session', { data: { token: operatorToken }, headers: { Origin: baseURL ?? '' } }))
      const name = unique('cookie')
      await okJson(await browser.post('/api/v1/clusters', { data: { name, kind: 'embedded', brokers: 1 }, headers: { Origin: baseURL ?? '' } }), 201)

      const signOut = await browser.delete('/api/v1/session', { headers: { Origin: baseURL ?? '' } })
      expect(signOut.status()).toBe(204)
      expect(signOut.headers()['set-cookie']).toMatch(/Max-Age=0/)
      await expectError(await browser.get('/api/v1/clusters'), 401, 'UNAUTHENTICATED')

      const audit = await okJson<{ entries: Array<{ action: string; actor: string; outcome: string; request: unknown }> }>(
        await browser.get('/api/v1/audit?action=session.*&limit=20', { headers: asViewer }),
      )
      expect(audit.entries.map((entry) => `${entry.action}:${entry.outcome}`)).toEqual(
        expect.arrayContaining(['session.create:rejected', 'session.create:ok', 'session.delete:ok']),
      )
      expect(JSON.stringify(audit)).not.toContain(viewerToken)
      expect(JSON.stringify(audit)).not.toContain(operatorToken)
    } finally {
      await browser.dispose()
    }
  })

  test('the audit log records accepted, rejected and unauthenticated mutations with their actor', async ({ request }) => {
    const cluster = unique('audited')
    await createCluster(request, cluster, { brokers: 1 })
    await request.post(`/api/v1/clusters/${cluster}/topics`, { headers: asViewer, data: { name: 'x', partitions: 1 } })
    await request.post(`/api/v1/clusters/${cluster}/topics`, { data: { name: 'x', partitions: 1 }, headers: asNewClient() })
    await request.post(`/api/v1/clusters/${cluster}/topics`, { headers: asOperator, data: { name: 'x', partitions: -1 } })
    await createTopic(request, cluster, 'x')

    const { entries } = await okJson<{ entries: Array<{ id: number; actor: string; role: string | null; action: string; target: string; outcome: string; error: { code: string } | null }> }>(
      await request.get(`/api/v1/audit?action=topic.create&limit=4`, { headers: asViewer }),
    )
    expect(entries.map(({ actor, role, target, outcome, error }) => ({ actor, role, target, outcome, error: error?.code ?? null }))).toEqual([
      { actor: 'token:operator', role: 'operator', target: `/clusters/${cluster}/topics`, outcome: 'ok', error: null },
      { actor: 'token:operator', role: 'operator', target: `/clusters/${cluster}/topics`, outcome: 'rejected', error: 'VALIDATION_FAILED' },
      { actor: 'anonymous', role: null, target: `/clusters/${cluster}/topics`, outcome: 'rejected', error: 'UNAUTHENTICATED' },
      { actor: 'token:viewer', role: 'viewer', target: `/clusters/${cluster}/topics`, outcome: 'rejected', error: 'FORBIDDEN' },
    ])
    const ids = entries.map((entry) => entry.id)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    const byActor = await okJson<{ entries: Array<{ actor: string }> }>(await request.get('/api/v1/audit?actor=anonymous&limit=1000', { headers: asViewer }))
    expect(byActor.entries.every((entry) => entry.actor === 'anonymous')).toBe(true)
  })
})

test.describe('bad input gets a 4xx with a code and changes nothing', () => {
  test('clusters, topics, records, producers, groups, audit and events', async ({ request }) => {
    const cluster = unique('bad')
    await createCluster(request, cluster, { brokers: 1 })
    await createTopic(request, cluster, 'orders', 2)
    await okJson(await request.post(`/api/v1/clusters/${cluster}/topics/orders/records`, { headers: asOperator, data: { partition: 0, records: [{ key: 'k', value: 'v' }] } }))
    const before = await clusterState(request, cluster)
    const post = (path: string, data: unknown) => request.post(path, { headers: asOperator, data: data as Record<string, unknown> })
    const raw = (path: string, body: string) => request.post(path, { headers: { ...asOperator, 'Content-Type': 'application/json' }, data: body })
    const base = `/api/v1/clusters/${cluster}`

    await test.step('clusters', async () => {
      await expectError(await raw('/api/v1/clusters', '{"name":'), 400, 'VALIDATION_FAILED')
      await expectError(await raw('/api/v1/clusters', 'not json at all'), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { kind: 'embedded' }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { name: 42, kind: 'embedded' }), 400, 'VALIDATION_FAILED')
      for (const name of ['..', '.', 'a/b', 'a b', '', 'x'.repeat(250), 'ü']) {
        await expectError(await post('/api/v1/clusters', { name, kind: 'embedded' }), 400, 'VALIDATION_FAILED')
      }
      await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'nope' }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'embedded', brokers: 0 }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'embedded', brokers: 1e9 }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'embedded', brokers: 2.5 }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'embedded', typo: true }), 400, 'VALIDATION_FAILED')
      // Nothing listens on loopback port 1: the connection check refuses the cluster, which is not saved.
      const kafka = await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'kafka', bootstrapServers: ['127.0.0.1:1'] }), 422, 'CLUSTER_CONNECTION_FAILED')
      expect(kafka.error.message).toMatch(/could not connect to 127\.0\.0\.1:1/)
      await expectError(await post('/api/v1/clusters', { name: unique('k'), kind: 'kafka', bootstrapServers: ['no-port'] }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/clusters', { name: cluster, kind: 'embedded' }), 409, 'CONFLICT')
      await expectError(await request.get('/api/v1/clusters/nope', { headers: asViewer }), 404, 'NOT_FOUND')
      await expectError(await request.get('/api/v1/clusters/..%2F..', { headers: asViewer }), 400, 'VALIDATION_FAILED')
    })

    await test.step('topics', async () => {
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: -1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: 0 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: 1e12 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: '3' }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: Number.MAX_SAFE_INTEGER + 2 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { partitions: 1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: 1, replicationFactor: 3 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: 1, configs: { 'no.such.config': '1' } }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'n', partitions: 1, configs: { 'retention.ms': 'soon' } }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: '__mirror_state', partitions: 1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics`, { name: 'orders', partitions: 1 }), 409, 'CONFLICT')
      await expectError(await post('/api/v1/clusters/nope/topics', { name: 'n', partitions: 1 }), 404, 'NOT_FOUND')
      await expectError(await request.get(`${base}/topics/nope/partitions`, { headers: asViewer }), 404, 'NOT_FOUND')
    })

    await test.step('records', async () => {
      const read = (query: string, partition: string | number = 0) => request.get(`${base}/topics/orders/partitions/${partition}/records${query}`, { headers: asViewer })
      await expectError(await read('', 'abc'), 400, 'VALIDATION_FAILED')
      await expectError(await read('', -1), 400, 'VALIDATION_FAILED')
      await expectError(await read('', 99), 404, 'NOT_FOUND')
      await expectError(await read('?fromOffset=-1'), 400, 'VALIDATION_FAILED')
      await expectError(await read('?fromOffset=1e3'), 400, 'VALIDATION_FAILED')
      await expectError(await read(`?fromOffset=${'9'.repeat(30)}`), 400, 'VALIDATION_FAILED')
      await expectError(await read('?fromOffset=50'), 416, 'OFFSET_OUT_OF_RANGE')
      await expectError(await read('?limit=0'), 400, 'VALIDATION_FAILED')
      await expectError(await read('?limit=5000'), 400, 'VALIDATION_FAILED')
      await expectError(await read('?isolation=read_dirty'), 400, 'VALIDATION_FAILED')
      await expectError(await request.get(`${base}/topics/nope/partitions/0/records`, { headers: asViewer }), 404, 'NOT_FOUND')

      const produce = `${base}/topics/orders/records`
      await expectError(await raw(produce, '{"records": [}'), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { records: [] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, {}), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { records: [{ value: 7 }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { records: [{ key: 'k' }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { records: [{ value: 'v', extra: 1 }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { records: [{ value: '***', encoding: 'base64' }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { partition: -1, records: [{ value: 'v' }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(produce, { partition: 7, records: [{ value: 'v' }] }), 404, 'NOT_FOUND')
      await expectError(await post(produce, { idempotent: 'yes', records: [{ value: 'v' }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/topics/nope/records`, { records: [{ value: 'v' }] }), 404, 'NOT_FOUND')
      const huge = await request.post(produce, { headers: asOperator, data: { records: [{ value: 'x'.repeat(1_100_000) }] } })
      await expectError(huge, 413, 'PAYLOAD_TOO_LARGE')
    })

    await test.step('producers', async () => {
      await expectError(await post(`${base}/producers`, { transactionalId: '' }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/producers`, { transactionalId: 'bad\u0001id' }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/producers`, {}), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/producers/no-such-handle/send`, { topic: 'orders', records: [{ value: 'v' }] }), 404, 'NOT_FOUND')
      await expectError(await post(`${base}/producers/bad%20handle/commit`, {}), 400, 'VALIDATION_FAILED')
      await expectError(await request.delete(`${base}/producers/no-such-handle`, { headers: asOperator }), 404, 'NOT_FOUND')
      const { producer } = await okJson<{ producer: string }>(await post(`${base}/producers`, { transactionalId: 'bad-input-tx' }), 201)
      await expectError(await post(`${base}/producers/${producer}/send`, { topic: 'nope', records: [{ value: 'v' }] }), 404, 'NOT_FOUND')
      await expectError(await post(`${base}/producers/${producer}/send`, { topic: 'orders', partition: 5, records: [{ value: 'v' }] }), 404, 'NOT_FOUND')
      await expectError(await post(`${base}/producers/${producer}/send`, { topic: 'orders', records: 'v' }), 400, 'VALIDATION_FAILED')
      // Kafka's EndTxn on a producer with nothing to commit is a no-op that succeeds.
      expect(await okJson(await post(`${base}/producers/${producer}/commit`, {}))).toEqual({ ok: true })
      // A newer producer with the same transactional id fences the older handle.
      await okJson(await post(`${base}/producers`, { transactionalId: 'bad-input-tx' }), 201)
      await expectError(await post(`${base}/producers/${producer}/send`, { topic: 'orders', records: [{ value: 'v' }] }), 409, 'INVALID_PRODUCER_EPOCH')
    })

    await test.step('groups, audit and events', async () => {
      const offsets = `${base}/groups/billing/offsets`
      await expectError(await post(offsets, { offsets: [] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(offsets, { offsets: [{ topic: 'orders', partition: 0, offset: -1 }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(offsets, { offsets: [{ topic: 'orders', partition: 0, offset: 1e300 }] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(offsets, { offsets: [{ topic: 'orders', partition: 0, offset: 999 }] }), 416, 'OFFSET_OUT_OF_RANGE')
      await expectError(await post(offsets, { offsets: [{ topic: 'nope', partition: 0, offset: 0 }] }), 404, 'NOT_FOUND')
      await expectError(await post(offsets, { offsets: [{ topic: 'orders', partition: 9, offset: 0 }] }), 404, 'NOT_FOUND')
      await expectError(await request.get('/api/v1/audit?limit=0', { headers: asViewer }), 400, 'VALIDATION_FAILED')
      await expectError(await request.get('/api/v1/audit?from=yesterday', { headers: asViewer }), 400, 'VALIDATION_FAILED')
      await expectError(await request.get('/api/v1/events?types=gossip', { headers: asViewer }), 400, 'VALIDATION_FAILED')
    })

    const after = await clusterState(request, cluster)
    expect(after).toEqual(before)
    expect((await readRecords(request, cluster, 'orders')).records.map((r) => r.value)).toEqual(['v'])
  })
})

test.describe("the KIP's worked example, source side", () => {
  test('three transactional producers and a plain write give the table of offsets 0-5', async ({ request }) => {
    const cluster = unique('source')
    await createCluster(request, cluster, { firstProducerId: 4001 })
    await createTopic(request, cluster, 'orders')
    const base = `/api/v1/clusters/${cluster}`
    const producers: Record<string, { producer: string; producerId: number; producerEpoch: number }> = {}
    for (const id of ['tx-a', 'tx-x', 'tx-y']) {
      producers[id] = await okJson(await request.post(`${base}/producers`, { headers: asOperator, data: { transactionalId: id } }), 201)
    }
    expect(Object.values(producers).map((p) => [p.producerId, p.producerEpoch])).toEqual([
      [4001, 0],
      [4002, 0],
      [4003, 0],
    ])
    const send = async (id: string, records: Array<{ key: string; value: string }>) =>
      okJson<{ records: Array<{ partition: number; offset: number }> }>(
        await request.post(`${base}/producers/${producers[id]?.producer}/send`, { headers: asOperator, data: { topic: 'orders', records } }),
      )

    expect((await send('tx-a', [{ key: 'A', value: '1' }, { key: 'B', value: '2' }])).records).toEqual([
      { partition: 0, offset: 0 },
      { partition: 0, offset: 1 },
    ])
    expect((await send('tx-x', [{ key: 'X', value: '9' }])).records).toEqual([{ partition: 0, offset: 2 }])
    expect(await okJson(await request.post(`${base}/producers/${producers['tx-a']?.producer}/commit`, { headers: asOperator }))).toEqual({ ok: true })
    expect((await send('tx-y', [{ key: 'Y', value: '5' }])).records).toEqual([{ partition: 0, offset: 4 }])
    const plain = await okJson(
      await request.post(`${base}/topics/orders/records`, { headers: asOperator, data: { idempotent: false, records: [{ key: 'Z', value: '10' }] } }),
    )
    expect(plain).toEqual({ records: [{ partition: 0, offset: 5 }] })

    const uncommitted = await readRecords(request, cluster, 'orders', '?fromOffset=0&limit=100&isolation=read_uncommitted')
    expect(uncommitted.records.map(({ offset, type, producerId, key, value }) => ({ offset, type, producerId, key, value }))).toEqual([
      { offset: 0, type: 'DATA', producerId: 4001, key: 'A', value: '1' },
      { offset: 1, type: 'DATA', producerId: 4001, key: 'B', value: '2' },
      { offset: 2, type: 'DATA', producerId: 4002, key: 'X', value: '9' },
      { offset: 3, type: 'COMMIT', producerId: 4001, key: null, value: null },
      { offset: 4, type: 'DATA', producerId: 4003, key: 'Y', value: '5' },
      { offset: 5, type: 'DATA', producerId: null, key: 'Z', value: '10' },
    ])
    expect(uncommitted.records.map((r) => r.transactional)).toEqual([true, true, true, true, true, false])
    expect(uncommitted.records[5]?.producerEpoch).toBeNull()
    expect(uncommitted).toMatchObject({ highWatermark: 6, logEndOffset: 6, lastStableOffset: 2, nextOffset: 6 })

    // read_committed stops at the LSO: the open transaction of 4002 at offset 2 holds back everything after it.
    const committed = await readRecords(request, cluster, 'orders', '?isolation=read_committed')
    expect(committed.records.map((r) => r.offset)).toEqual([0, 1])
    expect(committed.nextOffset).toBe(2)

    const page = await readRecords(request, cluster, 'orders', '?fromOffset=2&limit=2')
    expect(page.records.map((r) => r.offset)).toEqual([2, 3])
    expect(page.nextOffset).toBe(4)

    await okJson(await request.post(`${base}/producers/${producers['tx-x']?.producer}/abort`, { headers: asOperator }))
    await okJson(await request.post(`${base}/producers/${producers['tx-y']?.producer}/commit`, { headers: asOperator }))
    const settled = await readRecords(request, cluster, 'orders', '?isolation=read_committed')
    expect(settled.records.map(({ offset, type, producerId }) => `${offset}:${type}:${producerId}`)).toEqual([
      '0:DATA:4001',
      '1:DATA:4001',
      '3:COMMIT:4001',
      '4:DATA:4003',
      '5:DATA:null',
      '6:ABORT:4002',
      '7:COMMIT:4003',
    ])
    expect(settled).toMatchObject({ lastStableOffset: 8, highWatermark: 8 })

    const partitions = await okJson<{ partitions: Array<Record<string, unknown>> }>(await request.get(`${base}/topics/orders/partitions`, { headers: asViewer }))
    expect(partitions.partitions).toEqual([
      expect.objectContaining({ partition: 0, logStartOffset: 0, highWatermark: 8, lastStableOffset: 8, logEndOffset: 8, isr: expect.any(Array) }),
    ])
  })

  test('a closed producer leaves its transaction open; binary values come back as base64; groups commit offsets', async ({ request }) => {
    const cluster = unique('misc')
    await createCluster(request, cluster, { brokers: 1 })
    await createTopic(request, cluster, 'orders')
    const base = `/api/v1/clusters/${cluster}`
    const { producer } = await okJson<{ producer: string }>(await request.post(`${base}/producers`, { headers: asOperator, data: { transactionalId: 'crash' } }), 201)
    await okJson(await request.post(`${base}/producers/${producer}/send`, { headers: asOperator, data: { topic: 'orders', records: [{ value: 'pending' }] } }))
    expect((await request.delete(`${base}/producers/${producer}`, { headers: asOperator })).status()).toBe(204)
    await expectError(await request.post(`${base}/producers/${producer}/commit`, { headers: asOperator }), 404, 'NOT_FOUND')
    const afterCrash = await readRecords(request, cluster, 'orders')
    expect(afterCrash).toMatchObject({ lastStableOffset: 0, highWatermark: 1 })

    await okJson(
      await request.post(`${base}/topics/orders/records`, {
        headers: asOperator,
        data: { records: [{ key: '/w==', value: 'AAEC', encoding: 'base64', headers: { trace: 'dA==' } }] },
      }),
    )
    const binary = (await readRecords(request, cluster, 'orders')).records.at(-1)
    expect(binary).toMatchObject({ offset: 1, type: 'DATA', key: '/w==', value: 'AAEC', encoding: 'base64', headers: [{ key: 'trace', value: 'dA==' }] })

    expect(
      await okJson(await request.post(`${base}/groups/billing/offsets`, { headers: asOperator, data: { offsets: [{ topic: 'orders', partition: 0, offset: 1 }] } })),
    ).toEqual({ ok: true })
    const groups = await okJson<{ groups: unknown[] }>(await request.get(`${base}/groups`, { headers: asViewer }))
    expect(groups.groups).toEqual([{ groupId: 'billing', state: 'Empty', members: [], offsets: [{ topic: 'orders', partition: 0, offset: 1, leaderEpoch: null }] }])
  })
})

test.describe('live events', () => {
  test('a client receives audit and cluster events, and resumes with Last-Event-ID without gaps', async ({ request, baseURL }) => {
    const url = baseURL ?? ''
    const cluster = unique('live')
    const first = openStream(url)
    await expect.poll(async () => (await (await request.get('/api/metrics', { headers: asViewer })).text()).match(/^mirrorboard_event_subscribers (\d+)$/m)?.[1]).toBe('1')

    await createCluster(request, cluster, { brokers: 1 })
    const audit = await first.next((event) => event.event === 'audit' && event.data.action === 'cluster.create')
    expect(audit.id).toMatch(/^[A-Za-z0-9]+:\d+$/)
    const created = await first.next((event) => event.event === 'cluster' && event.data.cluster === cluster)
    expect(created.data.change).toBe('created')
    const lastSeen = first.received.at(-1)?.id ?? ''
    first.close()
    await expect.poll(async () => (await (await request.get('/api/metrics', { headers: asViewer })).text()).match(/^mirrorboard_event_subscribers (\d+)$/m)?.[1]).toBe('0')

    // Missed while disconnected: two topic creations, each an audit and a cluster event.
    await createTopic(request, cluster, 'one')
    await createTopic(request, cluster, 'two')
    const resumed = openStream(url, lastSeen)
    try {
      await resumed.next((event) => event.event === 'cluster' && event.data.change === 'topicCreated' && JSON.stringify(event.data).includes('"two"'))
      const [stream, lastSequence] = lastSeen.split(':')
      const sequences = resumed.received.map((event) => {
        const [eventStream, sequence] = event.id.split(':')
        expect(eventStream).toBe(stream)
        return Number(sequence)
      })
      expect(sequences[0]).toBe(Number(lastSequence) + 1)
      expect(sequences).toEqual(sequences.map((_, index) => Number(lastSequence) + 1 + index))
      expect(resumed.received.filter((event) => event.event === 'audit').map((event) => event.data.action)).toEqual(['topic.create', 'topic.create'])
    } finally {
      resumed.close()
    }

    const stale = openStream(url, 'some-other-process:12')
    try {
      expect((await stale.next((event) => event.event === 'resync')).data).toEqual({ reason: 'serverRestarted' })
    } finally {
      stale.close()
    }
  })
})

test.describe('the production server (server/main.ts)', () => {
  /** A GET with a chosen Accept-Encoding, over node:http: Playwright's client would decode the body for us. */
  function rawGet(url: string, acceptEncoding: string | null): Promise<{ encoding: string | undefined; body: Buffer }> {
    return new Promise((resolve, reject) => {
      http
        .get(url, { headers: acceptEncoding === null ? {} : { 'Accept-Encoding': acceptEncoding } }, (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => resolve({ encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }))
          response.on('error', reject)
        })
        .on('error', reject)
    })
  }

  test('compresses what the client accepts: brotli for browsers, gzip otherwise, nothing when asked for nothing', async ({ baseURL }) => {
    const url = `${baseURL}/api/v1/openapi.json`
    const plain = await rawGet(url, null)
    expect(plain.encoding).toBeUndefined()
    const document = JSON.parse(plain.body.toString('utf8')) as { openapi: string }
    expect(document.openapi).toMatch(/^3\./)
    const browser = await rawGet(url, 'gzip, deflate, br, zstd')
    expect(browser.encoding).toBe('br')
    expect(zlib.brotliDecompressSync(browser.body).equals(plain.body)).toBe(true)
    const script = await rawGet(url, 'gzip')
    expect(script.encoding).toBe('gzip')
    expect(zlib.gunzipSync(script.body).equals(plain.body)).toBe(true)
    expect(browser.body.length).toBeLessThan(plain.body.length / 3)
  })

  test('TRACE is refused with 405, not echoed', async ({ request }) => {
    await expectError(await request.fetch('/api/v1/health', { method: 'TRACE', headers: { Cookie: 'secret=1' } }), 405, 'METHOD_NOT_ALLOWED')
  })
})
