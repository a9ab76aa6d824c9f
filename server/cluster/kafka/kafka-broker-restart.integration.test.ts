/**
 * A Kafka broker lost in the middle of mirroring (killed, as a crash) and started again, on each side.
 * Source: the mirror's
 * partition goes FAILED with retries, comes back to MIRRORING through the adapter's reconnect, and the
 * destination ends byte-identical to the broker's segment (nothing lost, nothing twice). The restart moves the
 * partition's leader epoch, which the adapter reports, OffsetForLeaderEpoch answers for the older epoch, and a
 * fetch claiming the older epoch past its end is told where it diverges.
 * Destination (embedded → Kafka b): while b is down nothing is mirrored and no transition can be saved (the
 * mirror's state lives in b's state topic), yet the API shows the partition FAILED with the reason and its
 * retries, marked `stateDurable: false`, and refuses a failover (INVALID_MIRROR_STATE, nothing changes); once b
 * is back the partition mirrors again, its state saved, and b holds the source's records at the source's
 * offsets, each once.
 * Uses test cluster `b` (`npx tsx scripts/kafka/clusters.ts start`), restarted by scripts/kafka/clusters.ts.
 */
import 'server-only'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { clusterApiOf } from '@/server/api/cluster-api'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import type { Runtime } from '@/server/runtime'
import { killBroker, startBroker } from '@/scripts/kafka/clusters'
import { RawFetcher } from '@/scripts/kafka/raw-fetch'
import { getTestClusters, type TestCluster } from '@/scripts/kafka/test-clusters'
import { KafkaConnection } from './connection'
import { KafkaSourceCluster } from './kafka-source'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-restart-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const TOPIC = `kr-events-${RUN}`
const INTO = `kr-into-${RUN}`
const tp = { topic: TOPIC, partition: 0 }
const settle = { timeout: 60_000, interval: 200 }

let dataDir: string
let runtime: Runtime
let b: TestCluster
let client: KafkajsContractClient
let connection: KafkaConnection
let source: KafkaSourceCluster

interface ShownPartition {
  state: string
  error: string | null
  retryAttempt: number
  destinationLogEndOffset: number
  stateDurable?: boolean
}

async function states(mirror = 'restart'): Promise<ShownPartition[]> {
  const { body } = await callRoute(mirrorPartitionsRoute.GET, { path: `/api/v1/mirrors/${mirror}/partitions`, params: { mirror } })
  return (body as { partitions: ShownPartition[] }).partitions
}

describe('a Kafka broker killed and restarted during mirroring', () => {
  beforeAll(async () => {
    b = getTestClusters().b
    client = await kafkajsContractClient(b.bootstrap, 'kafka-restart-test')
    await client.forget(['kr-'])
    connection = await KafkaConnection.open({ bootstrapServers: [b.bootstrap] }, 'kafka-restart-test-adapter')
    source = new KafkaSourceCluster('kafka-b', connection)
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-restart-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
  })
  afterAll(async () => {
    // Whatever happened, the broker runs again for the tests after this one.
    await startBroker('b').catch(() => undefined)
    await runtime?.close()
    await connection?.close()
    await client?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('fails with retries while the broker is down, resumes on its return, and loses or repeats nothing', async () => {
    await runtime.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [b.bootstrap] })
    await runtime.clusters.create({ name: 'dest', kind: 'embedded', brokers: 1 })
    await client.createTopic(TOPIC, { partitions: 1 })
    for (const value of ['a', 'b', 'c']) await client.produce(tp, [{ value }, { value: `${value}${value}` }])
    // Retries at most half a second apart: the partition resumes as soon as the broker answers again.
    await runtime.engine.createMirror({ name: 'restart', sourceCluster: 'kafka-b', destinationCluster: 'dest', topics: [TOPIC], config: { 'mirror.failed.retry.max.backoff.ms': 500, 'mirror.failed.retry.max.attempts': 1000 } })
    const destinationEnd = async () => (await runtime.clusters.embedded('dest').describePartition(tp)).logEndOffset
    await vi.waitFor(async () => {
      expect((await states()).map((p) => p.state)).toEqual(['MIRRORING'])
      expect(await destinationEnd()).toBe(6)
    }, settle)
    const epochBefore = (await source.describePartition(tp)).leaderEpoch

    await killBroker('b')
    await vi.waitFor(async () => {
      const [partition] = await states()
      expect(partition).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/source unreachable/) })
    }, settle)
    await expect(source.describePartition(tp)).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE' })

    // About 15 s on two shared cores: JVM start and log recovery after the kill.
    await startBroker('b')
    for (const value of ['d', 'e']) await client.produce(tp, [{ value }])
    await vi.waitFor(async () => {
      expect((await states()).map((p) => p.state)).toEqual(['MIRRORING'])
      expect(await destinationEnd()).toBe(8)
    }, settle)
    const brokerSegment = readFileSync(path.join(b.logDir, `${TOPIC}-0`, '00000000000000000000.log'))
    const ourSegment = readFileSync(path.join(dataDir, 'clusters', 'dest', 'broker-1', `${TOPIC}-0`, '00000000000000000000.log'))
    expect(ourSegment.equals(brokerSegment)).toBe(true)

    const after = await source.describePartition(tp)
    expect(after.leaderEpoch).toBeGreaterThan(epochBefore)
    expect(await source.endOffsetForEpoch(tp, epochBefore)).toEqual({ leaderEpoch: epochBefore, endOffset: 6 })
    expect(await source.endOffsetForEpoch(tp, after.leaderEpoch)).toEqual({ leaderEpoch: after.leaderEpoch, endOffset: 8 })
    // KIP-320 through Fetch v12: a fetcher that claims the old epoch went on past offset 6 is told where it diverges.
    const [consistent, diverged] = await source.fetch(
      [
        { ...tp, fetchOffset: 6, lastFetchedEpoch: epochBefore, maxBytes: 1 << 20 },
        { ...tp, fetchOffset: 7, lastFetchedEpoch: epochBefore, maxBytes: 1 << 20 },
      ],
      { maxBytes: 1 << 20 },
    )
    expect(consistent).toMatchObject({ ok: true, divergingEpoch: null, leaderEpoch: after.leaderEpoch })
    expect(diverged).toMatchObject({ ok: true, divergingEpoch: { leaderEpoch: epochBefore, endOffset: 6 } })
  })

  it('into Kafka: retries while the destination broker is down, resumes on its return, loses or repeats nothing', async () => {
    // A server of its own: the first test's mirror from b would spend every engine tick waiting for the dead broker.
    await runtime.close()
    rmSync(dataDir, { recursive: true, force: true })
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-restart-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await runtime.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [b.bootstrap] })
    await runtime.clusters.create({ name: 'dest', kind: 'embedded', brokers: 1 })
    const local = runtime.clusters.embedded('dest')
    await clusterApiOf(runtime).createTopic('dest', { name: INTO, partitions: 1 })
    const into = { topic: INTO, partition: 0 }
    const write = (values: string[]) => local.produce(INTO, { partition: 0, records: values.map((value) => ({ key: value, value })) })
    await write(['a', 'b'])
    await runtime.engine.createMirror({ name: 'into-b', sourceCluster: 'dest', destinationCluster: 'kafka-b', topics: [INTO], config: { 'mirror.failed.retry.max.backoff.ms': 500, 'mirror.failed.retry.max.attempts': 1000 } })
    await vi.waitFor(async () => expect((await states('into-b')).map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 2]]), settle)

    // While b is down its state topic is too, so no transition can be saved; the operator still sees the
    // FAILED, why, and its retries counting, marked not saved (a restart would resume the saved MIRRORING).
    await killBroker('b')
    await write(['c'])
    await write(['d', 'e'])
    await vi.waitFor(async () => {
      const [partition] = await states('into-b')
      expect(partition).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/destination unreachable|state write/), stateDurable: false, destinationLogEndOffset: 2 })
      expect(partition!.retryAttempt).toBeGreaterThan(1)
    }, settle)
    // A stop could not be saved either: refused whole, with a code, and nothing changes.
    const refused = await callRoute(failoverRoute.POST, { method: 'POST', path: '/api/v1/mirrors/into-b/failover', params: { mirror: 'into-b' }, body: { confirm: 'into-b' } })
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'INVALID_MIRROR_STATE', details: { reason: 'stateNotDurable' } } } })
    expect(runtime.engine.listOperations()).toEqual([])
    expect(await states('into-b')).toMatchObject([{ state: 'FAILED', stateDurable: false }])

    await startBroker('b')
    await write(['f'])
    await vi.waitFor(async () => expect((await states('into-b')).map((p) => [p.state, p.destinationLogEndOffset, p.stateDurable])).toEqual([['MIRRORING', 6, true]]), settle)
    const raw = await RawFetcher.connect({ brokers: [b.bootstrap], clientId: `kr-raw-${RUN}` })
    try {
      const page = await raw.fetch({ ...into, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })
      expect(page.batches.flatMap((batch) => batch.records.map((r) => [Number(r.offset), String(r.value)]))).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((value, offset) => [offset, value]))
    } finally {
      await raw.disconnect()
    }
  })
})
