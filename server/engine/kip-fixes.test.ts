import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CONTROL_TYPE_IDS, encodeBatch, encodeControlBatch, endTxnMarkerValue } from '@/lib/log/record-batch'
import { ManualClock } from '@/server/cluster/embedded/clock'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { SourceCluster } from '@/server/cluster/ports'
import { crc32c } from '@/server/storage/crc32c'
import { MirrorEngine } from './engine'
import { OperationStore } from './operations/operation-store'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * Behaviour that broke a failover or a mirror (issue #14), each pinned by a test that failed before its fix.
 * The tests drive the engine through its facade over real embedded clusters on real files.
 */

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }
const TX = { producerEpoch: 0, isTransactional: true, partitionLeaderEpoch: 0, timestamp: 1_000 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function recordsOf(cluster: EmbeddedCluster, topic: string, isolation: 'read_committed' | 'read_uncommitted' = 'read_uncommitted') {
  return (await cluster.readRecords(topic, 0, { limit: 1_000, isolation })).records
}

describe('STOPPING aborts open transactions unconditionally (KIP-1279.md §4.1)', () => {
  it('#26 a failover from a source whose markers carry coordinator epoch 5 ends with one ABORT per open transaction', async () => {
    harness = await createEngineHarness({ clusters: { a: {}, b: {} } })
    const a = harness.cluster('a')
    // A real Kafka source after a coordinator move: its COMMIT says coordinator epoch 5. The embedded
    // coordinator always writes 0, so the source log is built from Kafka-format batches instead.
    const tp = { topic: 'orders', partition: 0 }
    await a.createMirrorTopic({ name: 'orders', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: 1, replicationFactor: 3, mirror: 'upstream' })
    const batches = [
      encodeBatch({ ...TX, baseOffset: 0, producerId: 4001, baseSequence: 0, records: [{ key: 'A', value: '1' }] }, crc32c),
      encodeControlBatch({ ...TX, baseOffset: 1, producerId: 4001, typeId: CONTROL_TYPE_IDS.COMMIT, value: endTxnMarkerValue(5) }, crc32c),
      encodeBatch({ ...TX, baseOffset: 2, producerId: 4001, baseSequence: 1, records: [{ key: 'B', value: '2' }] }, crc32c),
      encodeBatch({ ...TX, baseOffset: 3, producerId: 4002, baseSequence: 0, records: [{ key: 'X', value: '9' }] }, crc32c),
    ]
    for (const batch of batches) await a.appendMirroredBatches(tp, batch)

    await harness.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await harness.run(4)
    expect(harness.engine.partitions('dr')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 4 })
    const { operation } = await harness.engine.failover('dr', { confirm: 'dr' })
    const finished = await harness.engine.awaitOperation(operation.id)
    expect(finished.status).toBe('succeeded')

    const b = harness.cluster('b')
    expect((await recordsOf(b, 'orders')).map(({ offset, type, producerId }) => [offset, type, producerId])).toEqual([
      [0, 'DATA', 4001],
      [1, 'COMMIT', 4001],
      [2, 'DATA', 4001],
      [3, 'DATA', 4002],
      [4, 'ABORT', 4001],
      [5, 'ABORT', 4002],
      [6, 'MIRROR_PID_RESET', null],
    ])
    // The committed transaction stays readable, the two open ones are aborted.
    expect((await recordsOf(b, 'orders', 'read_committed')).filter((r) => r.type === 'DATA').map((r) => r.key)).toEqual(['A'])
    expect(harness.engine.partitions('dr')[0]!.state).toBe('STOPPED')
  })
})

describe('tiered storage (KIP-1279.md §1.4, §11 #36)', () => {
  it('#36 a source with remote.storage.enable=true mirrors normally; only destination-side tiered storage fails', async () => {
    harness = await createEngineHarness({ clusters: { a: {}, b: {} } })
    const a = harness.cluster('a')
    await a.createTopic({ name: 'tiered', partitions: 1, replicationFactor: 1, configs: { 'remote.storage.enable': 'true', 'retention.ms': '600000' } })
    await a.produce('tiered', { records: [{ value: '1' }, { value: '2' }] })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['tiered'], config: FAST_SYNC })
    await harness.run(3, 1_000)
    await a.produce('tiered', { records: [{ value: '3' }] })
    await harness.run(3, 1_000)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3, error: null })
    const destination = await harness.cluster('b').describeTopic('tiered')
    expect(destination.configs['remote.storage.enable']).toBeUndefined()
    // Other dynamic configs still follow the source.
    expect(destination.configs['retention.ms']).toBe('600000')

    // The destination enabling it itself still fails the partition for good.
    await harness.cluster('b').alterTopicConfigs('tiered', { 'remote.storage.enable': 'true' })
    await harness.engine.destinationTopicConfigsChanged('b', 'tiered')
    await harness.run(2, 1_000)
    expect(harness.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', retryAttempt: -1 })
  })
})

describe('synced group offsets (KIP-1279.md §3.6, §11 #31)', () => {
  it('#31 an offset clamped to the destination log start or end carries the destination epoch at that offset', async () => {
    harness = await createEngineHarness({ clusters: { a: {}, b: {} } })
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { records: ['1', '2', '3', '4'].map((value) => ({ value })) })
    await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await harness.run(3, 1_000)
    // Batches written after a source election carry epoch 6: the destination's epoch at its log end.
    const before = harness.engine.partitions('m')[0]!.destinationLeaderEpoch
    await a.bumpLeaderEpoch({ topic: 't', partition: 0 }, 6)
    expect(before).toBeGreaterThan(6 + 3)
    await a.produce('t', { records: [{ value: '5' }] })
    await harness.run(2, 1_000)
    await harness.engine.pauseTopics('m')
    await harness.run(1)
    await a.produce('t', { records: [{ value: '6' }, { value: '7' }] })
    // Below: the source keeps an offset its own retention removed on the destination.
    await a.deleteRecords({ topic: 't', partition: 0 }, 2)
    await b.deleteRecordsBefore({ topic: 't', partition: 0 }, 2, { bypassReadOnly: true })
    await a.commitOffsets('above', [{ topic: 't', partition: 0, offset: 7, leaderEpoch: 6 }])
    await a.commitOffsets('below', [{ topic: 't', partition: 0, offset: 1, leaderEpoch: 3 }])
    await a.commitOffsets('inside', [{ topic: 't', partition: 0, offset: 3, leaderEpoch: 4 }])
    await harness.engine.resumeTopics('m')
    // The sync runs before the fetch in a tick: the destination still ends at 5 when it clamps.
    await harness.run(1, 1_000)
    const offsetsOf = async (groupId: string) => (await b.listGroupOffsets()).find((group) => group.groupId === groupId)?.offsets
    expect(await offsetsOf('above')).toEqual([expect.objectContaining({ offset: 5, leaderEpoch: 6 })])
    expect(await offsetsOf('below')).toEqual([expect.objectContaining({ offset: 2, leaderEpoch: 0 })])
    // Unclamped: the source's offset and epoch as they are.
    expect(await offsetsOf('inside')).toEqual([expect.objectContaining({ offset: 3, leaderEpoch: 4 })])
  })
})

describe('a malformed batch on append is retryable (KIP-1279.md §2.4)', () => {
  const dirs: string[] = []
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
  })

  it('#7 a fetch answer with a corrupt batch fails the partition retryably; the retry mirrors the clean bytes', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'mirror-malformed-'))
    dirs.push(root)
    const clock = new ManualClock()
    const a = await EmbeddedCluster.open(path.join(root, 'a'), { name: 'a', brokers: 1, clock })
    const b = await EmbeddedCluster.open(path.join(root, 'b'), { name: 'b', brokers: 1, clock })
    // A source port whose first non-empty answer arrives with one flipped bit (a bad network hop):
    // the destination's CRC check refuses it, and the next fetch brings the bytes intact.
    let corrupted = false
    const flaky: SourceCluster = Object.create(a, {
      fetch: {
        value: async (...args: Parameters<SourceCluster['fetch']>) => {
          const results = await a.fetch(...args)
          return results.map((result) => {
            if (corrupted || !result.ok || result.records.byteLength === 0) return result
            corrupted = true
            const records = Uint8Array.from(result.records)
            records[records.byteLength - 1]! ^= 0x01
            return { ...result, records }
          })
        },
      },
    })
    const engine = new MirrorEngine({
      clusters: { names: () => ['a', 'b'], get: (name) => (name === 'a' ? { source: flaky, host: a } : name === 'b' ? { source: b, host: b } : undefined) },
      operationStore: await OperationStore.open(path.join(root, 'operations')),
      now: () => clock.now(),
      random: () => 0.5,
    })
    try {
      await engine.start()
      await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
      await a.produce('t', { records: [{ value: '1' }, { value: '2' }] })
      await engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
      const tick = async (ms: number) => {
        clock.advance(ms)
        await a.tick()
        await b.tick()
        await engine.tick()
        await engine.settle()
      }
      for (let i = 0; i < 6; i++) await tick(i < 2 ? 100 : 1_000)
      expect(corrupted).toBe(true)
      const failures = engine.partitionHistory('m', 't', 0).filter((transition) => transition.to === 'FAILED')
      expect(failures).toEqual([expect.objectContaining({ from: 'MIRRORING', retryAttempt: 1, error: expect.stringContaining('CORRUPT_RECORD') })])
      expect(engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 2, error: null, retryAttempt: 0 })
      expect((await b.readRecords('t', 0)).records.map((r) => r.value)).toEqual(['1', '2'])
    } finally {
      await engine.close()
      await a.close()
      await b.close()
    }
  })
})
