import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ClusterEvent } from '@/lib/api/events'
import { logger } from '@/server/observability/logger'
import { renderPrometheus } from '@/server/observability/metrics'
import { ClusterApi } from '@/server/api/cluster-api'
import { ClusterRegistry } from './registry'

let dataDir: string
const open: ClusterRegistry[] = []
const events: ClusterEvent[] = []

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-registry-'))
  events.length = 0
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
})
afterEach(async () => {
  await Promise.all(open.splice(0).map((registry) => registry.close()))
  vi.restoreAllMocks()
  rmSync(dataDir, { recursive: true, force: true })
})

/** The API's data plane over a registry (server/api/cluster-api.ts), with no mirrors. */
function apiOf(registry: ClusterRegistry): ClusterApi {
  return new ClusterApi(registry, { listMirrors: () => [], destinationTopicConfigsChanged: async () => {} })
}

async function openRegistry(): Promise<ClusterRegistry> {
  const registry = await ClusterRegistry.open({ dataDir, log: logger, publish: (event) => events.push(event), now: () => 1234 })
  open.push(registry)
  return registry
}

describe('ClusterRegistry', () => {
  it('creates an embedded cluster under <dataDir>/clusters/<name> and lists it', async () => {
    const registry = await openRegistry()
    const created = await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    expect(created).toMatchObject({ name: 'east', kind: 'embedded', brokers: [{ id: 1, alive: true }], topicCount: 0, open: true, error: null })
    expect(created.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(existsSync(path.join(dataDir, 'clusters', 'east', 'metadata.json'))).toBe(true)
    expect(JSON.parse(readFileSync(path.join(dataDir, 'clusters.json'), 'utf8'))).toEqual({
      version: 1,
      clusters: [{ name: 'east', kind: 'embedded', brokers: 1, config: {}, createdAt: 1234 }],
    })
    expect(await registry.list()).toEqual([created])
    expect(events).toEqual([{ cluster: 'east', change: 'created' }])
  })

  it('reopens its clusters with their topics, records and creation settings after a restart', async () => {
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1, firstProducerId: 4001 })
    await apiOf(registry).createTopic('east', { name: 'orders', partitions: 1 })
    await apiOf(registry).produce('east', 'orders', { idempotent: false, records: [{ key: 'Z', value: '10' }] })
    const before = await registry.describe('east')
    await registry.close()

    const reopened = await openRegistry()
    expect(await reopened.describe('east')).toEqual({ ...before, topicCount: 1 })
    const { producerId } = await apiOf(reopened).createProducer('east', 'tx')
    expect(producerId).toBe(4001)
    const page = await apiOf(reopened).readRecords('east', 'orders', 0, { fromOffset: 0, limit: 100, isolation: 'read_uncommitted' })
    expect(page.records.map(({ offset, key, value, producerId: id, producerEpoch }) => ({ offset, key, value, id, producerEpoch }))).toEqual([
      { offset: 0, key: 'Z', value: '10', id: null, producerEpoch: null },
    ])
    expect(page.nextOffset).toBe(1)
  })

  it('refuses a second cluster of the same name, a kafka cluster that does not connect, and unknown names, changing nothing', async () => {
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    await expect(registry.create({ name: 'east', kind: 'embedded', brokers: 1 })).rejects.toMatchObject({ code: 'CONFLICT' })
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    await expect(
      registry.create({ name: 'west', kind: 'kafka', bootstrapServers: ['127.0.0.1:1'], sasl: { mechanism: 'plain', username: 'u', password: 'never-shown-1' } }),
    ).rejects.toSatisfy((error: Error & { code?: string }) => error.code === 'CLUSTER_CONNECTION_FAILED' && /127\.0\.0\.1:1/.test(error.message) && !error.message.includes('never-shown-1'))
    expect(existsSync(path.join(dataDir, 'secrets'))).toBe(false)
    expect(readFileSync(path.join(dataDir, 'clusters.json'), 'utf8')).not.toContain('west')
    await expect(registry.describe('west')).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(apiOf(registry).listTopics('west')).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expect(registry.names()).toEqual(['east'])
    expect(existsSync(path.join(dataDir, 'clusters', 'west'))).toBe(false)
  })

  it('serialises concurrent creations of one name: exactly one wins', async () => {
    const registry = await openRegistry()
    const results = await Promise.allSettled([
      registry.create({ name: 'race', kind: 'embedded', brokers: 1 }),
      registry.create({ name: 'race', kind: 'embedded', brokers: 1 }),
    ])
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected'])
  })

  it('clears a directory that no definition names before creating a cluster there', async () => {
    const leftover = path.join(dataDir, 'clusters', 'east')
    mkdirSync(leftover, { recursive: true })
    writeFileSync(path.join(leftover, 'stray.txt'), 'from a crashed creation')
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    expect(existsSync(path.join(leftover, 'stray.txt'))).toBe(false)
  })

  it('lists a cluster that cannot be opened as unavailable and answers SOURCE_UNAVAILABLE for it', async () => {
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    await registry.close()
    writeFileSync(path.join(dataDir, 'clusters', 'east', 'metadata.json'), '{"version": 99}')
    const reopened = await openRegistry()
    expect(await reopened.list()).toEqual([{ name: 'east', kind: 'embedded', clusterId: '', brokers: [], topicCount: 0, open: false, error: expect.any(String) }])
    expect(await apiOf(reopened).list()).toEqual([
      { name: 'east', kind: 'embedded', clusterId: '', brokers: [], topicCount: 0, status: 'unavailable', error: expect.any(String) },
    ])
    await expect(apiOf(reopened).listTopics('east')).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE' })
  })

  it('reports cluster gauges for metrics, the per-partition ones unless left out', async () => {
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    await apiOf(registry).createTopic('east', { name: 'orders', partitions: 2 })
    await apiOf(registry).produce('east', 'orders', { partition: 1, records: [{ value: 'a' }, { value: 'b' }] })
    const text = await renderPrometheus(await registry.collectMetrics())
    expect(text).toMatch(/^mirrorboard_clusters 1$/m)
    expect(text).toMatch(/^mirrorboard_cluster_topics\{cluster="east"\} 1$/m)
    expect(text.split('\n').filter((line) => line.startsWith('mirrorboard_partition_log_end_offset{'))).toEqual([
      'mirrorboard_partition_log_end_offset{cluster="east",topic="orders",partition="0"} 0',
      'mirrorboard_partition_log_end_offset{cluster="east",topic="orders",partition="1"} 2',
    ])
    expect(text).toMatch(/^mirrorboard_partition_replicas\{cluster="east",topic="orders",partition="1"\} 1$/m)
    expect(events.map((event) => event.change)).toEqual(['created', 'topicCreated', 'recordsAppended'])
    expect(events[2]).toEqual({ cluster: 'east', change: 'recordsAppended', topic: 'orders', partitions: [1] })

    const withoutPartitions = await renderPrometheus(await registry.collectMetrics({ partitions: false }))
    expect(withoutPartitions).toMatch(/^mirrorboard_cluster_topics\{cluster="east"\} 1$/m)
    expect(withoutPartitions).not.toContain('mirrorboard_partition_')
  })

  it("drops a cluster's partition gauges of a scrape when the cluster stops answering midway, and describes a topic at a time", async () => {
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    await apiOf(registry).createTopic('east', { name: 'orders', partitions: 2 })
    await apiOf(registry).createTopic('east', { name: 'payments', partitions: 1 })
    const cluster = registry.embedded('east')
    const describeTopics = cluster.describeTopics.bind(cluster)
    const asked: Array<string[] | undefined> = []
    cluster.describeTopics = async (topics?: string[]) => {
      asked.push(topics)
      if (topics?.includes('payments')) throw new Error('east stopped answering')
      return describeTopics(topics)
    }
    const text = await renderPrometheus(await registry.collectMetrics())
    expect(asked).toEqual([['orders'], ['payments']])
    expect(text).toMatch(/^mirrorboard_cluster_topics\{cluster="east"\} 2$/m)
    expect(text).not.toContain('mirrorboard_partition_log_end_offset{cluster="east"')
    cluster.describeTopics = describeTopics
    expect(await renderPrometheus(await registry.collectMetrics())).toContain('mirrorboard_partition_log_end_offset{cluster="east",topic="payments",partition="0"} 0')
  })

  it('refuses new clusters once closed', async () => {
    const registry = await openRegistry()
    await registry.close()
    await expect(registry.create({ name: 'late', kind: 'embedded', brokers: 1 })).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE' })
  })
  it('removes a cluster with its definition and data, and refuses while something still uses it', async () => {
    const registry = await openRegistry()
    await registry.create({ name: 'east', kind: 'embedded', brokers: 1 })
    await registry.create({ name: 'west', kind: 'embedded', brokers: 1 })
    await expect(registry.remove('east', () => 'used by mirror dr')).rejects.toMatchObject({ code: 'CONFLICT', message: 'used by mirror dr' })
    expect(registry.names()).toEqual(['east', 'west'])
    await expect(registry.remove('nowhere', () => null)).rejects.toMatchObject({ code: 'NOT_FOUND' })

    await registry.remove('east', () => null)
    expect(registry.names()).toEqual(['west'])
    expect(existsSync(path.join(dataDir, 'clusters', 'east'))).toBe(false)
    expect(JSON.parse(readFileSync(path.join(dataDir, 'clusters.json'), 'utf8')).clusters.map((c: { name: string }) => c.name)).toEqual(['west'])
    expect(events.at(-1)).toEqual({ cluster: 'east', change: 'deleted' })
    await registry.close()

    const reopened = await openRegistry()
    expect(reopened.names()).toEqual(['west'])
    // The name is free again, with a fresh cluster behind it.
    expect((await reopened.create({ name: 'east', kind: 'embedded', brokers: 1 })).topicCount).toBe(0)
  })
})
