// Over 400 lines on purpose: the mirror, topic, failover and operation endpoints end to end, with their refusals, against a production build.
import { expect, request as playwrightRequest, test, type APIRequestContext } from '@playwright/test'
import { asNewClient, asOperator, asViewer, createCluster, createTopic, expectError, okJson, openStream, operatorToken, unique, type StreamEvent } from './support/http'

/**
 * The mirror and operation endpoints of API.md against the production server: the KIP's worked example
 * driven through the API alone (mirror, pause, failover, failback), who may call what, what bad input gets
 * back, and the live partition events. Every test makes its own clusters and mirrors.
 */


/** How long the background engine may take to get somewhere (it ticks every 100 ms). */
const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }

interface MirrorPartition {
  topic: string
  partition: number
  state: string
  stateEpoch: number
  previousState: string | null
  destinationHighWatermark: number
  destinationLogEndOffset: number
  lastMirrorPosition: { epoch: number; offset: number } | null
  lastTruncation: { offset: number; removedRecords: number; at: number; reason: string } | null
}

interface TruncationPlan {
  mirror: string
  partitions: Array<{ topic: string; partition: number; truncateTo: number | null; recordsToRemove: number; lastMirrorPosition: { epoch: number; offset: number } | null }>
}

interface Operation {
  id: string
  kind: string
  mirror: string
  status: string
  startedAt: number
  finishedAt: number | null
  requestedBy: { actor: string; role: string | null } | null
  resumedAt: number[]
  partitions: Array<{ topic: string; partition: number; step: string; state: string; error: string | null; finishedAt: number | null }>
}

interface RecordEntry {
  offset: number
  type: string
  producerId: number | null
  producerEpoch: number | null
  leaderEpoch: number
  key: string | null
  value: string | null
}

async function partitionsOf(request: APIRequestContext, mirror: string, query = ''): Promise<MirrorPartition[]> {
  return (await okJson<{ partitions: MirrorPartition[] }>(await request.get(`/api/v1/mirrors/${mirror}/partitions${query}`, { headers: asViewer }))).partitions
}

async function recordsOf(request: APIRequestContext, cluster: string, topic: string, isolation = 'read_uncommitted'): Promise<RecordEntry[]> {
  const page = await okJson<{ records: RecordEntry[] }>(
    await request.get(`/api/v1/clusters/${cluster}/topics/${topic}/partitions/0/records?fromOffset=0&limit=1000&isolation=${isolation}`, { headers: asViewer }),
  )
  return page.records
}

function table(records: RecordEntry[]): Array<[number, string, number | null, string | null]> {
  return records.map(({ offset, type, producerId, key, value }) => [offset, type, producerId, key === null ? null : `${key}=${value}`])
}

/** Two single-broker clusters, a topic and a mirror whose partitions are all MIRRORING. */
async function mirroringPair(request: APIRequestContext, partitions = 1): Promise<{ source: string; destination: string; mirror: string }> {
  const source = unique('src')
  const destination = unique('dst')
  const mirror = unique('m')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  await createTopic(request, source, 'orders', partitions)
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  await expect.poll(async () => (await partitionsOf(request, mirror)).map((p) => p.state), SETTLE).toEqual(Array(partitions).fill('MIRRORING'))
  return { source, destination, mirror }
}

/** Everything a refused mirror request could have changed. */
async function mirrorSnapshot(request: APIRequestContext, mirror: string, destination: string): Promise<unknown> {
  const mirrors = await okJson<{ mirrors: Array<{ name: string; topics: string[]; partitionsByState: unknown }> }>(await request.get('/api/v1/mirrors', { headers: asViewer }))
  const detail = await okJson<{ config: unknown; topics: string[] }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }))
  const partitions = (await partitionsOf(request, mirror)).map(({ topic, partition, state, stateEpoch }) => ({ topic, partition, state, stateEpoch }))
  const operations = await okJson<{ operations: Operation[] }>(await request.get('/api/v1/operations', { headers: asViewer }))
  const topics = await okJson<{ topics: Array<{ name: string; readOnly: boolean }> }>(await request.get(`/api/v1/clusters/${destination}/topics`, { headers: asViewer }))
  return {
    mirrors: mirrors.mirrors.map(({ name, topics: mirrored, partitionsByState }) => ({ name, topics: mirrored, partitionsByState })).sort((a, b) => a.name.localeCompare(b.name)),
    config: detail.config,
    topics: detail.topics,
    partitions,
    operations: operations.operations.filter((operation) => operation.mirror === mirror).map((operation) => operation.id),
    destinationTopics: topics.topics.map(({ name, readOnly }) => ({ name, readOnly })),
  }
}

test.describe("the KIP's worked example through the API", () => {
  test('mirror offsets 0-2, fail over with ABORT markers and the reset record, fail back to identical logs', async ({ request }) => {
    test.setTimeout(120_000)
    const source = unique('wx-a')
    const destination = unique('wx-b')
    const mirror = unique('dr')
    const back = unique('back')
    await createCluster(request, source, { firstProducerId: 4001 })
    await createCluster(request, destination, { firstProducerId: 9001 })
    await createTopic(request, source, 'orders')
    const base = `/api/v1/clusters/${source}`

    const producers: Record<string, { producer: string; producerId: number; producerEpoch: number }> = {}
    for (const id of ['tx-4001', 'tx-4002', 'tx-4003']) {
      producers[id] = await okJson(await request.post(`${base}/producers`, { headers: asOperator, data: { transactionalId: id } }), 201)
    }
    expect(Object.values(producers).map((p) => p.producerId)).toEqual([4001, 4002, 4003])
    const send = async (id: string, records: Array<{ key: string; value: string }>) =>
      (
        await okJson<{ records: Array<{ offset: number }> }>(
          await request.post(`${base}/producers/${producers[id]?.producer}/send`, { headers: asOperator, data: { topic: 'orders', partition: 0, records } }),
        )
      ).records.map((r) => r.offset)

    await test.step('producers 4001 and 4002 write A, B and X; the mirror copies offsets 0-2 and is paused', async () => {
      expect(await send('tx-4001', [{ key: 'A', value: '1' }, { key: 'B', value: '2' }])).toEqual([0, 1])
      expect(await send('tx-4002', [{ key: 'X', value: '9' }])).toEqual([2])

      const created = await okJson<{ name: string; sourceCluster: string; destinationCluster: string; topics: string[]; config: Record<string, unknown> }>(
        await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }),
        201,
      )
      expect(created).toMatchObject({ name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] })
      expect(created.config['topics.exclude']).toEqual(['__.*'])

      await expect
        .poll(async () => (await partitionsOf(request, mirror)).map(({ state, destinationLogEndOffset, destinationHighWatermark }) => ({ state, destinationLogEndOffset, destinationHighWatermark })), SETTLE)
        .toEqual([{ state: 'MIRRORING', destinationLogEndOffset: 3, destinationHighWatermark: 3 }])
      expect(await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))).toEqual({ topics: ['orders'] })
      await expect.poll(async () => (await partitionsOf(request, mirror))[0]?.state, SETTLE).toBe('PAUSED')
      expect(table(await recordsOf(request, destination, 'orders'))).toEqual([
        [0, 'DATA', 4001, 'A=1'],
        [1, 'DATA', 4001, 'B=2'],
        [2, 'DATA', 4002, 'X=9'],
      ])
    })

    await test.step('the source goes on: 4001 commits, 4003 writes Y, a plain write adds Z', async () => {
      await okJson(await request.post(`${base}/producers/${producers['tx-4001']?.producer}/commit`, { headers: asOperator }))
      expect(await send('tx-4003', [{ key: 'Y', value: '5' }])).toEqual([4])
      expect(
        await okJson(await request.post(`${base}/topics/orders/records`, { headers: asOperator, data: { partition: 0, idempotent: false, records: [{ key: 'Z', value: '10' }] } })),
      ).toEqual({ records: [{ partition: 0, offset: 5 }] })
      expect(table(await recordsOf(request, source, 'orders'))).toEqual([
        [0, 'DATA', 4001, 'A=1'],
        [1, 'DATA', 4001, 'B=2'],
        [2, 'DATA', 4002, 'X=9'],
        [3, 'COMMIT', 4001, null],
        [4, 'DATA', 4003, 'Y=5'],
        [5, 'DATA', null, 'Z=10'],
      ])
    })

    let operationId = ''
    await test.step('the failover dry run lists both open transactions and 3 records at risk, and changes nothing', async () => {
      const { plan } = await okJson<{ plan: { mirror: string; gates: Array<{ name: string; ok: boolean }>; partitions: Array<Record<string, unknown>> } }>(
        await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { dryRun: true } }),
      )
      expect(plan.mirror).toBe(mirror)
      expect(plan.gates.find((gate) => gate.name === 'source-reachable')?.ok).toBe(true)
      expect(plan.partitions).toEqual([
        expect.objectContaining({
          topic: 'orders',
          partition: 0,
          state: 'PAUSED',
          mirroredOffset: 3,
          sourceLogEndOffset: 6,
          recordsAtRisk: 3,
          transactionsToAbort: [
            { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
            { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
          ],
        }),
      ])
      expect((await partitionsOf(request, mirror))[0]?.state).toBe('PAUSED')
      const audit = await okJson<{ entries: Array<{ target: string; dryRun: boolean; outcome: string; plan?: { partitions: Array<{ recordsAtRisk: number }> } }> }>(
        await request.get('/api/v1/audit?action=mirror.failover&limit=1', { headers: asViewer }),
      )
      expect(audit.entries[0]).toMatchObject({ target: `/mirrors/${mirror}/failover`, dryRun: true, outcome: 'ok', plan: { partitions: [{ recordsAtRisk: 3 }] } })
    })

    await test.step('the real failover needs the mirror name as confirm, then runs as an operation to STOPPED', async () => {
      await expectError(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: {} }), 409, 'CONFIRMATION_REQUIRED')
      await expectError(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror.toUpperCase() } }), 409, 'CONFIRMATION_REQUIRED')
      expect((await partitionsOf(request, mirror))[0]?.state).toBe('PAUSED')

      const accepted = await okJson<{ operation: string; plan: { partitions: Array<{ recordsAtRisk: number }> } }>(
        await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror } }),
        202,
      )
      operationId = accepted.operation
      expect(accepted.plan.partitions.map((p) => p.recordsAtRisk)).toEqual([3])
      await expect.poll(async () => (await okJson<Operation>(await request.get(`/api/v1/operations/${operationId}`, { headers: asViewer }))).status, SETTLE).toBe('succeeded')
      const operation = await okJson<Operation>(await request.get(`/api/v1/operations/${operationId}`, { headers: asViewer }))
      expect(operation).toMatchObject({ id: operationId, kind: 'failover', mirror, status: 'succeeded', requestedBy: { actor: 'token:operator', role: 'operator' }, resumedAt: [] })
      expect(operation.finishedAt).toBeGreaterThanOrEqual(operation.startedAt)
      expect(operation.partitions).toEqual([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED', error: null, finishedAt: expect.any(Number) }])
      expect(operation.partitions[0]!.finishedAt).toBeLessThanOrEqual(operation.finishedAt!)
      const listed = await okJson<{ operations: Operation[] }>(await request.get('/api/v1/operations?status=succeeded', { headers: asViewer }))
      expect(listed.operations.map((o) => o.id)).toContain(operationId)
      const ofMirror = await okJson<{ operations: Operation[] }>(await request.get(`/api/v1/operations?mirror=${mirror}`, { headers: asViewer }))
      expect(ofMirror.operations.map((o) => o.id)).toEqual([operationId])
      const started = await okJson<{ entries: Array<{ outcome: string; dryRun: boolean; operation?: string }> }>(
        await request.get(`/api/v1/audit?operation=${operationId}`, { headers: asViewer }),
      )
      expect(started.entries).toEqual([expect.objectContaining({ outcome: 'ok', dryRun: false, operation: operationId })])
      const running = await okJson<{ operations: Operation[] }>(await request.get('/api/v1/operations?status=running', { headers: asViewer }))
      expect(running.operations.map((o) => o.id)).not.toContain(operationId)
    })

    await test.step('the destination holds ABORT 4001 at 3, ABORT 4002 at 4 and the reset record at 5', async () => {
      const records = await recordsOf(request, destination, 'orders')
      expect(table(records)).toEqual([
        [0, 'DATA', 4001, 'A=1'],
        [1, 'DATA', 4001, 'B=2'],
        [2, 'DATA', 4002, 'X=9'],
        [3, 'ABORT', 4001, null],
        [4, 'ABORT', 4002, null],
        [5, 'MIRROR_PID_RESET', null, null],
      ])
      const committed = await recordsOf(request, destination, 'orders', 'read_committed')
      expect(committed.filter((record) => record.type === 'DATA')).toEqual([])
      const [partition] = await partitionsOf(request, mirror)
      expect(partition).toMatchObject({ state: 'STOPPED', previousState: 'STOPPING', lastMirrorPosition: { offset: 3 } })
      for (const marker of records.slice(3)) expect(marker.leaderEpoch).toBeGreaterThan(partition?.lastMirrorPosition?.epoch ?? Number.MAX_SAFE_INTEGER)
      const topics = await okJson<{ topics: Array<{ name: string; readOnly: boolean }> }>(await request.get(`/api/v1/clusters/${destination}/topics`, { headers: asViewer }))
      expect(topics.topics.find((topic) => topic.name === 'orders')?.readOnly).toBe(false)
    })

    await test.step('the failback dry run truncates the old source to offset 3, removing 3 records, and creates nothing', async () => {
      const failback = { name: back, sourceCluster: destination, destinationCluster: source, topics: ['orders'] }
      const { plan } = await okJson<{ plan: TruncationPlan }>(await request.post('/api/v1/mirrors', { headers: asOperator, data: { ...failback, dryRun: true } }))
      expect(plan.mirror).toBe(back)
      expect(plan.partitions).toEqual([expect.objectContaining({ topic: 'orders', partition: 0, truncateTo: 3, recordsToRemove: 3, lastMirrorPosition: expect.objectContaining({ offset: 3 }) })])
      await expectError(await request.get(`/api/v1/mirrors/${back}`, { headers: asViewer }), 404, 'NOT_FOUND')
      expect(await recordsOf(request, source, 'orders')).toHaveLength(6)
    })

    await test.step('the real failback mirror makes the old source match the destination offset by offset', async () => {
      await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: back, sourceCluster: destination, destinationCluster: source, topics: ['orders'] } }), 201)
      await expect
        .poll(async () => {
          const [oldSource, newSource] = await Promise.all([recordsOf(request, source, 'orders'), recordsOf(request, destination, 'orders')])
          return JSON.stringify(oldSource) === JSON.stringify(newSource) && oldSource.length === 6
        }, SETTLE)
        .toBe(true)
      expect(await recordsOf(request, source, 'orders')).toEqual(await recordsOf(request, destination, 'orders'))
      await expect.poll(async () => (await partitionsOf(request, back))[0]?.state, SETTLE).toBe('MIRRORING')
      expect((await partitionsOf(request, back))[0]?.lastTruncation).toMatchObject({ offset: 3, removedRecords: 3 })
      const history = await okJson<{ transitions: Array<{ from: string; to: string; at: number; reason: string }> }>(
        await request.get(`/api/v1/mirrors/${back}/partitions/orders/0/history`, { headers: asViewer }),
      )
      expect(history.transitions.map((t) => t.to)).toContain('MIRRORING')
      expect(history.transitions.at(-1)?.to).toBe('MIRRORING')
      const mirrors = await okJson<{ mirrors: Array<{ name: string; partitionsByState: Record<string, number> }> }>(await request.get('/api/v1/mirrors', { headers: asViewer }))
      expect(mirrors.mirrors.find((m) => m.name === mirror)?.partitionsByState).toEqual({ STOPPED: 1 })
      expect(mirrors.mirrors.find((m) => m.name === back)?.partitionsByState).toEqual({ MIRRORING: 1 })
      // The old mirror is all STOPPED: it can go now.
      expect((await request.delete(`/api/v1/mirrors/${mirror}`, { headers: asOperator })).status()).toBe(204)
      await expectError(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }), 404, 'NOT_FOUND')
    })
  })
})

test.describe('mirror authentication and roles', () => {
  test('every mirror mutation refuses missing and viewer credentials and cross-origin cookies; the operator gets its answer', async ({ request, baseURL }) => {
    const { source, destination, mirror } = await mirroringPair(request)
    const path = `/api/v1/mirrors/${mirror}`
    const mutations: Array<{ method: 'POST' | 'PATCH' | 'DELETE'; path: string; data?: unknown; operator: number; code?: string }> = [
      { method: 'POST', path: '/api/v1/mirrors', data: { name: unique('dry'), sourceCluster: source, destinationCluster: destination, topics: ['orders'], dryRun: true }, operator: 409, code: 'CONFLICT' },
      { method: 'POST', path: '/api/v1/mirrors', data: { name: unique('empty'), sourceCluster: source, destinationCluster: destination, dryRun: true }, operator: 200 },
      { method: 'PATCH', path, data: { config: { 'fetch.max.bytes': 65536 } }, operator: 200 },
      { method: 'DELETE', path, operator: 409, code: 'INVALID_MIRROR_STATE' },
      { method: 'POST', path: `${path}/topics/start`, data: { topics: ['orders'] }, operator: 409, code: 'INVALID_MIRROR_STATE' },
      { method: 'POST', path: `${path}/topics/start`, data: { topics: ['orders'], dryRun: true }, operator: 409, code: 'INVALID_MIRROR_STATE' },
      { method: 'POST', path: `${path}/topics/pause`, data: {}, operator: 200 },
      { method: 'POST', path: `${path}/topics/resume`, data: { topics: ['orders'] }, operator: 200 },
      { method: 'POST', path: `${path}/topics/recover`, data: {}, operator: 409, code: 'INVALID_MIRROR_STATE' },
      { method: 'POST', path: `${path}/failover`, data: { dryRun: true }, operator: 200 },
      { method: 'POST', path: `${path}/failover`, data: {}, operator: 409, code: 'CONFIRMATION_REQUIRED' },
    ]
    const before = await mirrorSnapshot(request, mirror, destination)

    const session = await playwrightRequest.newContext({ baseURL })
    await okJson(await session.post('/api/v1/session', { data: { token: operatorToken }, headers: { Origin: baseURL ?? '' } }))
    try {
      const send = (context: APIRequestContext, mutation: (typeof mutations)[number], headers: Record<string, string>) =>
        context.fetch(mutation.path, { method: mutation.method, headers, ...(mutation.data === undefined ? {} : { data: mutation.data }) })
      for (const mutation of mutations) {
        await test.step(`refused: ${mutation.method} ${mutation.path} ${JSON.stringify(mutation.data ?? null)}`, async () => {
          await expectError(await send(request, mutation, asNewClient()), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, mutation, { Authorization: 'Bearer not-a-token', ...asNewClient() }), 401, 'UNAUTHENTICATED')
          await expectError(await send(request, mutation, asViewer), 403, 'FORBIDDEN')
          await expectError(await send(session, mutation, { Origin: 'http://evil.example' }), 403, 'FORBIDDEN')
          await expectError(await send(session, mutation, {}), 403, 'FORBIDDEN')
        })
      }
      expect(await mirrorSnapshot(request, mirror, destination)).toEqual(before)

      for (const mutation of mutations) {
        await test.step(`operator: ${mutation.method} ${mutation.path} ${JSON.stringify(mutation.data ?? null)}`, async () => {
          const response = await send(request, mutation, asOperator)
          if (mutation.code !== undefined) await expectError(response, mutation.operator, mutation.code)
          else expect(response.status(), await response.text()).toBe(mutation.operator)
        })
      }
      // A same-origin cookie works like the token.
      const paused = await session.post(`${path}/topics/pause`, { data: { topics: ['orders'] }, headers: { Origin: baseURL ?? '' } })
      expect(await okJson(paused)).toEqual({ topics: ['orders'] })
    } finally {
      await session.dispose()
    }

    const detail = await okJson<{ config: Record<string, unknown> }>(await request.get(path, { headers: asViewer }))
    expect(detail.config['fetch.max.bytes']).toBe(65536)
    await expect.poll(async () => (await partitionsOf(request, mirror))[0]?.state, SETTLE).toBe('PAUSED')

    const reads = [
      '/api/v1/mirrors',
      path,
      `${path}/partitions`,
      `${path}/partitions/orders/0/history`,
      `${path}/lag`,
      '/api/v1/operations',
    ]
    for (const read of reads) {
      await expectError(await request.get(read), 401, 'UNAUTHENTICATED')
      expect((await request.get(read, { headers: asViewer })).status(), read).toBe(200)
    }

    const audit = await okJson<{ entries: Array<{ action: string; actor: string; outcome: string; error: { code: string } | null; target: string }> }>(
      await request.get('/api/v1/audit?action=mirror.update&limit=20', { headers: asViewer }),
    )
    const ours = audit.entries.filter((entry) => entry.target === `/mirrors/${mirror}`)
    expect(ours.map((entry) => `${entry.actor}:${entry.outcome}:${entry.error?.code ?? ''}`)).toEqual([
      'token:operator:ok:',
      expect.stringMatching(/^session:.+:rejected:FORBIDDEN$/),
      expect.stringMatching(/^session:.+:rejected:FORBIDDEN$/),
      'token:viewer:rejected:FORBIDDEN',
      'anonymous:rejected:UNAUTHENTICATED',
      'anonymous:rejected:UNAUTHENTICATED',
    ])
  })
})

test.describe('bad mirror input gets a 4xx with a code and changes nothing', () => {
  test('every mirror and operation endpoint', async ({ request }) => {
    const { source, destination, mirror } = await mirroringPair(request, 2)
    const before = await mirrorSnapshot(request, mirror, destination)
    const m = `/api/v1/mirrors/${mirror}`
    const post = (path: string, data: unknown) => request.post(path, { headers: asOperator, data: data as Record<string, unknown> })
    const raw = (path: string, body: string, method: 'POST' | 'PATCH' = 'POST') =>
      request.fetch(path, { method, headers: { ...asOperator, 'Content-Type': 'application/json' }, data: body })
    const get = (path: string) => request.get(path, { headers: asViewer })
    const valid = { name: unique('new'), sourceCluster: source, destinationCluster: destination }
    const huge = { ...valid, topics: ['orders'], config: { 'topics.include': ['x'.repeat(1000)] }, padding: 'x'.repeat(1_100_000) }

    await test.step('POST /mirrors', async () => {
      await expectError(await raw('/api/v1/mirrors', '{"name":'), 400, 'VALIDATION_FAILED')
      await expectError(await raw('/api/v1/mirrors', 'not json'), 400, 'VALIDATION_FAILED')
      await expectError(await raw('/api/v1/mirrors', '[]'), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', {}), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { name: valid.name, sourceCluster: source }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, name: 42 }), 400, 'VALIDATION_FAILED')
      for (const name of ['..', 'a/b', 'a b', '', 'x'.repeat(250)]) await expectError(await post('/api/v1/mirrors', { ...valid, name }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, destinationCluster: source }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, topics: 'orders' }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, topics: [1] }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, topicsInclude: ['('] }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, dryRun: 'yes' }), 400, 'VALIDATION_FAILED')
      await expectError(await post('/api/v1/mirrors', { ...valid, sourceClusterr: source }), 400, 'VALIDATION_FAILED')
      for (const config of [
        { 'fetch.max.bytes': -1 },
        { 'fetch.max.bytes': 0 },
        { 'fetch.max.bytes': 1e300 },
        { 'fetch.max.bytes': 2 ** 53 + 2 },
        { 'fetch.max.bytes': '1024' },
        { 'topics.include': 'orders' },
        { 'no.such.config': 1 },
      ]) {
        await expectError(await post('/api/v1/mirrors', { ...valid, config }), 400, 'VALIDATION_FAILED')
        await expectError(await post('/api/v1/mirrors', { ...valid, config, dryRun: true }), 400, 'VALIDATION_FAILED')
      }
      await expectError(await post('/api/v1/mirrors', { ...valid, sourceCluster: 'nope' }), 404, 'NOT_FOUND')
      await expectError(await post('/api/v1/mirrors', { ...valid, destinationCluster: 'nope', dryRun: true }), 404, 'NOT_FOUND')
      await expectError(await post('/api/v1/mirrors', { ...valid, topics: ['nope'] }), 404, 'NOT_FOUND')
      await expectError(await post('/api/v1/mirrors', { ...valid, topics: ['nope'], dryRun: true }), 404, 'NOT_FOUND')
      await expectError(await post('/api/v1/mirrors', { ...valid, name: mirror }), 409, 'CONFLICT')
      await expectError(await post('/api/v1/mirrors', { ...valid, name: mirror, dryRun: true }), 409, 'CONFLICT')
      await expectError(await post('/api/v1/mirrors', { ...valid, topics: ['orders'] }), 409, 'CONFLICT')
      await expectError(await post('/api/v1/mirrors', huge), 413, 'PAYLOAD_TOO_LARGE')
    })

    await test.step('GET, PATCH and DELETE /mirrors/{mirror}', async () => {
      await expectError(await get('/api/v1/mirrors/nope'), 404, 'NOT_FOUND')
      await expectError(await get('/api/v1/mirrors/a%20b'), 400, 'VALIDATION_FAILED')
      await expectError(await raw(m, '{"config": {', 'PATCH'), 400, 'VALIDATION_FAILED')
      const patch = (data: unknown, path = m) => request.patch(path, { headers: asOperator, data: data as Record<string, unknown> })
      await expectError(await patch({}), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: 'fast' }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: { 'fetch.max.bytes': 0 } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: { 'mirror.failed.retry.max.attempts': -1 } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: { 'mirror.failed.retry.initial.backoff.ms': 2 ** 31 } }), 400, 'VALIDATION_FAILED')
      // Above the current max backoff (300 s): a retry schedule that could never be followed.
      await expectError(await patch({ config: { 'mirror.failed.retry.initial.backoff.ms': 600_000 } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: { 'request.timeout.ms': 10 } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: { 'groups.include': ['['] } }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: {}, extra: true }), 400, 'VALIDATION_FAILED')
      await expectError(await patch({ config: {} }, '/api/v1/mirrors/nope'), 404, 'NOT_FOUND')
      await expectError(await patch({ config: { 'topics.include': ['x'.repeat(1000)], padding: 'x'.repeat(1_100_000) } }), 413, 'PAYLOAD_TOO_LARGE')
      await expectError(await request.delete('/api/v1/mirrors/nope', { headers: asOperator }), 404, 'NOT_FOUND')
      await expectError(await request.delete(m, { headers: asOperator }), 409, 'INVALID_MIRROR_STATE')
    })

    await test.step('topics/start, pause, resume and recover', async () => {
      const start = `${m}/topics/start`
      await expectError(await raw(start, '{'), 400, 'VALIDATION_FAILED')
      await expectError(await post(start, {}), 400, 'VALIDATION_FAILED')
      await expectError(await post(start, { topics: [] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(start, { topics: 'orders' }), 400, 'VALIDATION_FAILED')
      await expectError(await post(start, { patterns: ['('] }), 400, 'VALIDATION_FAILED')
      await expectError(await post(start, { topics: ['orders'], dryRun: 1 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(start, { topics: ['nope'] }), 404, 'NOT_FOUND')
      await expectError(await post(start, { topics: ['nope'], dryRun: true }), 404, 'NOT_FOUND')
      await expectError(await post('/api/v1/mirrors/nope/topics/start', { topics: ['orders'], dryRun: true }), 404, 'NOT_FOUND')
      await expectError(await post(start, { topics: ['orders'] }), 409, 'INVALID_MIRROR_STATE')
      await expectError(await post(start, { patterns: ['ord.*'], dryRun: true }), 409, 'INVALID_MIRROR_STATE')
      await expectError(await post(start, { topics: Array(10_001).fill('orders') }), 400, 'VALIDATION_FAILED')
      for (const action of ['pause', 'resume', 'recover']) {
        const path = `${m}/topics/${action}`
        await expectError(await raw(path, '{"topics": ['), 400, 'VALIDATION_FAILED')
        await expectError(await post(path, { topics: [] }), 400, 'VALIDATION_FAILED')
        await expectError(await post(path, { topics: 'orders' }), 400, 'VALIDATION_FAILED')
        await expectError(await post(path, { topics: [7] }), 400, 'VALIDATION_FAILED')
        await expectError(await post(path, { topic: 'orders' }), 400, 'VALIDATION_FAILED')
        await expectError(await post(path, { topics: ['nope'] }), 404, 'NOT_FOUND')
        await expectError(await post(path, { topics: ['orders', 'nope'] }), 404, 'NOT_FOUND')
        await expectError(await post(`/api/v1/mirrors/nope/topics/${action}`, {}), 404, 'NOT_FOUND')
        await expectError(await post(path, { topics: ['orders'], padding: 'x'.repeat(1_100_000) }), 413, 'PAYLOAD_TOO_LARGE')
      }
      await expectError(await post(`${m}/topics/recover`, {}), 409, 'INVALID_MIRROR_STATE')
    })

    await test.step('failover', async () => {
      const failover = `${m}/failover`
      await expectError(await raw(failover, '{"dryRun": tru}'), 400, 'VALIDATION_FAILED')
      await expectError(await post(failover, { topics: [], confirm: mirror }), 400, 'VALIDATION_FAILED')
      await expectError(await post(failover, { dryRun: 'true' }), 400, 'VALIDATION_FAILED')
      await expectError(await post(failover, { confirm: 42 }), 400, 'VALIDATION_FAILED')
      await expectError(await post(failover, { confirm: 'x'.repeat(300) }), 400, 'VALIDATION_FAILED')
      await expectError(await post(failover, { confirm: mirror, force: true }), 400, 'VALIDATION_FAILED')
      await expectError(await post(failover, { topics: ['nope'], dryRun: true }), 404, 'NOT_FOUND')
      await expectError(await post(failover, { topics: ['nope'], confirm: mirror }), 404, 'NOT_FOUND')
      await expectError(await post('/api/v1/mirrors/nope/failover', { confirm: 'nope' }), 404, 'NOT_FOUND')
      await expectError(await post(failover, {}), 409, 'CONFIRMATION_REQUIRED')
      await expectError(await post(failover, { confirm: 'wrong' }), 409, 'CONFIRMATION_REQUIRED')
      await expectError(await post(failover, { confirm: '' }), 409, 'CONFIRMATION_REQUIRED')
      await expectError(await post(failover, { confirm: mirror, padding: 'x'.repeat(1_100_000) }), 413, 'PAYLOAD_TOO_LARGE')
    })

    await test.step('partitions, history, lag and operations', async () => {
      await expectError(await get(`${m}/partitions?state=SLEEPING`), 400, 'VALIDATION_FAILED')
      await expectError(await get(`${m}/partitions?state=MIRRORING,constructor`), 400, 'VALIDATION_FAILED')
      await expectError(await get(`${m}/partitions?topic=a%20b`), 400, 'VALIDATION_FAILED')
      await expectError(await get(`${m}/partitions?topic=nope`), 404, 'NOT_FOUND')
      await expectError(await get('/api/v1/mirrors/nope/partitions'), 404, 'NOT_FOUND')
      expect(await partitionsOf(request, mirror, '?state=log_alignment,ULE_RECOVERY')).toEqual([])
      expect((await partitionsOf(request, mirror, '?state=mirroring&topic=orders')).map((p) => p.partition)).toEqual([0, 1])

      const history = (topic: string, partition: string) => get(`${m}/partitions/${topic}/${partition}/history`)
      await expectError(await history('orders', '-1'), 400, 'VALIDATION_FAILED')
      await expectError(await history('orders', 'abc'), 400, 'VALIDATION_FAILED')
      await expectError(await history('orders', '1e3'), 400, 'VALIDATION_FAILED')
      await expectError(await history('orders', '99999999999'), 400, 'VALIDATION_FAILED')
      await expectError(await history('orders', '2147483648'), 400, 'VALIDATION_FAILED')
      await expectError(await history('orders', '7'), 404, 'NOT_FOUND')
      await expectError(await history('nope', '0'), 404, 'NOT_FOUND')
      await expectError(await get('/api/v1/mirrors/nope/partitions/orders/0/history'), 404, 'NOT_FOUND')

      for (const query of ['stepMs=-5', 'stepMs=10', 'stepMs=1.5', 'from=abc', 'from=-1', 'from=1e3', 'from=20&to=10', `to=${'9'.repeat(17)}`, 'topic=a%20b', 'by=topic', 'by=broker&stepMs=1000']) {
        await expectError(await get(`${m}/lag?${query}`), 400, 'VALIDATION_FAILED')
      }
      await expectError(await get(`${m}/lag?topic=nope`), 404, 'NOT_FOUND')
      await expectError(await get('/api/v1/mirrors/nope/lag'), 404, 'NOT_FOUND')
      const lag = await okJson<{ series: Array<{ topic: string; partition: number; points: unknown[] }> }>(await get(`${m}/lag?topic=orders&stepMs=1000`))
      expect(lag.series.map(({ topic, partition }) => `${topic}-${partition}`)).toEqual(['orders-0', 'orders-1'])
      const byTopic = await okJson<{ series: unknown[]; topics: Array<{ topic: string; partitions: number }> }>(await get(`${m}/lag?topic=orders&stepMs=1000&by=topic`))
      expect(byTopic.series).toEqual([])
      expect(byTopic.topics.map(({ topic, partitions }) => `${topic}×${partitions}`)).toEqual(['orders×2'])

      await expectError(await get('/api/v1/operations?status=sleeping'), 400, 'VALIDATION_FAILED')
      for (const query of ['mirror=a%20b', 'limit=0', 'limit=1001', 'limit=x']) await expectError(await get(`/api/v1/operations?${query}`), 400, 'VALIDATION_FAILED')
      await expectError(await get('/api/v1/operations/no-such-operation'), 404, 'NOT_FOUND')
      await expectError(await get('/api/v1/operations/bad%20id'), 400, 'VALIDATION_FAILED')
      await expectError(await get(`/api/v1/operations/${'a'.repeat(65)}`), 400, 'VALIDATION_FAILED')
    })

    expect(await mirrorSnapshot(request, mirror, destination)).toEqual(before)
    const rejected = await okJson<{ entries: Array<{ outcome: string; error: { code: string } | null }> }>(
      await request.get('/api/v1/audit?action=mirror.failover&limit=13', { headers: asViewer }),
    )
    expect(rejected.entries.map((entry) => entry.outcome)).toEqual(Array(13).fill('rejected'))
  })
})

function sequenceOf(id: string): { stream: string; sequence: number } {
  const [stream = '', sequence = ''] = id.split(':')
  return { stream, sequence: Number(sequence) }
}

test.describe('live mirror events', () => {
  test('a pause shows up as partition events at once, and a reconnect with Last-Event-ID misses nothing', async ({ request, baseURL }) => {
    const url = baseURL ?? ''
    const { mirror } = await mirroringPair(request)
    const ours = (to: string[]) => (event: StreamEvent) => event.event === 'partition' && event.data.mirror === mirror && to.includes(event.data.to ?? '')

    const first = openStream(url)
    let lastSeen = ''
    try {
      await first.ready
      const response = await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} })
      const answeredAt = Date.now()
      expect(await okJson(response)).toEqual({ topics: ['orders'] })
      const pausing = await first.next(ours(['PAUSING', 'PAUSED']))
      expect(pausing.data).toMatchObject({ mirror, topic: 'orders', partition: 0, from: 'MIRRORING' })
      expect(pausing.receivedAt - answeredAt).toBeLessThan(1000)
      const paused = await first.next(ours(['PAUSED']))
      expect(paused.data).toMatchObject({ from: 'PAUSING', to: 'PAUSED' })
      lastSeen = first.received.at(-1)?.id ?? ''
    } finally {
      first.close()
    }

    // Missed while disconnected: the resume (audit entry and partition transition).
    expect(await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/resume`, { headers: asOperator, data: {} }))).toEqual({ topics: ['orders'] })
    await expect.poll(async () => (await partitionsOf(request, mirror))[0]?.state, SETTLE).toBe('MIRRORING')

    const resumed = openStream(url, lastSeen)
    try {
      await resumed.ready
      const mirroring = await resumed.next(ours(['MIRRORING']))
      expect(mirroring.data).toMatchObject({ from: 'PAUSED', to: 'MIRRORING' })
      await resumed.next((event) => event.event === 'audit' && event.data.action === 'mirror.topics.resume' && event.data.target === `/mirrors/${mirror}/topics/resume`)
      const last = sequenceOf(lastSeen)
      const sequences = resumed.received.map((event) => {
        const { stream, sequence } = sequenceOf(event.id)
        expect(stream).toBe(last.stream)
        return sequence
      })
      expect(sequences).toEqual(sequences.map((_, index) => last.sequence + 1 + index))
      expect(resumed.received.some((event) => event.event === 'resync')).toBe(false)
    } finally {
      resumed.close()
    }
  })
})
