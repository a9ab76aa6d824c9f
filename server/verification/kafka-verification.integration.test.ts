/**
 * Verification of a Kafka → Kafka mirror on the two test brokers (`npx tsx scripts/kafka/clusters.ts start`;
 * `npm test` starts them), through the API as Next calls its route handlers. The destination emulation
 * produces the source's records again, so the comparison is by content (type, key, value, headers, timestamp
 * per offset): a mirror that caught up verifies identical, and a record produced to the destination behind
 * the mirror's back (by a super user, whom the DENY WRITE ACL does not stop) is reported at its offset.
 * A Kafka → embedded mirror keeps the source's batches as fetched (read through the kafkajs adapter), so it is
 * compared byte for byte: identical, then one byte rotted on the embedded destination named at its offset.
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as produceRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/records/route'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import * as verifyRoute from '@/app/api/v1/mirrors/[mirror]/verify/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as verificationRoute from '@/app/api/v1/verifications/[id]/route'
import type { Verification } from '@/lib/api/verifications'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-verify-fallback-${process.pid}`)

const settle = { timeout: 60_000, interval: 200 }
const RUN = Date.now().toString(36)
const TOPIC = `kv-orders-${RUN}`
const MIRROR = 'kv-a-to-b'
const TO_EMBEDDED = 'kv-a-to-embedded'
const EMBEDDED_TOPIC = `kv-bytes-${RUN}`

let dataDir: string
let runtime: Runtime
let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient

async function verify(mirror = MIRROR): Promise<Verification> {
  const accepted = await callRoute(verifyRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/verify`, params: { mirror }, body: {} })
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
  const id = (accepted.body as { verification: string }).verification
  return vi.waitFor(async () => {
    const { body } = await callRoute(verificationRoute.GET, { path: `/api/v1/verifications/${id}`, params: { id } })
    expect((body as Verification).status).not.toBe('running')
    return body as Verification
  }, settle)
}

describe('verification of a Kafka → Kafka mirror', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-verify-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-verify-b')
    await sourceClient.forget(['kv-'])
    await destinationClient.forget(['kv-', STATE_TOPIC])
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-verify-'))
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

  it('passes a mirror that caught up, compared by content, then reports a record written behind the mirror`s back', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: 2 })
    for (const partition of [0, 1]) {
      const produced = await callRoute(produceRoute.POST, {
        method: 'POST',
        path: `/api/v1/clusters/kafka-a/topics/${TOPIC}/records`,
        params: { cluster: 'kafka-a', topic: TOPIC },
        body: { partition, records: Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `value ${partition}-${i}`, headers: { trace: `t${i}` } })) },
      })
      expect(produced.status, JSON.stringify(produced.body)).toBe(200)
    }
    const committed = await sourceClient.transactionalProducer(`kv-tx-${RUN}`)
    await committed.send({ topic: TOPIC, partition: 0 }, [{ key: 'tx', value: 'committed' }])
    await committed.commit()

    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: MIRROR, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [TOPIC] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const ends = (await runtime.clusters.ports('kafka-a').source.describeTopics([TOPIC]))[0]!.partitions.map((p) => p.highWatermark)
    await vi.waitFor(async () => {
      const { body } = await callRoute(mirrorPartitionsRoute.GET, { path: `/api/v1/mirrors/${MIRROR}/partitions`, params: { mirror: MIRROR } })
      expect((body as { partitions: Array<{ state: string; destinationHighWatermark: number }> }).partitions.map((p) => [p.state, p.destinationHighWatermark])).toEqual(ends.map((end) => ['MIRRORING', end]))
    }, settle)

    const identical = await verify()
    expect(identical).toMatchObject({ status: 'passed', mode: 'content', totals: { partitions: 2, identical: 2, mismatches: 0 } })
    expect(identical.partitions.map((p) => [p.partition, p.fromOffset, p.toOffset, p.summary])).toEqual(ends.map((end, partition) => [partition, 0, end, `identical up to offset ${end}`]))
    // Every data record and the COMMIT marker was judged.
    expect(identical.partitions[0]!.batches).toBe(ends[0])

    // A super user's write lands on the read-only topic; nothing on the source stands for it.
    await destinationClient.produce({ topic: TOPIC, partition: 1 }, [{ key: 'intruder', value: 'written around the mirror' }])
    const found = await verify()
    expect(found.status).toBe('mismatched')
    const partition1 = found.partitions.find((p) => p.partition === 1)!
    expect(partition1.mismatches).toEqual([
      { offset: ends[1]!, kind: 'extra', detail: `destination record at offset ${ends[1]} stands for no source record: it was written to the destination behind the mirror's back (key "intruder")` },
    ])
    expect(partition1.summary).toBe(`identical up to offset ${ends[1]}, then differs`)
    expect(found.partitions.find((p) => p.partition === 0)!.status).toBe('identical')
  })

  it('compares a Kafka source read through kafkajs with an embedded destination byte for byte, and names a rotten byte', async () => {
    const cluster = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name: 'kv-embedded', kind: 'embedded', brokers: 1 } })
    expect(cluster.status, JSON.stringify(cluster.body)).toBe(201)
    await sourceClient.createTopic(EMBEDDED_TOPIC, { partitions: 2 })
    for (const partition of [0, 1]) {
      // Several requests a partition: several batches, so the comparison lines them up one by one.
      for (let request = 0; request < 4; request++) {
        await sourceClient.produce({ topic: EMBEDDED_TOPIC, partition }, Array.from({ length: 5 }, (_, i) => ({ key: `k${request}-${i}`, value: `value ${partition}-${request}-${i}` })))
      }
    }
    const committed = await sourceClient.transactionalProducer(`kv-tx-bytes-${RUN}`)
    await committed.send({ topic: EMBEDDED_TOPIC, partition: 1 }, [{ key: 'tx', value: 'committed' }])
    await committed.commit()
    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: TO_EMBEDDED, sourceCluster: 'kafka-a', destinationCluster: 'kv-embedded', topics: [EMBEDDED_TOPIC] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const ends = (await runtime.clusters.ports('kafka-a').source.describeTopics([EMBEDDED_TOPIC]))[0]!.partitions.map((p) => p.highWatermark)
    await vi.waitFor(async () => {
      const { body } = await callRoute(mirrorPartitionsRoute.GET, { path: `/api/v1/mirrors/${TO_EMBEDDED}/partitions`, params: { mirror: TO_EMBEDDED } })
      expect((body as { partitions: Array<{ state: string; destinationHighWatermark: number }> }).partitions.map((p) => [p.state, p.destinationHighWatermark])).toEqual(ends.map((end) => ['MIRRORING', end]))
    }, settle)

    const identical = await verify(TO_EMBEDDED)
    expect(identical).toMatchObject({ status: 'passed', mode: 'bytes', totals: { partitions: 2, identical: 2, mismatches: 0 } })
    expect(identical.partitions.map((p) => [p.partition, p.fromOffset, p.toOffset, p.summary])).toEqual(ends.map((end, partition) => [partition, 0, end, `identical up to offset ${end}`]))
    // The four produce requests' batches on partition 0; on partition 1 the transaction's batch and its COMMIT marker too.
    expect(identical.partitions.map((p) => p.batches)).toEqual([4, 6])

    const rot = await runtime.clusters.embedded('kv-embedded').rotOneByte({ topic: EMBEDDED_TOPIC, partition: 1 })
    const found = await verify(TO_EMBEDDED)
    expect(found.status).toBe('mismatched')
    const rotten = found.partitions.find((p) => p.partition === 1)!
    expect(rotten.mismatches.map(({ offset, kind }) => ({ offset, kind }))).toEqual([
      { offset: rot.batchBaseOffset, kind: 'crc' },
      { offset: rot.offset, kind: 'bytes' },
    ])
    expect(rotten.identicalUpTo).toBe(rot.batchBaseOffset)
    expect(found.partitions.find((p) => p.partition === 0)!.status).toBe('identical')
  })
})
