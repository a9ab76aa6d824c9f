/**
 * Kafka clusters through the HTTP API, against the real test broker `a` (`npx tsx scripts/kafka/clusters.ts
 * start`; `npm test` starts it): adding one (connected before it is saved; refusals carry the broker's reason
 * and never the password), its brokers, topics, partitions, records and groups, and a mirror Kafka → embedded
 * that reaches MIRRORING with the destination's segment byte-identical to the broker's, then fails over (the
 * open source transaction gets its ABORT). The route handlers are called as Next calls them.
 */
import 'server-only'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { CompressionTypes, Kafka, logLevel, type Producer } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clusterRoute from '@/app/api/v1/clusters/[cluster]/route'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as groupsRoute from '@/app/api/v1/clusters/[cluster]/groups/route'
import * as partitionsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/route'
import * as recordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/[partition]/records/route'
import * as produceRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/records/route'
import * as topicsRoute from '@/app/api/v1/clusters/[cluster]/topics/route'
import * as topicRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/route'
import * as configsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/configs/route'
import * as deleteRecordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/[partition]/delete-records/route'
import * as groupOffsetsRoute from '@/app/api/v1/clusters/[cluster]/groups/[group]/offsets/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import type { RecordEntry } from '@/lib/api/records'
import { ClusterRegistry } from '@/server/cluster/registry'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { logger } from '@/server/observability/logger'
import type { Runtime } from '@/server/runtime'
import { dumpLogSegment } from '@/scripts/kafka/dump-log-segments'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-fallback-${process.pid}`)

const PASSWORD = 'hunter2-never-anywhere'
const settle = { timeout: 30_000, interval: 100 }
// A topic and transactional ids of their own per run: a transaction an interrupted run left open is aborted by
// its coordinator later, into whatever topic then has the old name.
const RUN = Date.now().toString(36)
const TOPIC = `km-orders-${RUN}`

let dataDir: string
let runtime: Runtime
let brokers: TestClusters
let client: KafkajsContractClient
let kafka: Kafka
const producers: Producer[] = []

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : [full]
  })
}

async function records(cluster: string, isolation = 'read_uncommitted'): Promise<RecordEntry[]> {
  const { status, body } = await callRoute(recordsRoute.GET, {
    path: `/api/v1/clusters/${cluster}/topics/${TOPIC}/partitions/0/records?fromOffset=0&limit=100&isolation=${isolation}`,
    params: { cluster, topic: TOPIC, partition: '0' },
  })
  expect(status, JSON.stringify(body)).toBe(200)
  return (body as { records: RecordEntry[] }).records
}

const table = (entries: RecordEntry[]) => entries.map((r) => [r.offset, r.type, r.type === 'DATA' ? `${r.key}=${r.value}` : null])

describe('Kafka clusters through the API', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    client = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-api-test')
    await client.forget(['km-'])
    kafka = new Kafka({ clientId: 'kafka-api-test-producers', brokers: [brokers.a.bootstrap], logLevel: logLevel.NOTHING })
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-api-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
  })
  afterAll(async () => {
    await Promise.allSettled(producers.map((p) => p.disconnect()))
    await runtime?.close()
    await client?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('adds a Kafka cluster only once it connected; refusals carry the reason, save nothing and never show the password', async () => {
    const unreachable = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name: 'nowhere', kind: 'kafka', bootstrapServers: ['127.0.0.1:1'] } })
    expect(unreachable.status).toBe(422)
    expect(unreachable.body).toMatchObject({ error: { code: 'CLUSTER_CONNECTION_FAILED', message: expect.stringContaining('127.0.0.1:1') } })
    // The test listener is PLAINTEXT: a SASL client is refused by the broker itself.
    const refused = await callRoute(clustersRoute.POST, {
      method: 'POST',
      path: '/api/v1/clusters',
      body: { name: 'with-sasl', kind: 'kafka', bootstrapServers: [brokers.a.bootstrap], sasl: { mechanism: 'scram-sha-256', username: 'alice', password: PASSWORD } },
    })
    expect(refused.status).toBe(422)
    expect(refused.body).toMatchObject({ error: { code: 'CLUSTER_CONNECTION_FAILED', message: expect.stringMatching(/SASL|sasl|authentication|Connection/) } })

    const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name: 'kafka-a', kind: 'kafka', bootstrapServers: [brokers.a.bootstrap] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({ name: 'kafka-a', kind: 'kafka', clusterId: brokers.a.clusterId, bootstrapServers: [brokers.a.bootstrap], brokers: [{ id: 1, alive: true }], status: 'ok' })
    const listed = await callRoute(clustersRoute.GET, { path: '/api/v1/clusters' })
    expect((listed.body as { clusters: Array<{ name: string }> }).clusters.map((c) => c.name)).toEqual(['kafka-a'])
    const described = await callRoute(clusterRoute.GET, { path: '/api/v1/clusters/kafka-a', params: { cluster: 'kafka-a' } })
    expect(described.body).toMatchObject({ kind: 'kafka', brokers: [{ id: 1, alive: true }] })

    // A restarted server opens the Kafka cluster again from its definition and secrets.
    const reopened = await ClusterRegistry.open({ dataDir, log: logger })
    try {
      expect(await reopened.list()).toEqual([expect.objectContaining({ name: 'kafka-a', kind: 'kafka', open: true, clusterId: brokers.a.clusterId })])
    } finally {
      await reopened.close()
    }

    for (const file of filesUnder(dataDir)) expect(readFileSync(file, 'utf8'), file).not.toContain(PASSWORD)
    expect(JSON.stringify([unreachable.body, refused.body, listed.body])).not.toContain(PASSWORD)
    const secrets = path.join(dataDir, 'secrets', 'clusters', 'kafka-a.json')
    expect(statSync(secrets).mode & 0o777).toBe(0o600)
    expect(statSync(path.dirname(secrets)).mode & 0o777).toBe(0o700)
    expect(existsSync(path.join(dataDir, 'secrets', 'clusters', 'with-sasl.json'))).toBe(false)
  })

  it('shows the topics, partitions, records (gzip batches decoded, markers included) and groups of the Kafka cluster', async () => {
    await client.createTopic(TOPIC, { partitions: 1 })
    const committed = await client.transactionalProducer(`km-committed-${RUN}`)
    await committed.send({ topic: TOPIC, partition: 0 }, [{ key: 'A', value: '1' }, { key: 'B', value: '2' }])
    await committed.commit()
    const gzip = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    producers.push(gzip)
    await gzip.connect()
    await gzip.send({ topic: TOPIC, compression: CompressionTypes.GZIP, acks: -1, messages: [{ partition: 0, key: 'C', value: '3' }, { partition: 0, key: 'D', value: '4' }] })
    const aborted = await client.transactionalProducer(`km-aborted-${RUN}`)
    await aborted.send({ topic: TOPIC, partition: 0 }, [{ key: 'X', value: '9' }])
    await aborted.abort()
    await client.commitGroupOffset('km-billing', { topic: TOPIC, partition: 0 }, 2)

    const topics = await callRoute(topicsRoute.GET, { path: '/api/v1/clusters/kafka-a/topics', params: { cluster: 'kafka-a' } })
    expect((topics.body as { topics: Array<{ name: string }> }).topics.find((t) => t.name === TOPIC)).toMatchObject({ topicId: expect.any(String), partitions: 1, replicationFactor: 1, readOnly: false, mirror: null })
    const partitions = await callRoute(partitionsRoute.GET, { path: `/api/v1/clusters/kafka-a/topics/${TOPIC}/partitions`, params: { cluster: 'kafka-a', topic: TOPIC } })
    expect(partitions.body).toEqual({ partitions: [expect.objectContaining({ partition: 0, leader: 1, isr: [1], leaderEpoch: 0, logStartOffset: 0, highWatermark: 7, lastStableOffset: 7, logEndOffset: 7 })] })
    const all = await records('kafka-a')
    expect(table(all)).toEqual([
      [0, 'DATA', 'A=1'],
      [1, 'DATA', 'B=2'],
      [2, 'COMMIT', null],
      [3, 'DATA', 'C=3'],
      [4, 'DATA', 'D=4'],
      [5, 'DATA', 'X=9'],
      [6, 'ABORT', null],
    ])
    expect(all[0]).toMatchObject({ producerId: committed.producerId, transactional: true, leaderEpoch: 0 })
    expect(table(await records('kafka-a', 'read_committed')).map((row) => row[0])).toEqual([0, 1, 2, 3, 4, 6])
    const groups = await callRoute(groupsRoute.GET, { path: '/api/v1/clusters/kafka-a/groups', params: { cluster: 'kafka-a' } })
    expect((groups.body as { groups: unknown[] }).groups).toContainEqual({ groupId: 'km-billing', state: 'Empty', members: [], offsets: [{ topic: TOPIC, partition: 0, offset: 2, leaderEpoch: null }] })
  })

  it("reads batches the broker compressed with each of Kafka's codecs (the topic's compression.type)", async () => {
    for (const codec of ['snappy', 'lz4', 'zstd'] as const) {
      const name = `km-${codec}-${RUN}`
      const params = { cluster: 'kafka-a', topic: name }
      const created = await callRoute(topicsRoute.POST, { method: 'POST', path: '/api/v1/clusters/kafka-a/topics', params: { cluster: 'kafka-a' }, body: { name, partitions: 1, configs: { 'compression.type': codec } } })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      // Sent uncompressed: the broker writes the batch in the topic's codec, with Kafka's own (Java) compressor.
      const values = Array.from({ length: 20 }, (_, index) => `${codec} record ${index} `.repeat(20))
      const produced = await callRoute(produceRoute.POST, { method: 'POST', path: `/api/v1/clusters/kafka-a/topics/${name}/records`, params, body: { partition: 0, records: values.map((value, index) => ({ key: `k${index}`, value, headers: { codec } })) } })
      expect(produced.status, JSON.stringify(produced.body)).toBe(200)
      const read = await callRoute(recordsRoute.GET, { path: `/api/v1/clusters/kafka-a/topics/${name}/partitions/0/records?fromOffset=0&limit=100`, params: { ...params, partition: '0' } })
      expect(read.status, JSON.stringify(read.body)).toBe(200)
      const entries = (read.body as { records: RecordEntry[] }).records
      expect(entries.map((entry) => [entry.offset, entry.key, entry.value, entry.headers])).toEqual(values.map((value, index) => [index, `k${index}`, value, [{ key: 'codec', value: codec }]]))
      const dumped = await dumpLogSegment(path.join(brokers.a.logDir, `${name}-0`, '00000000000000000000.log'), { lib: brokers.lib })
      expect(dumped.batches.map((batch) => batch.compresscodec)).toEqual([codec])
    }
  })

  it('administers topics of the Kafka cluster: create, produce, configs, partitions, delete records, group offsets, delete', async () => {
    const name = `km-admin-${RUN}`
    const at = (suffix = '') => `/api/v1/clusters/kafka-a/topics/${name}${suffix}`
    const params = { cluster: 'kafka-a', topic: name }
    const created = await callRoute(topicsRoute.POST, { method: 'POST', path: '/api/v1/clusters/kafka-a/topics', params: { cluster: 'kafka-a' }, body: { name, partitions: 1, configs: { 'retention.ms': '3600000' } } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({ name, partitions: 1, configs: { 'retention.ms': '3600000' } })
    const again = await callRoute(topicsRoute.POST, { method: 'POST', path: '/api/v1/clusters/kafka-a/topics', params: { cluster: 'kafka-a' }, body: { name, partitions: 1 } })
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    const produced = await callRoute(produceRoute.POST, { method: 'POST', path: at('/records'), params, body: { partition: 0, records: [{ key: 'a', value: '1', headers: { trace: 'x' } }, { value: '2' }, { value: '3' }] } })
    expect(produced.body).toEqual({ records: [0, 1, 2].map((offset) => ({ partition: 0, offset })) })
    const configs = await callRoute(configsRoute.PATCH, { method: 'PATCH', path: at('/configs'), params, body: { set: { 'max.message.bytes': '2000000' }, delete: ['retention.ms'] } })
    expect(configs.body).toEqual({ configs: { 'max.message.bytes': '2000000' } })
    const grown = await callRoute(partitionsRoute.POST, { method: 'POST', path: at('/partitions'), params, body: { count: 3 } })
    expect(grown.body).toMatchObject({ partitions: 3 })
    const shrink = await callRoute(partitionsRoute.POST, { method: 'POST', path: at('/partitions'), params, body: { count: 2 } })
    expect(shrink).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    const deleted = await callRoute(deleteRecordsRoute.POST, { method: 'POST', path: at('/partitions/0/delete-records'), params: { ...params, partition: '0' }, body: { beforeOffset: 2 } })
    expect(deleted.body).toEqual({ logStartOffset: 2 })
    const beyond = await callRoute(deleteRecordsRoute.POST, { method: 'POST', path: at('/partitions/0/delete-records'), params: { ...params, partition: '0' }, body: { beforeOffset: 99 } })
    expect(beyond).toMatchObject({ status: 416, body: { error: { code: 'OFFSET_OUT_OF_RANGE' } } })
    const group = `km-admin-group-${RUN}`
    const committed = await callRoute(groupOffsetsRoute.POST, { method: 'POST', path: `/api/v1/clusters/kafka-a/groups/${group}/offsets`, params: { cluster: 'kafka-a', group }, body: { offsets: [{ topic: name, partition: 0, offset: 3 }] } })
    expect(committed.status, JSON.stringify(committed.body)).toBe(200)
    const groups = await callRoute(groupsRoute.GET, { path: '/api/v1/clusters/kafka-a/groups', params: { cluster: 'kafka-a' } })
    expect((groups.body as { groups: Array<{ groupId: string }> }).groups.find((g) => g.groupId === group)).toMatchObject({ offsets: [{ topic: name, partition: 0, offset: 3 }] })
    const removed = await callRoute(topicRoute.DELETE, { method: 'DELETE', path: at(), params })
    expect(removed.status, JSON.stringify(removed.body)).toBe(204)
    await vi.waitFor(async () => {
      const { status } = await callRoute(partitionsRoute.GET, { path: at('/partitions'), params })
      expect(status).toBe(404)
    }, settle)
  })

  it('adds an embedded cluster to mirror into (mirrors into Kafka: kafka-destination.integration.test.ts)', async () => {
    const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name: 'dest', kind: 'embedded', brokers: 1 } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect((await callRoute(mirrorsRoute.GET, { path: '/api/v1/mirrors' })).body).toMatchObject({ mirrors: [] })
  })

  it('mirrors Kafka → embedded byte for byte to MIRRORING, then fails over with the open transaction aborted', async () => {
    const open = await client.transactionalProducer(`km-open-${RUN}`)
    await open.send({ topic: TOPIC, partition: 0 }, [{ key: 'P', value: '7' }])
    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'from-kafka', sourceCluster: 'kafka-a', destinationCluster: 'dest', topics: [TOPIC] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const partitionsOf = async () =>
      (await callRoute(mirrorPartitionsRoute.GET, { path: '/api/v1/mirrors/from-kafka/partitions', params: { mirror: 'from-kafka' } })).body as { partitions: Array<{ state: string; destinationLogEndOffset?: number }> }
    const destinationEnd = async () => (await runtime.clusters.embedded('dest').describePartition({ topic: TOPIC, partition: 0 })).logEndOffset
    await vi.waitFor(async () => {
      expect((await partitionsOf()).partitions.map((p) => p.state)).toEqual(['MIRRORING'])
      expect(await destinationEnd()).toBe(8)
    }, settle)

    const brokerSegment = readFileSync(path.join(brokers.a.logDir, `${TOPIC}-0`, '00000000000000000000.log'))
    const ourSegmentFile = path.join(dataDir, 'clusters', 'dest', 'broker-1', `${TOPIC}-0`, '00000000000000000000.log')
    expect(readFileSync(ourSegmentFile).equals(brokerSegment)).toBe(true)
    const dumped = await dumpLogSegment(ourSegmentFile, { lib: brokers.lib })
    expect(dumped.batches.map((b) => [b.baseOffset, b.lastOffset, b.isControl, b.compresscodec, b.isValid])).toEqual([
      [0, 1, false, 'none', true],
      [2, 2, true, 'none', true],
      [3, 4, false, 'gzip', true],
      [5, 5, false, 'none', true],
      [6, 6, true, 'none', true],
      [7, 7, false, 'none', true],
    ])

    const accepted = await callRoute(failoverRoute.POST, { method: 'POST', path: '/api/v1/mirrors/from-kafka/failover', params: { mirror: 'from-kafka' }, body: { confirm: 'from-kafka' } })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const operation = (accepted.body as { operation: string }).operation
    await vi.waitFor(async () => {
      const { body } = await callRoute(operationRoute.GET, { path: `/api/v1/operations/${operation}`, params: { id: operation } })
      expect((body as { status: string }).status).toBe('succeeded')
    }, settle)
    const after = await records('dest')
    expect(table(after.slice(7))).toEqual([
      [7, 'DATA', 'P=7'],
      [8, 'ABORT', null],
      [9, 'MIRROR_PID_RESET', null],
    ])
    expect(after[8]!.producerId).toBe(open.producerId)
    expect(table(await records('dest', 'read_committed')).filter((row) => row[2] === 'P=7')).toEqual([])
    const written = await callRoute(produceRoute.POST, { method: 'POST', path: `/api/v1/clusters/dest/topics/${TOPIC}/records`, params: { cluster: 'dest', topic: TOPIC }, body: { records: [{ value: 'after failover' }] } })
    expect(written.status, JSON.stringify(written.body)).toBe(200)
    await open.abort()

    // Producers still writing to the old source (a Kafka cluster): the split-brain guard reads it through its port.
    const stray = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    producers.push(stray)
    await stray.connect()
    await stray.send({ topic: TOPIC, acks: -1, messages: [{ partition: 0, value: 'late 1' }, { partition: 0, value: 'late 2' }] })
    await vi.waitFor(async () => {
      const mirror = await callRoute(mirrorRoute.GET, { path: '/api/v1/mirrors/from-kafka', params: { mirror: 'from-kafka' } })
      const splitBrain = (mirror.body as { splitBrain?: { oldSourceCluster: string; sourceReachable: boolean; recordsWritten: number } | null }).splitBrain
      expect(splitBrain).toMatchObject({ oldSourceCluster: 'kafka-a', sourceReachable: true, recordsWritten: 2 })
    }, settle)
  })
})
