/**
 * Issue #40: clusters removed or changed on one instance reach the others through the control cluster's
 * `<group>-clusters` topic (server/ha/shared-clusters.ts). Two instances' registries (real, each in its own data
 * directory) share cluster b through a compacted topic on cluster a: b's connection changed on the first (removed and
 * added again over b's SASL listener) is replaced on the second with the SASL credentials; b removed on the first
 * leaves a tombstone, and the second removes it too; a third instance starting afterwards does not bring it back.
 * Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel, type Producer } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClusterRegistry } from '@/server/cluster/registry'
import { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import { logger } from '@/server/observability/logger'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { ensureControlTopics } from './control-topics'
import { deriveKey } from './secret-box'
import { SharedClusters } from './shared-clusters'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-shared-clusters-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const TOPIC = `sc-clusters-${RUN}`
const KEY = deriveKey('shared-clusters-test-secret-key')

let brokers: TestClusters
let kafka: Kafka
let producer: Producer
let reader: KafkaCluster
const opened: Array<{ registry: ClusterRegistry; shared: SharedClusters; dir: string }> = []

async function instance(): Promise<{ registry: ClusterRegistry; shared: SharedClusters }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-sc-'))
  const log = logger.child({ module: 'shared-clusters-test' })
  const registry = await ClusterRegistry.open({ dataDir: dir, log })
  const shared = new SharedClusters({ topic: TOPIC, key: KEY, reader, producer, registry, log })
  opened.push({ registry, shared, dir })
  await shared.start()
  return { registry, shared }
}

describe('clusters shared through the control cluster', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    kafka = new Kafka({ clientId: 'sc-test', brokers: [brokers.a.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await ensureControlTopics(admin, [{ name: TOPIC, compacted: true }])
    await admin.disconnect()
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    reader = await KafkaCluster.open('control', { bootstrapServers: [brokers.a.bootstrap], allowedHosts: null })
  })
  afterAll(async () => {
    for (const { registry, shared, dir } of opened) {
      await shared.close()
      await registry.close()
      rmSync(dir, { recursive: true, force: true })
    }
    await reader?.close()
    await producer?.disconnect()
    const admin = kafka.admin()
    await admin.connect()
    await admin.deleteTopics({ topics: [TOPIC] }).catch(() => undefined)
    await admin.disconnect()
  })

  it('passes a changed connection and a removal on to the other instances', async () => {
    const sasl = brokers.b.sasl
    if (!sasl) throw new Error('test cluster b has no SASL listener: restart the test clusters (scripts/kafka/clusters.ts start)')
    const first = await instance()
    const second = await instance()
    await first.registry.create({ name: 'sc-b', kind: 'kafka', bootstrapServers: [brokers.b.bootstrap] })
    await first.shared.sync()
    await second.shared.sync()
    expect(await second.registry.kafkaRequest('sc-b')).toEqual({ name: 'sc-b', bootstrapServers: [brokers.b.bootstrap] })

    // Changed on the first instance (removed and added again over SASL): replaced on the second.
    await first.registry.remove('sc-b', () => null)
    await first.registry.create({ name: 'sc-b', kind: 'kafka', bootstrapServers: [sasl.bootstrap], sasl: { mechanism: 'scram-sha-256', username: sasl.username, password: sasl.password } })
    await first.shared.sync()
    await second.shared.sync()
    expect(await second.registry.kafkaRequest('sc-b')).toEqual({ name: 'sc-b', bootstrapServers: [sasl.bootstrap], sasl: { mechanism: 'scram-sha-256', username: sasl.username, password: sasl.password } })
    expect((await second.registry.list()).find((cluster) => cluster.name === 'sc-b')?.error ?? null).toBeNull()
    // Nothing changes on a round with nothing new: the first keeps its own, and writes nothing back.
    await first.shared.sync()
    expect(await first.registry.kafkaRequest('sc-b')).toEqual(await second.registry.kafkaRequest('sc-b'))

    // Removed on the first: a tombstone, and the second removes it too.
    await first.registry.remove('sc-b', () => null)
    await first.shared.sync()
    await second.shared.sync()
    expect(second.registry.names()).not.toContain('sc-b')
    // A third instance starting now takes the removal, not the old record.
    const third = await instance()
    expect(third.registry.names()).not.toContain('sc-b')
    // And a removal is not undone by the next rounds.
    await first.shared.sync()
    await second.shared.sync()
    expect([first, second, third].map(({ registry }) => registry.names().includes('sc-b'))).toEqual([false, false, false])
  })
  it('never shows another instance a cluster still being created without its secrets', async () => {
    const sasl = brokers.b.sasl
    if (!sasl) throw new Error('test cluster b has no SASL listener: restart the test clusters (scripts/kafka/clusters.ts start)')
    const { registry } = await instance()
    // What a round of SharedClusters reads while the create runs (it ran every 3 s beside a create under load, and
    // published the cluster without its credentials, then again with them: CI's ha-takeover saw four records for three).
    const seen: unknown[] = []
    let creating = true
    const watch = (async () => {
      while (creating) {
        if (registry.names().includes('sc-secret')) seen.push(await registry.kafkaRequest('sc-secret'))
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const request = { name: 'sc-secret', bootstrapServers: [sasl.bootstrap], sasl: { mechanism: 'scram-sha-256' as const, username: sasl.username, password: sasl.password } }
    await registry.create({ kind: 'kafka', ...request })
    creating = false
    await watch
    seen.push(await registry.kafkaRequest('sc-secret'))
    expect(seen.length).toBeGreaterThan(0)
    for (const observed of seen) expect(observed).toEqual(request)
    await registry.remove('sc-secret', () => null)
  })
})
