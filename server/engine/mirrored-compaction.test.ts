import { afterEach, describe, expect, it } from 'vitest'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * Log compaction of a mirrored topic (issue #14, "cleanup.policy=compact honoured for any topic, mirrored
 * ones included"; KIP-1279.md §11 #10: compaction gaps allowed). A source cleaned before the mirror reads
 * it is mirrored with its gaps at the same offsets, and the destination's own cleaner compacts the mirror
 * topic without disturbing the mirror.
 */

const COMPACTED = { 'cleanup.policy': 'compact', 'segment.bytes': '100', 'min.cleanable.dirty.ratio': '0' }
const TP = { topic: 'kv', partition: 0 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function put(cluster: EmbeddedCluster, ...pairs: Array<[string, string]>) {
  // One batch each, so each fills a segment of its own and the cleaner has rolled segments to work on.
  for (const [key, value] of pairs) await cluster.produce('kv', { partition: 0, idempotent: false, records: [{ key, value }] })
}

async function logOf(cluster: EmbeddedCluster) {
  return (await cluster.readRecords('kv', 0, { limit: 100 })).records.map((record) => [record.offset, record.key, record.value])
}

async function compactEveryReplica(cluster: EmbeddedCluster) {
  const { replicas } = await cluster.describePartition(TP)
  for (const brokerId of replicas) expect(await cluster.replicaLog(TP, brokerId)!.compact()).toMatchObject({ kind: 'cleaned' })
}

describe('compacted topics under a mirror', () => {
  it('#10 mirrors a compacted source with its gaps at the same offsets, and the destination compacts the mirror topic itself', async () => {
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 'kv', partitions: 1, replicationFactor: 1, configs: COMPACTED })
    await put(a, ['k1', 'a'], ['k2', 'a'], ['k1', 'b'], ['k3', 'a'], ['k2', 'b'], ['k4', 'a'])
    await compactEveryReplica(a)
    const cleanedSource = await logOf(a)
    // k1 and k2 keep their latest values; the active segment (k4) is never cleaned.
    expect(cleanedSource).toEqual([
      [2, 'k1', 'b'],
      [3, 'k3', 'a'],
      [4, 'k2', 'b'],
      [5, 'k4', 'a'],
    ])

    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['kv'] })
    await h.run(5)
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 6, offsetLag: 0 })
    expect(await logOf(b)).toEqual(cleanedSource)
    expect((await b.describeTopic('kv')).configs).toMatchObject({ 'cleanup.policy': 'compact' })

    // Newer values at the source, mirrored; then the destination's cleaner compacts its own replicas.
    await put(a, ['k3', 'b'], ['k4', 'b'], ['k5', 'a'])
    await h.run(3)
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 9 })
    await compactEveryReplica(b)
    expect(await logOf(b)).toEqual([
      [2, 'k1', 'b'],
      [4, 'k2', 'b'],
      [6, 'k3', 'b'],
      [7, 'k4', 'b'],
      [8, 'k5', 'a'],
    ])
    // The mirror goes on at the source's offsets after the destination cleaned under it.
    await put(a, ['k1', 'c'])
    await h.run(3)
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 10, offsetLag: 0, error: null })
    expect((await logOf(b)).at(-1)).toEqual([9, 'k1', 'c'])
  })
})
