/**
 * A planned switchover from a real Kafka source without an authorizer (issue #34): test cluster `a`
 * (`npx tsx scripts/kafka/clusters.ts start`) has none, so writes cannot be refused there. The plan says so in its
 * `write-fence` gate, which the operator must force after stopping the producers; the drain then waits until the
 * source's log ends stand still (STANDSTILL_MS). A producer still writing keeps the drain from ending: the
 * switchover rolls back at its drain timeout, the mirror keeps mirroring and nothing is lost. Once the producer
 * has stopped, the forced switchover completes with every record on the destination and 0 lost, measured.
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel, type Producer } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import { Operation } from '@/lib/api/operations'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { STATE_TOPIC } from './kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-standstill-fallback-${process.pid}`)

const settle = { timeout: 90_000, interval: 200 }
const RUN = Date.now().toString(36)
const TOPIC = `ks-orders-${RUN}`
const MIRROR = 'ks-a-to-b'

let dataDir: string
let runtime: Runtime
let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let producer: Producer

async function failover(body: Record<string, unknown>) {
  return callRoute(failoverRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${MIRROR}/failover`, params: { mirror: MIRROR }, body: { type: 'planned', confirm: MIRROR, ...body } })
}

async function finished(id: string): Promise<Operation> {
  return vi.waitFor(async () => {
    const operation = Operation.parse((await callRoute(operationRoute.GET, { path: `/api/v1/operations/${id}`, params: { id } })).body)
    expect(operation.status).not.toBe('running')
    return operation
  }, settle)
}

/** Each partition's log end offset on the source, read by a plain admin client. */
async function logEnds(bootstrap: string): Promise<number[]> {
  const admin = new Kafka({ clientId: 'ks-ends', brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  try {
    const offsets = await admin.fetchTopicOffsets(TOPIC)
    return offsets.sort((x, y) => x.partition - y.partition).map((p) => Number(p.high))
  } finally {
    await admin.disconnect()
  }
}

describe('a planned switchover from a Kafka source without an authorizer', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-standstill-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-standstill-b')
    await sourceClient.forget(['ks-', STATE_TOPIC])
    await destinationClient.forget(['ks-', STATE_TOPIC])
    await sourceClient.createTopic(TOPIC, { partitions: 2 })
    producer = new Kafka({ clientId: 'ks-producer', brokers: [brokers.a.bootstrap], logLevel: logLevel.NOTHING }).producer()
    await producer.connect()
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 20 }, (_, index) => ({ value: `before-${index}`, partition: index % 2 })) })
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-standstill-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    for (const [name, cluster] of [['kafka-a', brokers.a], ['kafka-b', brokers.b]] as const) {
      const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'kafka', bootstrapServers: [cluster.bootstrap] } })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: MIRROR, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [TOPIC] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await vi.waitFor(() => expect(runtime.engine.partitions(MIRROR).map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING']), settle)
  })
  afterAll(async () => {
    await producer?.disconnect()
    await runtime?.close()
    await sourceClient?.close()
    await destinationClient?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('the plan says writes cannot be refused there; unforced, the switchover is refused and nothing changes', async () => {
    const plan = await failover({ dryRun: true })
    expect(plan.status, JSON.stringify(plan.body)).toBe(200)
    const gate = (plan.body as { plan: { gates: Array<{ name: string; ok: boolean; detail: string }> } }).plan.gates.find((candidate) => candidate.name === 'write-fence')
    expect(gate).toMatchObject({ ok: false })
    expect(gate!.detail).toMatch(/has no authorizer: writes cannot be refused there/)

    const refused = await failover({})
    expect(refused.status, JSON.stringify(refused.body)).toBe(409)
    expect(JSON.stringify(refused.body)).toMatch(/write-fence/)
    expect(runtime.engine.partitions(MIRROR).map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING'])
  })

  it('a producer still writing keeps the drain from standing still: the switchover rolls back at its timeout, nothing lost', async () => {
    let writing = true
    let written = 0
    const writer = (async () => {
      while (writing) {
        await producer.send({ topic: TOPIC, messages: [{ value: `during-${written}`, partition: written % 2 }] })
        written++
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    try {
      const accepted = await failover({ force: ['write-fence'], drainTimeoutMs: 8_000 })
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
      const operation = await finished((accepted.body as { operation: string }).operation)
      expect(operation.status).toBe('rolledBack')
      expect(operation.switchover?.reason).toMatch(/drain/i)
    } finally {
      writing = false
      await writer
    }
    expect(written).toBeGreaterThan(0)
    await vi.waitFor(() => expect(runtime.engine.partitions(MIRROR).map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING']), settle)
    // Still mirroring: everything the producer wrote reaches the destination.
    const sourceEnds = await logEnds(brokers.a.bootstrap)
    await vi.waitFor(() => expect(runtime.engine.partitions(MIRROR).map((p) => [p.sourceHighWatermark, p.offsetLag])).toEqual(sourceEnds.map((end) => [end, 0])), settle)
  })

  it('with the producers stopped, the forced switchover waits for the log ends to stand still and completes with 0 lost', async () => {
    const accepted = await failover({ force: ['write-fence'] })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const operation = await finished((accepted.body as { operation: string }).operation)
    expect(operation.status, JSON.stringify(operation.switchover)).toBe('succeeded')
    expect(operation.switchover).toMatchObject({ fenceMethod: 'none', recordsLost: { total: 0 } })
    expect(runtime.engine.partitions(MIRROR).map((p) => p.state)).toEqual(['STOPPED', 'STOPPED'])
    // Lost is measured at STOPPED from both sides; every record the source holds was mirrored.
    const sourceEnds = await logEnds(brokers.a.bootstrap)
    expect(sourceEnds.reduce((sum, end) => sum + end, 0)).toBeGreaterThan(20)
    expect(operation.switchover!.recordsLost!.partitions.map((p) => p.recordsLost)).toEqual([0, 0])
  })
})
