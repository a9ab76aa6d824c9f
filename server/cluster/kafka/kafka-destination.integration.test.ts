/**
 * Mirrors INTO a real Kafka cluster (the destination emulation, DESIGN.md §5) through the HTTP API, on the two
 * test brokers (`npx tsx scripts/kafka/clusters.ts start`; `npm test` starts them): the KIP's worked example
 * Kafka a → Kafka b with kafkajs transactional producers on a — after failover b's log, read raw and with
 * Kafka's DumpLogSegments, holds the three records at offsets 0–2 and ABORT markers at 3 and 4 for the two
 * open transactions, and a read_committed kafkajs consumer on b sees nothing of them — and embedded → Kafka
 * with keys, values, headers and timestamps kept at identical offsets, then a write by a super user detected.
 * Cluster b has an authorizer: a SASL user is refused by the mirror topic's DENY WRITE ACL while it mirrors, and
 * writes after the failover. Then the failback b → a by rebuild: the plan says so and shows the divergent tail,
 * the wizard's export reads it from a, the topic on a is deleted, created again and mirrored back, and both
 * logs agree offset by offset. The route handlers are called as Next calls them.
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel, type Consumer } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as recordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/[partition]/records/route'
import * as produceRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/records/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import * as reportRoute from '@/app/api/v1/operations/[id]/report/route'
import type { RecordEntry } from '@/lib/api/records'
import { exportLine, exportRanges } from '@/lib/failover/failback'
import { clusterApiOf } from '@/server/api/cluster-api'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import type { Runtime } from '@/server/runtime'
import { dumpLogSegment } from '@/scripts/kafka/dump-log-segments'
import { RawFetcher } from '@/scripts/kafka/raw-fetch'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { STATE_TOPIC } from './kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-dest-fallback-${process.pid}`)

const settle = { timeout: 30_000, interval: 100 }
// Names of their own per run: the brokers outlive a run, and a transaction an interrupted run left open is
// aborted by its coordinator later, into whatever topic then has the old name.
const RUN = Date.now().toString(36)
const ORDERS = `kd-orders-${RUN}`
const EVENTS = `kd-events-${RUN}`

let dataDir: string
let runtime: Runtime
let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
const consumers: Consumer[] = []

interface PartitionView {
  state: string
  destinationLogEndOffset: number
  emulation?: { notes: Array<{ code: string; message: string }> }
}

async function partitionsOf(mirror: string): Promise<PartitionView[]> {
  const { status, body } = await callRoute(mirrorPartitionsRoute.GET, { path: `/api/v1/mirrors/${mirror}/partitions`, params: { mirror } })
  expect(status, JSON.stringify(body)).toBe(200)
  return (body as { partitions: PartitionView[] }).partitions
}

async function recordsOf(cluster: string, topic: string, range: { fromOffset: number; limit: number } = { fromOffset: 0, limit: 100 }): Promise<RecordEntry[]> {
  const { status, body } = await callRoute(recordsRoute.GET, {
    path: `/api/v1/clusters/${cluster}/topics/${topic}/partitions/0/records?fromOffset=${range.fromOffset}&limit=${range.limit}&isolation=read_uncommitted`,
    params: { cluster, topic, partition: '0' },
  })
  expect(status, JSON.stringify(body)).toBe(200)
  return (body as { records: RecordEntry[] }).records
}

/** The broker's own log, read raw: per batch its offsets and its records (or its marker), producer ids left out (each broker has its own). */
async function brokerLog(bootstrap: string, topic: string): Promise<Array<[number, number, string]>> {
  const raw = await RawFetcher.connect({ brokers: [bootstrap], clientId: `kd-raw-${RUN}` })
  try {
    const page = await raw.fetch({ topic, partition: 0, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })
    return page.batches.map((b) => [Number(b.baseOffset), Number(b.lastOffset), b.isControl ? b.records[0]!.control!.typeName : b.records.map((r) => `${r.key}=${r.value}`).join(',')])
  } finally {
    await raw.disconnect()
  }
}

/** A SASL user of cluster b (not a super user: the DENY WRITE ACL applies to it). */
async function produceAsSaslUser(topic: string, value: string): Promise<void> {
  const sasl = brokers.b.sasl!
  const producer = new Kafka({ clientId: `kd-sasl-${RUN}`, brokers: [sasl.bootstrap], sasl: { mechanism: 'scram-sha-256', username: sasl.username, password: sasl.password }, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer({ allowAutoTopicCreation: false })
  await producer.connect()
  try {
    await producer.send({ topic, acks: -1, messages: [{ partition: 0, key: 'sasl', value }] })
  } finally {
    await producer.disconnect()
  }
}

async function failOver(mirror: string): Promise<string> {
  const accepted = await callRoute(failoverRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/failover`, params: { mirror }, body: { confirm: mirror } })
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
  const operation = (accepted.body as { operation: string }).operation
  await vi.waitFor(async () => {
    const { body } = await callRoute(operationRoute.GET, { path: `/api/v1/operations/${operation}`, params: { id: operation } })
    expect((body as { status: string }).status).toBe('succeeded')
  }, settle)
  return operation
}

describe('mirrors into a Kafka cluster through the API', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-dest-test-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-dest-test-b')
    await sourceClient.forget(['kd-'])
    await destinationClient.forget(['kd-', STATE_TOPIC])
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-dest-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    for (const [name, cluster] of [['kafka-a', brokers.a], ['kafka-b', brokers.b]] as const) {
      const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'kafka', bootstrapServers: [cluster.bootstrap] } })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
  })
  afterAll(async () => {
    await Promise.allSettled(consumers.map((c) => c.disconnect()))
    await runtime?.close()
    await sourceClient?.close()
    await destinationClient?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("comes out as the KIP's worked example on a real destination broker: records at 0–2, ABORT markers at 3 and 4", async () => {
    await sourceClient.createTopic(ORDERS, { partitions: 1 })
    const tp = { topic: ORDERS, partition: 0 }
    const p4001 = await sourceClient.transactionalProducer(`kd-4001-${RUN}`)
    const p4002 = await sourceClient.transactionalProducer(`kd-4002-${RUN}`)
    await p4001.send(tp, [{ key: 'A', value: '1' }, { key: 'B', value: '2' }])
    await p4002.send(tp, [{ key: 'X', value: '9' }])

    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'into-b', sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [ORDERS] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await vi.waitFor(async () => {
      expect((await partitionsOf('into-b')).map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 3]])
    }, settle)
    const mirroring = (await partitionsOf('into-b'))[0]!
    expect(mirroring.emulation?.notes.map((n) => n.code)).toEqual(expect.arrayContaining(['OFFSETS_IDENTICAL', 'LEADER_EPOCH_RECORDED', 'DESTINATION_TRANSACTIONS', 'READ_ONLY_ENFORCED']))
    // Cluster b has an authorizer: the mirror topic's DENY WRITE ACL refuses a client that is not a super user.
    await expect(produceAsSaslUser(ORDERS, 'refused')).rejects.toMatchObject({ cause: { type: 'TOPIC_AUTHORIZATION_FAILED' } })

    // Replication reached offset 2 with both transactions open: the failover aborts them in order of first offset.
    const operation = await failOver('into-b')
    const stopped = (await partitionsOf('into-b'))[0]!
    expect(stopped.state).toBe('STOPPED')
    expect(stopped.emulation?.notes.map((n) => n.code)).toContain('MIRROR_PID_RESET_RECORDED')

    const raw = await RawFetcher.connect({ brokers: [brokers.b.bootstrap], clientId: `kd-raw-${RUN}` })
    try {
      const page = await raw.fetch({ ...tp, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })
      expect(page.batches.map((b) => [Number(b.baseOffset), Number(b.lastOffset), b.isControl ? b.records[0]!.control!.typeName : b.records.map((r) => `${r.key}=${r.value}`).join(',')])).toEqual([
        [0, 1, 'A=1,B=2'],
        [2, 2, 'X=9'],
        [3, 3, 'ABORT'],
        [4, 4, 'ABORT'],
      ])
      // Each marker ends the destination transaction that reproduced one source producer, with the broker's own ids.
      expect(page.batches[2]!.producerId).toBe(page.batches[0]!.producerId)
      expect(page.batches[3]!.producerId).toBe(page.batches[1]!.producerId)
      expect(page.batches[0]!.producerId).not.toBe(page.batches[1]!.producerId)
    } finally {
      await raw.disconnect()
    }
    const dumped = await dumpLogSegment(path.join(brokers.b.logDir, `${ORDERS}-0`, '00000000000000000000.log'), { lib: brokers.lib })
    expect(dumped.batches.map((b) => [b.baseOffset, b.lastOffset, b.isTransactional, b.isControl, b.records.map((r) => r.controlType ?? 'DATA').join(',')])).toEqual([
      [0, 1, true, false, 'DATA,DATA'],
      [2, 2, true, false, 'DATA'],
      [3, 3, true, true, 'ABORT'],
      [4, 4, true, true, 'ABORT'],
    ])

    // The topic is writable after STOPPED: a record after the markers is the only thing read_committed sees.
    const written = await callRoute(produceRoute.POST, { method: 'POST', path: `/api/v1/clusters/kafka-b/topics/${ORDERS}/records`, params: { cluster: 'kafka-b', topic: ORDERS }, body: { partition: 0, records: [{ key: 'after', value: 'failover' }] } })
    expect(written.status, JSON.stringify(written.body)).toBe(200)
    expect(written.body).toEqual({ records: [{ partition: 0, offset: 5 }] })
    const consumer = new Kafka({ clientId: `kd-committed-${RUN}`, brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: `kd-committed-${RUN}`, readUncommitted: false, maxWaitTimeInMs: 100 })
    consumers.push(consumer)
    const seen: string[] = []
    await consumer.connect()
    await consumer.subscribe({ topic: ORDERS, fromBeginning: true })
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(`${message.offset}:${message.key}=${message.value}`) })
    await vi.waitFor(() => expect(seen).toEqual(['5:after=failover']), settle)
    await consumer.disconnect()
    // The failover lifted the ACL with the read-only flag: the SASL user writes now.
    await produceAsSaslUser(ORDERS, 'written after the failover')
    // The report reads the markers back from the Kafka destination's log (through the cluster's client, not the embedded cluster only).
    const report = await callRoute(reportRoute.GET, { path: `/api/v1/operations/${operation}/report`, params: { id: operation } })
    expect(report.status, JSON.stringify(report.body)).toBe(200)
    const [reported] = (report.body as { partitions: Array<{ aborted: Array<{ offset: number }>; markersUnread?: string }> }).partitions
    expect(reported).not.toHaveProperty('markersUnread')
    expect(reported!.aborted.map((marker) => marker.offset)).toEqual([3, 4])

    // The old source's tail diverges from b: the KIP's COMMIT at 3 and ABORT at 4 happen on a after the failover.
    await p4001.commit()
    await p4002.abort()
  })

  it('fails back b → a by rebuild: the plan says rebuild and shows the divergent tail, which exports from a; afterwards both logs agree offset by offset', async () => {
    expect((await partitionsOf('into-b'))[0]?.state, 'needs the worked example above').toBe('STOPPED')
    const reverse = { name: 'back-to-a', sourceCluster: 'kafka-b', destinationCluster: 'kafka-a', topics: [ORDERS] }
    const dryRun = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { ...reverse, dryRun: true } })
    expect(dryRun.status, JSON.stringify(dryRun.body)).toBe(200)
    const [entry] = (dryRun.body as { plan: { partitions: Array<{ topic: string; partition: number; truncateTo: number | null; recordsToRemove: number; lastMirrorPosition: { epoch: number; offset: number } | null; rebuild?: boolean; emulation?: string; fetchOffset?: number }> } }).plan.partitions
    expect(entry).toMatchObject({ topic: ORDERS, partition: 0, truncateTo: 3, recordsToRemove: 2, reason: 'failback', rebuild: true, fetchOffset: 0, emulation: expect.stringContaining('deleted and created again') })

    // The failback wizard's export (components/failback/export-removed-records.tsx): the removed range, read from a.
    const [range] = exportRanges([entry!])
    expect(range).toEqual({ topic: ORDERS, partition: 0, fromOffset: 3, toOffset: 5 })
    const exported = (await recordsOf('kafka-a', ORDERS, { fromOffset: range!.fromOffset, limit: range!.toOffset - range!.fromOffset }))
      .filter((r) => r.offset < range!.toOffset)
      .map((r) => JSON.parse(exportLine(ORDERS, 0, r)) as { offset: number; type: string })
    expect(exported.map((line) => [line.offset, line.type])).toEqual([
      [3, 'COMMIT'],
      [4, 'ABORT'],
    ])

    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: reverse })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const expected = await brokerLog(brokers.b.bootstrap, ORDERS)
    const end = expected.at(-1)![1] + 1
    await vi.waitFor(async () => {
      expect((await partitionsOf('back-to-a')).map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', end]])
    }, settle)
    // a holds b's log at b's offsets: the worked example's records, b's two ABORTs, the writes after the failover.
    expect(await brokerLog(brokers.a.bootstrap, ORDERS)).toEqual(expected)
    expect(expected.map(([base, , what]) => [base, what])).toEqual([
      [0, 'A=1,B=2'],
      [2, 'X=9'],
      [3, 'ABORT'],
      [4, 'ABORT'],
      [5, 'after=failover'],
      [6, 'sasl=written after the failover'],
    ])
    const notes = (await partitionsOf('back-to-a'))[0]!.emulation?.notes ?? []
    expect(notes.find((n) => n.code === 'TRUNCATION_BY_REBUILD')?.message).toContain('2 record(s) from offset 3 were removed')
    expect(notes.map((n) => n.code)).toContain('OFFSETS_IDENTICAL')
  })

  it('mirrors embedded → Kafka at identical offsets, keeping keys, values, headers and timestamps', async () => {
    const local = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name: 'local', kind: 'embedded', brokers: 1 } })
    expect(local.status, JSON.stringify(local.body)).toBe(201)
    await clusterApiOf(runtime).createTopic('local', { name: EVENTS, partitions: 1 })
    const produced = await callRoute(produceRoute.POST, {
      method: 'POST',
      path: `/api/v1/clusters/local/topics/${EVENTS}/records`,
      params: { cluster: 'local', topic: EVENTS },
      body: { partition: 0, records: [{ key: 'k1', value: 'v1', headers: { trace: 'abc' } }, { key: null, value: 'v2' }, { key: 'k3', value: null }] },
    })
    expect(produced.status, JSON.stringify(produced.body)).toBe(200)
    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'local-into-b', sourceCluster: 'local', destinationCluster: 'kafka-b', topics: [EVENTS] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await vi.waitFor(async () => {
      expect((await partitionsOf('local-into-b')).map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 3]])
    }, settle)
    const view = (r: RecordEntry) => [r.offset, r.type, r.key, r.value, r.timestamp, r.headers]
    expect((await recordsOf('kafka-b', EVENTS)).map(view)).toEqual((await recordsOf('local', EVENTS)).map(view))
    expect((await partitionsOf('local-into-b'))[0]!.emulation?.notes.map((n) => n.code)).toContain('OFFSETS_IDENTICAL')

    // This server refuses writes to the mirror topic; a super user (the PLAINTEXT listener's) is not stopped by
    // the DENY WRITE ACL, so its write is detected at the next append and the partition goes FAILED with that reason.
    const ours = await callRoute(produceRoute.POST, { method: 'POST', path: `/api/v1/clusters/kafka-b/topics/${EVENTS}/records`, params: { cluster: 'kafka-b', topic: EVENTS }, body: { partition: 0, records: [{ value: 'x' }] } })
    expect(ours.body).toMatchObject({ error: { code: 'TOPIC_READ_ONLY' } })
    await destinationClient.produce({ topic: EVENTS, partition: 0 }, [{ value: 'written around the mirror' }])
    await callRoute(produceRoute.POST, { method: 'POST', path: `/api/v1/clusters/local/topics/${EVENTS}/records`, params: { cluster: 'local', topic: EVENTS }, body: { partition: 0, records: [{ value: 'v4' }] } })
    await vi.waitFor(async () => {
      const [partition] = (await partitionsOf('local-into-b')) as Array<PartitionView & { error: string | null }>
      expect(partition).toMatchObject({ state: 'FAILED', error: expect.stringContaining('a super user bypasses it') })
      expect(partition!.emulation?.notes.map((n) => n.code)).toContain('READ_ONLY_VIOLATED')
    }, settle)
  })
})
