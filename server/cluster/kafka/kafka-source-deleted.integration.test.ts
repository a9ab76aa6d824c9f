/**
 * A mirrored topic deleted at a Kafka source (#35, issue #36), through the HTTP API: the adapter answers the next
 * fetch UNKNOWN_TOPIC_OR_PARTITION (the broker's UNKNOWN_TOPIC_ID, then the refreshed metadata has no such
 * topic), and the engine, as Kafka's fetcher, delays the partition instead of failing it with retries; the
 * metadata missing the topic twice, a fetch backoff apart, makes it FAILED non-retryable at once. The other
 * topic of the mirror goes on. Uses test cluster `a` (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as topicRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/route'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import * as historyRoute from '@/app/api/v1/mirrors/[mirror]/partitions/[topic]/[partition]/history/route'
import type { Runtime } from '@/server/runtime'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-deleted-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const GONE = `kd-gone-${RUN}`
const KEPT = `kd-kept-${RUN}`
const settle = { timeout: 60_000, interval: 200 }

let dataDir: string
let runtime: Runtime
let client: KafkajsContractClient

interface ShownPartition {
  topic: string
  state: string
  retryAttempt: number
  error: string | null
  failureCode?: string | null
  destinationLogEndOffset: number
}

async function partitions(): Promise<ShownPartition[]> {
  const { body } = await callRoute(mirrorPartitionsRoute.GET, { path: '/api/v1/mirrors/deleted/partitions', params: { mirror: 'deleted' } })
  return (body as { partitions: ShownPartition[] }).partitions
}

async function history(topic: string) {
  const params = { mirror: 'deleted', topic, partition: '0' }
  const { body } = await callRoute(historyRoute.GET, { path: `/api/v1/mirrors/deleted/partitions/${topic}/0/history`, params })
  return (body as { transitions: Array<{ from: string; to: string; retryAttempt?: number; error?: string }> }).transitions
}

describe('a source topic deleted on a Kafka cluster', () => {
  beforeAll(async () => {
    const { a } = getTestClusters()
    client = await kafkajsContractClient(a.bootstrap, 'kafka-deleted-test')
    await client.forget(['kd-'])
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-deleted-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await runtime.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [a.bootstrap] })
    await runtime.clusters.create({ name: 'dest', kind: 'embedded', brokers: 1 })
  })
  afterAll(async () => {
    await runtime?.close()
    await client?.forget(['kd-']).catch(() => undefined)
    await client?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('holds the partition until the metadata says deleted, then FAILED non-retryable: never a retryable FAILED', async () => {
    for (const topic of [GONE, KEPT]) {
      await client.createTopic(topic, { partitions: 1 })
      await client.produce({ topic, partition: 0 }, [{ value: 'a' }, { value: 'b' }])
    }
    // The default metadata refresh (60 s): the deletion must not wait for the next periodic sync.
    await runtime.engine.createMirror({ name: 'deleted', sourceCluster: 'kafka-a', destinationCluster: 'dest', topics: [GONE, KEPT] })
    await vi.waitFor(async () => expect((await partitions()).map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 2], ['MIRRORING', 2]]), settle)

    const deleted = await callRoute(topicRoute.DELETE, { method: 'DELETE', path: `/api/v1/clusters/kafka-a/topics/${GONE}`, params: { cluster: 'kafka-a', topic: GONE } })
    expect(deleted.status).toBe(204)
    await vi.waitFor(async () => expect((await partitions()).find((p) => p.topic === GONE)).toMatchObject({ state: 'FAILED' }), settle)
    const shown = await partitions()
    expect(shown.find((p) => p.topic === GONE)).toMatchObject({ state: 'FAILED', retryAttempt: -1, error: 'The source topic is deleted.', failureCode: 'SOURCE_TOPIC_DELETED' })
    expect(shown.find((p) => p.topic === KEPT)).toMatchObject({ state: 'MIRRORING', error: null })
    expect((await history(GONE)).map((t) => [t.from, t.to, t.retryAttempt ?? 0])).toEqual([
      ['UNKNOWN', 'PREPARING', 0],
      ['PREPARING', 'MIRRORING', 0],
      ['MIRRORING', 'FAILED', -1],
    ])
    // The other topic still mirrors what the source writes.
    await client.produce({ topic: KEPT, partition: 0 }, [{ value: 'c' }])
    await vi.waitFor(async () => expect((await partitions()).find((p) => p.topic === KEPT)).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3 }), settle)
  })
})
