/**
 * A mirror topic deleted behind Mirrorboard's back while its emulation record still holds an open transaction
 * (a server killed mid-transaction, then the topic removed with kafka-topics.sh): on the next start the host's
 * orphan recovery finds no partition to fence. That must not stop the cluster from being described — before the
 * fix, every GET of the cluster's topics answered 404 "<topic>-0 does not exist" (found by the full run, where
 * the crash test's leftovers met the SASL test's listing).
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as topicsRoute from '@/app/api/v1/clusters/[cluster]/topics/route'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestCluster } from '@/scripts/kafka/test-clusters'
import { emptyPartitionEmulation, partitionKey, topicKey, type TopicEmulation } from './kafka-mirror-state'
import { STATE_TOPIC } from './kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-orphan-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const GONE = `ko-gone-${RUN}`
const KEPT = `ko-kept-${RUN}`

let dataDir: string
let runtime: Runtime
let b: TestCluster
let client: KafkajsContractClient

describe('an emulation record of a mirror topic deleted out of band', () => {
  beforeAll(async () => {
    b = getTestClusters().b
    client = await kafkajsContractClient(b.bootstrap, 'kafka-orphan-test')
    await client.forget(['ko-'])
    await client.createTopic(STATE_TOPIC, { partitions: 1, configs: { 'cleanup.policy': 'compact' } })
    await client.createTopic(KEPT, { partitions: 1 })
    // What a server killed mid-transaction leaves for a read-only mirror topic, whose topic is then deleted.
    const topic: TopicEmulation = { topic: GONE, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', brokerTopicId: 'BBBBBBBBBBBBBBBBBBBBBB', mirror: 'ko-mirror', readOnly: true }
    const partition = { ...emptyPartitionEmulation(GONE, 0, 4, 10), logStartOffset: 0, openTransactions: [{ producerId: 63, producerEpoch: 0, firstOffset: 2 }] }
    await client.produce({ topic: STATE_TOPIC, partition: 0 }, [
      { key: topicKey(GONE), value: JSON.stringify(topic) },
      { key: partitionKey(GONE, 0), value: JSON.stringify(partition) },
    ])
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-orphan-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
  })
  afterAll(async () => {
    await runtime?.close()
    // The state topic goes too: the record must not meet later tests' hosts.
    await client?.forget(['ko-', STATE_TOPIC])
    await client?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('leaves the cluster describable: its topics are listed, the deleted one is not', async () => {
    const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name: 'ko-b', kind: 'kafka', bootstrapServers: [b.bootstrap] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const topics = await callRoute(topicsRoute.GET, { path: '/api/v1/clusters/ko-b/topics', params: { cluster: 'ko-b' } })
    expect(topics.status, JSON.stringify(topics.body)).toBe(200)
    const names = (topics.body as { topics: Array<{ name: string }> }).topics.map((t) => t.name)
    expect(names).toContain(KEPT)
    expect(names).not.toContain(GONE)
  })
})
