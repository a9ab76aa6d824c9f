import { expect, request as playwrightRequest, test, type APIRequestContext } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, expectError, okJson, operatorToken, unique } from './support/http'

/**
 * The KIP's admin surface through the API (issue 13): topic administration with the read-only guards of
 * mirror topics, state versions (ETag / If-Match / 412), start patterns kept for discovery, a deleted
 * source topic, list filters, and what bad input and missing credentials get back. Every test makes its
 * own clusters and mirrors.
 */

const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }
const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }

interface Partition {
  topic: string
  partition: number
  state: string
  stateEpoch: number
  retryAttempt: number
  error: string | null
  destinationHighWatermark: number | null
}
interface TopicView {
  name: string
  topicId: string
  partitions: number
  readOnly: boolean
  configs: Record<string, string>
}

async function partitionsOf(request: APIRequestContext, mirror: string): Promise<Partition[]> {
  return (await okJson<{ partitions: Partition[] }>(await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }))).partitions
}

async function topicsOf(request: APIRequestContext, cluster: string): Promise<TopicView[]> {
  return (await okJson<{ topics: TopicView[] }>(await request.get(`/api/v1/clusters/${cluster}/topics`, { headers: asViewer }))).topics
}

/** Everything a refused topic request could change: topics with their configs, and every partition's offsets. */
async function clusterTopics(request: APIRequestContext, cluster: string): Promise<unknown> {
  const topics = await topicsOf(request, cluster)
  const partitions = await Promise.all(
    topics.map(async (topic) => okJson(await request.get(`/api/v1/clusters/${cluster}/topics/${topic.name}/partitions`, { headers: asViewer }))),
  )
  return { topics, partitions }
}

async function mirroringPair(request: APIRequestContext, topics: string[] = ['orders']): Promise<{ source: string; destination: string; mirror: string }> {
  const source = unique('src')
  const destination = unique('dst')
  const mirror = unique('m')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  for (const topic of topics) await createTopic(request, source, topic)
  await okJson(await request.post(`/api/v1/clusters/${source}/topics/${topics[0]}/records`, { headers: asOperator, data: { records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] } }))
  await okJson(
    await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics, config: FAST_SYNC } }),
    201,
  )
  await expect.poll(async () => (await partitionsOf(request, mirror)).map((p) => p.state), SETTLE).toEqual(topics.map(() => 'MIRRORING'))
  // Caught up too: tests compare the destination's topics before and after a refusal, and a fetch still
  // landing the three records in between would read as a change.
  await expect
    .poll(async () => (await partitionsOf(request, mirror)).find((p) => p.topic === topics[0])?.destinationHighWatermark, SETTLE)
    .toBe(3)
  return { source, destination, mirror }
}

test.describe('topic administration', () => {
  test('delete a topic, add partitions, delete records, read and change configs; bad input changes nothing', async ({ request }) => {
    const cluster = unique('admin')
    await createCluster(request, cluster, { brokers: 1 })
    await createTopic(request, cluster, 'orders')
    const base = `/api/v1/clusters/${cluster}/topics/orders`
    await okJson(await request.post(`${base}/records`, { headers: asOperator, data: { records: [{ value: '1' }, { value: '2' }, { value: '3' }] } }))
    const before = await clusterTopics(request, cluster)
    const post = (path: string, data: unknown) => request.post(path, { headers: asOperator, data: data as Record<string, unknown> })
    const patch = (data: unknown, path = `${base}/configs`) => request.patch(path, { headers: asOperator, data: data as Record<string, unknown> })
    const raw = (path: string, body: string, method = 'POST') => request.fetch(path, { method, headers: { ...asOperator, 'Content-Type': 'application/json' }, data: body })

    await test.step('bad input', async () => {
      for (const [path, method] of [
        [`${base}/partitions`, 'POST'],
        [`${base}/partitions/0/delete-records`, 'POST'],
        [`${base}/configs`, 'PATCH'],
      ] as const) {
        await expectError(await raw(path, '{"count": ', method), 400, 'VALIDATION_FAILED')
        await expectError(await raw(path, `{"padding": "${'x'.repeat(1_100_000)}"}`, method), 413, 'PAYLOAD_TOO_LARGE')
      }
      for (const count of [0, -1, 1.5, '2', null, 1001, 2 ** 40]) await expectError(await post(`${base}/partitions`, { count }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/partitions`, { count: 1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/partitions`, { count: 2, extra: 1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`/api/v1/clusters/${cluster}/topics/nope/partitions`, { count: 2 }), 404, 'NOT_FOUND')
      await expectError(await post(`/api/v1/clusters/nope/topics/orders/partitions`, { count: 2 }), 404, 'NOT_FOUND')

      for (const beforeOffset of [-1, 1.5, '1', null, 2 ** 60]) await expectError(await post(`${base}/partitions/0/delete-records`, { beforeOffset }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`${base}/partitions/0/delete-records`, { beforeOffset: 4 }), 416, 'OFFSET_OUT_OF_RANGE')
      await expectError(await post(`${base}/partitions/7/delete-records`, { beforeOffset: 1 }), 404, 'NOT_FOUND')
      await expectError(await post(`${base}/partitions/-1/delete-records`, { beforeOffset: 1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`/api/v1/clusters/${cluster}/topics/nope/partitions/0/delete-records`, { beforeOffset: 1 }), 404, 'NOT_FOUND')

      await expectError(await patch({}), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'no.such.config': '1' } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ delete: ['no.such.config'] }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'retention.ms': 86400000 } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'retention.ms': 'soon' } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'retention.ms': '1' }, delete: ['retention.ms'] }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'min.insync.replicas': '2' } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'retention.ms': '1' }, unset: [] }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ delete: 'retention.ms' }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ set: { 'retention.ms': '1' } }, `/api/v1/clusters/${cluster}/topics/nope/configs`), 404, 'NOT_FOUND')

      await expectError(await request.delete(`/api/v1/clusters/${cluster}/topics/nope`, { headers: asOperator }), 404, 'NOT_FOUND')
      await expectError(await request.delete(`/api/v1/clusters/${cluster}/topics/bad%20name`, { headers: asOperator }), 400, 'VALIDATION_FAILED')

      await expectError(await post(`/api/v1/clusters/${cluster}/topics`, { name: 'n', partitions: 1, topicId: 'not/an/id' }), 400, 'VALIDATION_FAILED')
      await expectError(await post(`/api/v1/clusters/${cluster}/topics`, { name: '__consumer_offsets', partitions: 1 }), 400, 'VALIDATION_FAILED')
      expect(await clusterTopics(request, cluster)).toEqual(before)
    })

    await test.step('the changes themselves', async () => {
      expect(await okJson(await request.get(`${base}/configs`, { headers: asViewer }))).toEqual({ configs: {} })
      expect(await okJson(await patch({ set: { 'retention.ms': '86400000', 'cleanup.policy': 'compact' } }))).toEqual({ configs: { 'retention.ms': '86400000', 'cleanup.policy': 'compact' } })
      expect(await okJson(await patch({ set: { 'retention.ms': '1000' }, delete: ['cleanup.policy'] }))).toEqual({ configs: { 'retention.ms': '1000' } })
      expect(await okJson(await request.get(`${base}/configs`, { headers: asViewer }))).toEqual({ configs: { 'retention.ms': '1000' } })

      expect(await okJson(await post(`${base}/partitions`, { count: 3 }))).toMatchObject({ name: 'orders', partitions: 3 })
      await expectError(await post(`${base}/partitions`, { count: 2 }), 400, 'VALIDATION_FAILED')
      expect(await okJson(await post(`${base}/partitions/0/delete-records`, { beforeOffset: 2 }))).toEqual({ logStartOffset: 2 })
      const partitions = await okJson<{ partitions: Array<{ partition: number; logStartOffset: number; logEndOffset: number }> }>(
        await request.get(`${base}/partitions`, { headers: asViewer }),
      )
      expect(partitions.partitions.map((p) => [p.partition, p.logStartOffset, p.logEndOffset])).toEqual([
        [0, 2, 3],
        [1, 0, 0],
        [2, 0, 0],
      ])

      // A topic id given at creation is kept (pre-created mirror topics); one already used is refused.
      const { topicId } = (await topicsOf(request, cluster)).find((topic) => topic.name === 'orders')!
      await expectError(await post(`/api/v1/clusters/${cluster}/topics`, { name: 'copy', partitions: 1, topicId }), 409, 'CONFLICT')
      const other = unique('other')
      await createCluster(request, other, { brokers: 1 })
      expect(await okJson(await post(`/api/v1/clusters/${other}/topics`, { name: 'orders', partitions: 1, topicId }), 201)).toMatchObject({ topicId })
      // Kafka allows names beginning with __ except its internal topics.
      expect(await okJson(await post(`/api/v1/clusters/${cluster}/topics`, { name: '__audit', partitions: 1 }), 201)).toMatchObject({ name: '__audit' })

      expect((await request.delete(base, { headers: asOperator })).status()).toBe(204)
      expect((await topicsOf(request, cluster)).map((topic) => topic.name)).toEqual(['__audit'])
      await expectError(await request.get(`${base}/configs`, { headers: asViewer }), 404, 'NOT_FOUND')
    })

    const audit = await okJson<{ entries: Array<{ action: string; outcome: string; error: { code: string } | null }> }>(await request.get('/api/v1/audit?limit=200', { headers: asViewer }))
    for (const action of ['topic.delete', 'topic.createPartitions', 'records.delete', 'topic.configs.update']) {
      expect(audit.entries.some((entry) => entry.action === action && entry.outcome === 'ok'), action).toBe(true)
      expect(audit.entries.some((entry) => entry.action === action && entry.outcome === 'rejected'), action).toBe(true)
    }
  })

  test('mirror topics refuse deletion, new partitions and record deletion until STOPPED; configs stay alterable', async ({ request }) => {
    const { destination, mirror } = await mirroringPair(request)
    await createTopic(request, destination, 'local')
    const base = `/api/v1/clusters/${destination}/topics/orders`
    const refused = async () => {
      const before = await clusterTopics(request, destination)
      const error = await expectError(await request.delete(base, { headers: asOperator }), 409, 'TOPIC_READ_ONLY')
      expect(error.error.details).toMatchObject({ topic: 'orders', mirror })
      await expectError(await request.post(`${base}/partitions`, { headers: asOperator, data: { count: 2 } }), 409, 'TOPIC_READ_ONLY')
      await expectError(await request.post(`${base}/partitions/0/delete-records`, { headers: asOperator, data: { beforeOffset: 1 } }), 409, 'TOPIC_READ_ONLY')
      expect(await clusterTopics(request, destination)).toEqual(before)
    }
    await refused()
    expect(await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))).toEqual({ topics: ['orders'] })
    await refused()
    // The same cluster's own topic is not affected.
    expect(await okJson(await request.post(`/api/v1/clusters/${destination}/topics/local/partitions`, { headers: asOperator, data: { count: 2 } }))).toMatchObject({ partitions: 2 })
    // Configs stay alterable on a mirror topic, as in the KIP.
    expect(await okJson(await request.patch(`${base}/configs`, { headers: asOperator, data: { set: { 'message.timestamp.type': 'LogAppendTime' } } }))).toEqual({
      configs: { 'message.timestamp.type': 'LogAppendTime' },
    })

    await okJson(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror } }), 202)
    await expect.poll(async () => (await partitionsOf(request, mirror)).map((p) => p.state), SETTLE).toEqual(['STOPPED'])
    expect(await okJson(await request.post(`${base}/partitions/0/delete-records`, { headers: asOperator, data: { beforeOffset: 1 } }))).toEqual({ logStartOffset: 1 })
    expect(await okJson(await request.post(`${base}/partitions`, { headers: asOperator, data: { count: 2 } }))).toMatchObject({ partitions: 2, readOnly: false })
    expect((await request.delete(base, { headers: asOperator })).status()).toBe(204)
  })

  test('remote.storage.enable on a mirror topic fails its partitions for good at once', async ({ request }) => {
    const { destination, mirror } = await mirroringPair(request)
    await okJson(await request.patch(`/api/v1/clusters/${destination}/topics/orders/configs`, { headers: asOperator, data: { set: { 'remote.storage.enable': 'true' } } }))
    expect((await partitionsOf(request, mirror)).map(({ state, retryAttempt, error }) => ({ state, retryAttempt, error }))).toEqual([
      { state: 'FAILED', retryAttempt: -1, error: 'Mirroring is not supported for partitions with tiered storage enabled.' },
    ])
  })

  test('a deleted source topic fails its mirror partitions for good, with the reason', async ({ request }) => {
    const { source, mirror } = await mirroringPair(request, ['orders', 'payments'])
    expect((await request.delete(`/api/v1/clusters/${source}/topics/payments`, { headers: asOperator })).status()).toBe(204)
    await expect.poll(async () => (await partitionsOf(request, mirror)).find((p) => p.topic === 'payments')?.retryAttempt, SETTLE).toBe(-1)
    const failed = (await partitionsOf(request, mirror)).map(({ topic, state, retryAttempt, error }) => ({ topic, state, retryAttempt, error }))
    expect(failed).toEqual([
      { topic: 'orders', state: 'MIRRORING', retryAttempt: 0, error: null },
      { topic: 'payments', state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.' },
    ])
    // Several refreshes later (one a second), still so.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect((await partitionsOf(request, mirror)).map(({ topic, state, retryAttempt, error }) => ({ topic, state, retryAttempt, error }))).toEqual(failed)
  })
})

test.describe('mirror state versions', () => {
  test('GET answers an ETag; a mutation with a stale If-Match gets 412 and changes nothing; of two with the same one, one applies', async ({ request }) => {
    const { mirror } = await mirroringPair(request)
    const path = `/api/v1/mirrors/${mirror}`
    const got = await request.get(path, { headers: asViewer })
    const { stateVersion } = await okJson<{ stateVersion: string }>(got)
    expect(got.headers()['etag']).toBe(`"${stateVersion}"`)
    const list = await request.get(`${path}/partitions`, { headers: asViewer })
    expect(list.headers()['etag']).toBe(`"${stateVersion}"`)
    expect(await okJson(list)).toMatchObject({ stateVersion })

    const ifMatch = { ...asOperator, 'If-Match': `"${stateVersion}"` }
    const [first, second] = await Promise.all([
      request.post(`${path}/topics/pause`, { headers: ifMatch, data: {} }),
      request.post(`${path}/topics/pause`, { headers: ifMatch, data: {} }),
    ])
    expect([first.status(), second.status()].sort()).toEqual([200, 412])
    const refused = first.status() === 412 ? first : second
    const body = await expectError(refused, 412, 'PRECONDITION_FAILED')
    const moved = await okJson<{ stateVersion: string }>(await request.get(path, { headers: asViewer }))
    expect(body.error.details).toMatchObject({ stateVersion: moved.stateVersion })
    expect(moved.stateVersion).not.toBe(stateVersion)

    const before = (await partitionsOf(request, mirror)).map(({ state, stateEpoch }) => ({ state, stateEpoch }))
    for (const [method, url, data] of [
      ['POST', `${path}/topics/resume`, {}],
      ['POST', `${path}/topics/start`, { topics: ['orders'], dryRun: true }],
      ['POST', `${path}/failover`, { dryRun: true }],
      ['POST', `${path}/failover`, { confirm: mirror }],
      ['PATCH', path, { config: { 'fetch.max.bytes': 4096 } }],
      ['DELETE', path, undefined],
    ] as const) {
      await expectError(await request.fetch(url, { method, headers: ifMatch, ...(data === undefined ? {} : { data }) }), 412, 'PRECONDITION_FAILED')
    }
    await expectError(await request.post(`${path}/topics/resume`, { headers: { ...asOperator, 'If-Match': `W/"${moved.stateVersion}"` }, data: {} }), 412, 'PRECONDITION_FAILED')
    expect((await partitionsOf(request, mirror)).map(({ state, stateEpoch }) => ({ state, stateEpoch }))).toEqual(before)
    expect((await okJson<{ config: Record<string, unknown> }>(await request.get(path, { headers: asViewer }))).config['fetch.max.bytes']).not.toBe(4096)

    // The current version, or *, passes.
    expect(await okJson(await request.post(`${path}/topics/resume`, { headers: { ...asOperator, 'If-Match': `"${moved.stateVersion}"` }, data: {} }))).toEqual({ topics: ['orders'] })
    expect(await okJson(await request.patch(path, { headers: { ...asOperator, 'If-Match': '*' }, data: { config: { 'fetch.max.bytes': 4096 } } }))).toMatchObject({ config: { 'fetch.max.bytes': 4096 } })
    await expectError(await request.post('/api/v1/mirrors/nope/topics/pause', { headers: ifMatch, data: {} }), 404, 'NOT_FOUND')
  })

  test('resume on MIRRORING is refused with each partition and its state; pause without topics reports what it skipped', async ({ request }) => {
    const { mirror } = await mirroringPair(request, ['orders', 'payments'])
    const path = `/api/v1/mirrors/${mirror}`
    const refused = await expectError(await request.post(`${path}/topics/resume`, { headers: asOperator, data: { topics: ['orders'] } }), 409, 'INVALID_MIRROR_STATE')
    expect(refused.error.details).toMatchObject({ command: 'resume', allowedStates: ['PAUSED'], partitions: [{ topic: 'orders', partition: 0, state: 'MIRRORING' }] })
    expect(await okJson(await request.post(`${path}/topics/pause`, { headers: asOperator, data: { topics: ['payments'] } }))).toEqual({ topics: ['payments'] })
    expect(await okJson(await request.post(`${path}/topics/pause`, { headers: asOperator, data: {} }))).toEqual({
      topics: ['orders'],
      skipped: [{ topic: 'payments', partition: 0, state: 'PAUSED' }],
    })
  })
})

test.describe('start patterns and list filters', () => {
  test('start patterns join topics.include even when they match nothing, and a topic created later is mirrored', async ({ request }) => {
    const { source, mirror } = await mirroringPair(request)
    const path = `/api/v1/mirrors/${mirror}`
    expect(await okJson(await request.post(`${path}/topics/start`, { headers: asOperator, data: { patterns: ['pay.*'] } }))).toEqual({ topics: [] })
    expect((await okJson<{ config: Record<string, unknown> }>(await request.get(path, { headers: asViewer }))).config['topics.include']).toEqual(['pay.*'])
    await createTopic(request, source, 'payments')
    await expect.poll(async () => (await partitionsOf(request, mirror)).map((p) => `${p.topic}:${p.state}`), SETTLE).toEqual(['orders:MIRRORING', 'payments:MIRRORING'])
  })

  test('GET /mirrors filters by name, source cluster and partition state', async ({ request }) => {
    const one = await mirroringPair(request)
    const two = await mirroringPair(request)
    await okJson(await request.post(`/api/v1/mirrors/${two.mirror}/topics/pause`, { headers: asOperator, data: {} }))
    const names = async (query: string) =>
      (await okJson<{ mirrors: Array<{ name: string }> }>(await request.get(`/api/v1/mirrors${query}`, { headers: asViewer }))).mirrors.map((m) => m.name).filter((name) => name === one.mirror || name === two.mirror)
    expect(await names(`?name=${one.mirror}`)).toEqual([one.mirror])
    expect(await names(`?sourceCluster=${two.source}`)).toEqual([two.mirror])
    expect(await names('?state=PAUSED')).toEqual([two.mirror])
    expect(await names('?state=MIRRORING,PAUSED')).toEqual([one.mirror, two.mirror])
    expect(await names(`?state=paused&sourceCluster=${one.source}`)).toEqual([])
    expect(await names('?name=nobody')).toEqual([])
    await expectError(await request.get('/api/v1/mirrors?state=SLEEPING', { headers: asViewer }), 400, 'VALIDATION_FAILED')
    await expectError(await request.get('/api/v1/mirrors?name=bad%20name', { headers: asViewer }), 400, 'VALIDATION_FAILED')
  })
})

test.describe('who may call the new endpoints', () => {
  test('topic administration needs an operator (viewers read configs); the OpenAPI document describes If-Match and ETag', async ({ request, baseURL }) => {
    const cluster = unique('authz')
    await createCluster(request, cluster, { brokers: 1 })
    await createTopic(request, cluster, 'orders')
    const base = `/api/v1/clusters/${cluster}/topics/orders`
    const mutations: Array<{ method: 'POST' | 'PATCH' | 'DELETE'; path: string; data?: unknown }> = [
      { method: 'DELETE', path: base },
      { method: 'POST', path: `${base}/partitions`, data: { count: 2 } },
      { method: 'POST', path: `${base}/partitions/0/delete-records`, data: { beforeOffset: 0 } },
      { method: 'PATCH', path: `${base}/configs`, data: { set: { 'retention.ms': '1000' } } },
    ]
    const before = await clusterTopics(request, cluster)
    const session = await playwrightRequest.newContext({ baseURL })
    await okJson(await session.post('/api/v1/session', { data: { token: operatorToken }, headers: { Origin: baseURL ?? '' } }))
    try {
      for (const mutation of mutations) {
        const send = (context: APIRequestContext, headers: Record<string, string>) =>
          context.fetch(mutation.path, { method: mutation.method, headers, ...(mutation.data === undefined ? {} : { data: mutation.data }) })
        await test.step(`${mutation.method} ${mutation.path}`, async () => {
          await expectError(await send(request, {}), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, { Authorization: 'Bearer not-a-token' }), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, asViewer), 403, 'FORBIDDEN')
          await expectError(await send(session, {}), 403, 'FORBIDDEN')
          await expectError(await send(session, { Origin: 'http://evil.example' }), 403, 'FORBIDDEN')
        })
      }
    } finally {
      await session.dispose()
    }
    expect(await clusterTopics(request, cluster)).toEqual(before)
    await expectError(await request.get(`${base}/configs`), 401, 'UNAUTHENTICATED')
    expect((await request.get(`${base}/configs`, { headers: asViewer })).status()).toBe(200)

    const openapi = await okJson<{ paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string }>; responses: Record<string, { headers?: Record<string, unknown> }> }>> }>(
      await request.get('/api/v1/openapi.json'),
    )
    const pause = openapi.paths['/api/v1/mirrors/{mirror}/topics/pause']?.post
    expect(pause?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'If-Match', in: 'header' })]))
    expect(Object.keys(pause?.responses ?? {})).toContain('412')
    expect(openapi.paths['/api/v1/mirrors/{mirror}']?.get?.responses['200']?.headers).toHaveProperty('ETag')
    for (const path of [
      '/api/v1/clusters/{cluster}/topics/{topic}',
      '/api/v1/clusters/{cluster}/topics/{topic}/partitions/{partition}/delete-records',
      '/api/v1/clusters/{cluster}/topics/{topic}/configs',
    ]) {
      expect(openapi.paths[path], path).toBeDefined()
    }
  })
})
