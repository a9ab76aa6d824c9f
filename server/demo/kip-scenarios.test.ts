import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as topicsRoute from '@/app/api/v1/clusters/[cluster]/topics/route'
import * as topicRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/route'
import * as topicConfigsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/configs/route'
import * as topicPartitionsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/route'
import * as recordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/records/route'
import * as readRecordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/[partition]/records/route'
import * as faultsRoute from '@/app/api/v1/demo/faults/route'
import * as faultRoute from '@/app/api/v1/demo/faults/[id]/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import * as describeRoute from '@/app/api/v1/mirrors/[mirror]/describe/route'
import * as pauseRoute from '@/app/api/v1/mirrors/[mirror]/topics/pause/route'
import * as historyRoute from '@/app/api/v1/mirrors/[mirror]/partitions/[topic]/[partition]/history/route'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

/**
 * The scenarios of the KIP authors' integration tests that our black-box run found deviating (issue #36), through
 * the HTTP API of a server with the demo's fault injection, on embedded clusters of their own (the live demo
 * clusters idle: no workloads). Real time: the engine ticks every 100 ms in the background.
 */

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kip-scenarios-fallback-${process.pid}`)

let dataDir: string
let runtime: Runtime
const settle = { timeout: 30_000, interval: 100 }

type Call = Parameters<typeof callRoute>[1]
async function ok<T>(handler: Parameters<typeof callRoute>[0], options: Call, status = 200): Promise<T> {
  const answer = await callRoute(handler, options)
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  return answer.body as T
}

interface ShownPartition {
  topic: string
  partition: number
  state: string
  retryAttempt: number
  error: string | null
  failureCode?: string | null
  offsetLag: number | null
  destinationLogEndOffset: number
}

async function partitions(mirror: string): Promise<ShownPartition[]> {
  return (await ok<{ partitions: ShownPartition[] }>(mirrorPartitionsRoute.GET, { path: `/api/v1/mirrors/${mirror}/partitions`, params: { mirror } })).partitions
}

async function history(mirror: string, topic: string, partition = 0) {
  const params = { mirror, topic, partition: String(partition) }
  return (await ok<{ transitions: Array<{ from: string; to: string; reason: string; retryAttempt?: number; error?: string }> }>(historyRoute.GET, { path: `/api/v1/mirrors/${mirror}/partitions/${topic}/${partition}/history`, params })).transitions
}

async function createCluster(name: string, brokers: number) {
  await ok(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'embedded', brokers } }, 201)
}

async function produce(cluster: string, topic: string, values: string[]) {
  await ok(recordsRoute.POST, { method: 'POST', path: `/api/v1/clusters/${cluster}/topics/${topic}/records`, params: { cluster, topic }, body: { partition: 0, records: values.map((value) => ({ value })) } })
}

async function readValues(cluster: string, topic: string): Promise<string[]> {
  const params = { cluster, topic, partition: '0' }
  const page = await ok<{ records: Array<{ value: string | null }> }>(readRecordsRoute.GET, { path: `/api/v1/clusters/${cluster}/topics/${topic}/partitions/0/records?fromOffset=0&limit=1000`, params })
  return page.records.map((record) => record.value ?? '')
}

function injectFault(body: Record<string, unknown>) {
  return ok<{ fault: { id: string } }>(faultsRoute.POST, { method: 'POST', path: '/api/v1/demo/faults', body }, 202)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kip-scenarios-'))
  runtime = await openTestRuntime(dataDir, { demo: true, workloads: () => [] })
}, 60_000)
afterAll(async () => {
  await runtime?.close()
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

describe('ULE recovery with a destination replica down (#38)', () => {
  it('stays in ULE_LOG_TRUNCATION while a destination replica is stopped, and mirrors the new history once it is back', async () => {
    await createCluster('ule-src', 2)
    await createCluster('ule-dst', 2)
    await ok(topicsRoute.POST, { method: 'POST', path: '/api/v1/clusters/ule-src/topics', params: { cluster: 'ule-src' }, body: { name: 't', partitions: 1, replicationFactor: 2 } }, 201)
    // Three requests, three batches: the unclean election cuts whole batches, here from 30 to 20.
    for (let batch = 0; batch < 3; batch++) await produce('ule-src', 't', Array.from({ length: 10 }, (_, i) => `old-${batch * 10 + i}`))
    await ok(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'ule', sourceCluster: 'ule-src', destinationCluster: 'ule-dst', topics: ['t'] } }, 201)
    await vi.waitFor(async () => expect(await partitions('ule')).toMatchObject([{ state: 'MIRRORING', offsetLag: 0, destinationLogEndOffset: 30 }]), settle)

    const params = { cluster: 'ule-dst', topic: 't' }
    const [described] = (await ok<{ partitions: Array<{ leader: number; isr: number[] }> }>(topicPartitionsRoute.GET, { path: '/api/v1/clusters/ule-dst/topics/t/partitions', params })).partitions
    const follower = described!.isr.find((broker) => broker !== described!.leader)!
    const stopped = await injectFault({ kind: 'stop-broker', cluster: 'ule-dst', broker: follower })
    await ok(topicConfigsRoute.PATCH, { method: 'PATCH', path: '/api/v1/clusters/ule-dst/topics/t/configs', params, body: { set: { 'mirror.support.unclean.leader.election': 'true' } } })
    await injectFault({ kind: 'unclean-election', cluster: 'ule-src', topic: 't', partition: 0 })
    await produce('ule-src', 't', ['new-20', 'new-21', 'new-22'])

    await vi.waitFor(async () => expect((await history('ule', 't')).map((t) => t.to)).toContain('ULE_LOG_TRUNCATION'), settle)
    const entered = (await history('ule', 't')).find((t) => t.to === 'ULE_LOG_TRUNCATION')!
    expect(entered.reason).toBe('source history diverges at epoch 0 offset 20')
    // The stopped follower is still in the ISR (replica.lag.time.max.ms has not passed), and what its disk holds
    // cannot be seen until it returns: about 20 engine ticks later the partition is still recovering, nothing
    // mirrored past 20.
    await sleep(2_000)
    expect(await partitions('ule')).toMatchObject([{ state: 'ULE_LOG_TRUNCATION', destinationLogEndOffset: 20 }])
    expect((await history('ule', 't')).map((t) => `${t.from}→${t.to}`)).not.toContain('ULE_LOG_TRUNCATION→MIRRORING')

    await ok(faultRoute.DELETE, { method: 'DELETE', path: `/api/v1/demo/faults/${stopped.fault.id}`, params: { id: stopped.fault.id } })
    await vi.waitFor(async () => expect(await partitions('ule')).toMatchObject([{ state: 'MIRRORING', offsetLag: 0, destinationLogEndOffset: 23 }]), settle)
    const transitions = (await history('ule', 't')).map((t) => `${t.from}→${t.to}`)
    expect(transitions.slice(-2)).toEqual(['MIRRORING→ULE_LOG_TRUNCATION', 'ULE_LOG_TRUNCATION→MIRRORING'])
    const expected = [...Array.from({ length: 20 }, (_, i) => `old-${i}`), 'new-20', 'new-21', 'new-22']
    expect(await readValues('ule-src', 't')).toEqual(expected)
    expect(await readValues('ule-dst', 't')).toEqual(expected)
    // Every replica, the one that was stopped included, holds the source's new history.
    const destination = runtime.clusters.embedded('ule-dst')
    const tp = { topic: 't', partition: 0 }
    await vi.waitFor(() => {
      for (const broker of [described!.leader, follower]) {
        const log = destination.replicaLog(tp, broker)!
        expect({ broker, end: log.logEndOffset, epoch: log.latestEpoch() }).toEqual({ broker, end: 23, epoch: 1 })
      }
    }, settle)
  })
})

describe('a deleted source topic (#35)', () => {
  it('holds the partition until the metadata says the topic is deleted, then FAILED non-retryable at once: never a retryable FAILED', async () => {
    await createCluster('del-src', 1)
    await createCluster('del-dst', 1)
    for (const name of ['gone', 'kept']) {
      await ok(topicsRoute.POST, { method: 'POST', path: '/api/v1/clusters/del-src/topics', params: { cluster: 'del-src' }, body: { name, partitions: 1 } }, 201)
      await produce('del-src', name, ['1', '2'])
    }
    // The default metadata refresh (60 s): the deletion is not waited for until the next periodic sync.
    await ok(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'del', sourceCluster: 'del-src', destinationCluster: 'del-dst', topics: ['gone', 'kept'] } }, 201)
    await vi.waitFor(async () => expect((await partitions('del')).map((p) => [p.topic, p.state, p.offsetLag])).toEqual([['gone', 'MIRRORING', 0], ['kept', 'MIRRORING', 0]]), settle)

    const deletedAt = Date.now()
    const deleted = await callRoute(topicRoute.DELETE, { method: 'DELETE', path: '/api/v1/clusters/del-src/topics/gone', params: { cluster: 'del-src', topic: 'gone' } })
    expect(deleted.status).toBe(204)
    await vi.waitFor(async () => expect((await partitions('del'))[0]).toMatchObject({ topic: 'gone', state: 'FAILED' }), settle)
    // Two metadata reads a fetch backoff apart (1 s), not two refresh intervals.
    expect(Date.now() - deletedAt).toBeLessThan(15_000)
    const [gone, kept] = await partitions('del')
    expect(gone).toMatchObject({ state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.', failureCode: 'SOURCE_TOPIC_DELETED' })
    expect(kept).toMatchObject({ state: 'MIRRORING', error: null })
    expect((await history('del', 'gone')).map((t) => [t.from, t.to, t.retryAttempt ?? 0, t.error ?? null])).toEqual([
      ['UNKNOWN', 'PREPARING', 0, null],
      ['PREPARING', 'MIRRORING', 0, null],
      ['MIRRORING', 'FAILED', -1, 'The source topic is deleted.'],
    ])
    // It stays so: nothing retries a deleted topic.
    await sleep(1_500)
    expect((await history('del', 'gone')).length).toBe(3)
  })
})

describe('GET /mirrors/{mirror}/describe', () => {
  it("answers the partitions exactly as kafka-cluster-mirrors.sh --describe --json prints them", async () => {
    await createCluster('desc-src', 1)
    await createCluster('desc-dst', 1)
    for (const [name, count] of [['b-topic', 2], ['A-topic', 1]] as const) {
      await ok(topicsRoute.POST, { method: 'POST', path: '/api/v1/clusters/desc-src/topics', params: { cluster: 'desc-src' }, body: { name, partitions: count } }, 201)
    }
    await produce('desc-src', 'A-topic', ['1', '2', '3'])
    await produce('desc-src', 'b-topic', ['1'])
    await ok(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'desc', sourceCluster: 'desc-src', destinationCluster: 'desc-dst', topics: ['b-topic', 'A-topic'] } }, 201)
    await vi.waitFor(async () => expect((await partitions('desc')).every((p) => p.state === 'MIRRORING' && p.offsetLag === 0)).toBe(true), settle)
    await ok(pauseRoute.POST, { method: 'POST', path: '/api/v1/mirrors/desc/topics/pause', params: { mirror: 'desc' }, body: { topics: ['b-topic'] } })
    await vi.waitFor(async () => expect((await partitions('desc')).filter((p) => p.state === 'PAUSED')).toHaveLength(2), settle)

    const described = await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/desc/describe', params: { mirror: 'desc' } })
    expect(described.status).toBe(200)
    // The body is the tool's array itself, its entries with the tool's fields in the tool's order, sorted as it sorts.
    expect(described.body).toEqual([
      { mirror: 'desc', topic: 'A-topic', partition: 0, sourceOffset: 3, destinationOffset: 3, lag: 0, state: 'MIRRORING', retryAttempt: 0, errorMessage: null },
      { mirror: 'desc', topic: 'b-topic', partition: 0, sourceOffset: -1, destinationOffset: -1, lag: -1, state: 'PAUSED', retryAttempt: 0, errorMessage: null },
      { mirror: 'desc', topic: 'b-topic', partition: 1, sourceOffset: -1, destinationOffset: -1, lag: -1, state: 'PAUSED', retryAttempt: 0, errorMessage: null },
    ])
    expect((described.body as Array<Record<string, unknown>>).map((entry) => Object.keys(entry).join())).toEqual(
      Array(3).fill('mirror,topic,partition,sourceOffset,destinationOffset,lag,state,retryAttempt,errorMessage'),
    )
    const failedOnly = await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/desc/describe?failed=true', params: { mirror: 'desc' } })
    expect(failedOnly).toMatchObject({ status: 200, body: [] })
    const kipNames = await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/desc/describe?stateNames=kip', params: { mirror: 'desc' } })
    expect((kipNames.body as Array<{ state: string }>).map((entry) => entry.state)).toEqual(['MIRRORING', 'PAUSED', 'PAUSED'])
    // The deleted topic of the scenario above: FAILED for good, its message, no offsets.
    const deleted = await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/del/describe?failed=true&stateNames=kip', params: { mirror: 'del' } })
    expect(deleted.body).toEqual([{ mirror: 'del', topic: 'gone', partition: 0, sourceOffset: -1, destinationOffset: -1, lag: -1, state: 'FAILED', retryAttempt: -1, errorMessage: 'The source topic is deleted.' }])

    expect(await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/nope/describe', params: { mirror: 'nope' } })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    expect(await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/desc/describe?failed=yes', params: { mirror: 'desc' } })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    expect(await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/desc/describe?stateNames=prototype', params: { mirror: 'desc' } })).toMatchObject({ status: 400 })
    expect(await callRoute(describeRoute.GET, { path: '/api/v1/mirrors/desc/describe', params: { mirror: 'desc' }, headers: { authorization: '' } })).toMatchObject({ status: 401 })
  })
})
