/**
 * A drill of a mirror into a real Kafka cluster (a → b on the test brokers; `npx tsx scripts/kafka/clusters.ts
 * start`, `npm test` starts them), through the API: the KIP's worked example with kafkajs transactional producers
 * on a, mirrored to b, where the emulation holds both transactions open with producers of its own. The drill
 * copies b's partition from the broker's log into an embedded sandbox (labelled as emulation), fails it over —
 * one ABORT for each of b's open transactions at 3 and 4, the reset at 5 — checks it, and leaves b's mirror
 * topic untouched: the same three records, the mirror still MIRRORING.
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as drillRoute from '@/app/api/v1/drills/[id]/route'
import * as drillsRoute from '@/app/api/v1/mirrors/[mirror]/drills/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import type { Drill } from '@/lib/api/drills'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-drill-fallback-${process.pid}`)

const settle = { timeout: 60_000, interval: 200 }
const RUN = Date.now().toString(36)
const TOPIC = `kdr-orders-${RUN}`
const MIRROR = 'kdr-a-to-b'

let dataDir: string
let runtime: Runtime
let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient

describe('a drill of a Kafka → Kafka mirror', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-drill-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-drill-b')
    await sourceClient.forget(['kdr-'])
    await destinationClient.forget(['kdr-', STATE_TOPIC])
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-drill-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    for (const [name, cluster] of [['kafka-a', brokers.a], ['kafka-b', brokers.b]] as const) {
      const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'kafka', bootstrapServers: [cluster.bootstrap] } })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
  })
  afterAll(async () => {
    await runtime?.close()
    await sourceClient?.close()
    await destinationClient?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('fails over a copy of the broker`s log, labelled as emulation, and leaves the mirror topic untouched', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: 1 })
    const tp = { topic: TOPIC, partition: 0 }
    const p4001 = await sourceClient.transactionalProducer(`kdr-4001-${RUN}`)
    const p4002 = await sourceClient.transactionalProducer(`kdr-4002-${RUN}`)
    await p4001.send(tp, [{ key: 'A', value: '1' }, { key: 'B', value: '2' }])
    await p4002.send(tp, [{ key: 'X', value: '9' }])
    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: MIRROR, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [TOPIC] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await vi.waitFor(() => expect(runtime.engine.partitions(MIRROR).map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 3]]), settle)
    const destinationBefore = await runtime.clusters.client('kafka-b').readRecords(TOPIC, 0, { fromOffset: 0, limit: 100 })

    const accepted = await callRoute(drillsRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${MIRROR}/drills`, params: { mirror: MIRROR }, body: {} })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = (accepted.body as { drill: string }).drill
    const drill = await vi.waitFor(async () => {
      const { body } = await callRoute(drillRoute.GET, { path: `/api/v1/drills/${id}`, params: { id } })
      expect((body as Drill).status).not.toBe('running')
      return body as Drill
    }, settle)
    expect(drill.error).toBeNull()
    expect(drill.checks.filter((check) => !check.ok)).toEqual([])
    expect(drill.status).toBe('succeeded')
    expect(drill.sandbox).toMatchObject({ copiedFrom: 'brokerLog', removed: true, emulation: [{ code: 'DRILL_COPY_FROM_BROKER_LOG' }] })
    // b's own producers hold the two transactions: the copy aborts each, by first offset, then resets.
    const [partition] = drill.partitions
    expect(partition).toMatchObject({ topic: TOPIC, partition: 0, mirroredOffset: 3 })
    expect(partition!.markers.map((m) => [m.offset, m.type])).toEqual([
      [3, 'ABORT'],
      [4, 'ABORT'],
      [5, 'MIRROR_PID_RESET'],
    ])
    expect(partition!.plannedAborts.map((a) => a.firstOffset)).toEqual([0, 2])
    expect(partition!.markers.slice(0, 2).map((m) => m.producerId)).toEqual(partition!.plannedAborts.map((a) => a.producerId))

    const destinationAfter = await runtime.clusters.client('kafka-b').readRecords(TOPIC, 0, { fromOffset: 0, limit: 100 })
    expect(destinationAfter.records).toEqual(destinationBefore.records)
    expect(runtime.engine.partitions(MIRROR)[0]?.state).toBe('MIRRORING')
    await p4001.abort()
    await p4002.abort()
  })
})
