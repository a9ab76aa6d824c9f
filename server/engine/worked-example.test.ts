import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * The KIP's worked example (kip-1279-excerpt.txt): source A holds
 *   0 DATA 4001 A=1 · 1 DATA 4001 B=2 · 2 DATA 4002 X=9 · 3 COMMIT 4001 · 4 DATA 4003 Y=5 · 5 DATA none Z=10
 * and the destination B had mirrored offsets 0–2 when the operator failed over.
 */
const TOPIC = 'orders'

async function sourceUpToOffset2(harness: EngineHarness) {
  const a = harness.cluster('a')
  await a.createTopic({ name: TOPIC, partitions: 1, replicationFactor: 3 })
  const p4001 = await a.createTransactionalProducer('tx-4001')
  const p4002 = await a.createTransactionalProducer('tx-4002')
  const p4003 = await a.createTransactionalProducer('tx-4003')
  await p4001.send(TOPIC, { partition: 0, records: [{ key: 'A', value: '1' }] })
  await p4001.send(TOPIC, { partition: 0, records: [{ key: 'B', value: '2' }] })
  await p4002.send(TOPIC, { partition: 0, records: [{ key: 'X', value: '9' }] })
  return { p4001, p4002, p4003 }
}

async function restOfSource(harness: EngineHarness, producers: Awaited<ReturnType<typeof sourceUpToOffset2>>) {
  const a = harness.cluster('a')
  await producers.p4001.commit()
  await producers.p4003.send(TOPIC, { partition: 0, records: [{ key: 'Y', value: '5' }] })
  await a.produce(TOPIC, { partition: 0, idempotent: false, records: [{ key: 'Z', value: '10' }] })
}

function table(records: Array<{ offset: number; type: string; producerId: number | null; key: string | null; value: string | null }>) {
  return records.map(({ offset, type, producerId, key, value }) => [offset, type, producerId, key === null ? null : `${key}=${value}`])
}

async function segmentBytes(cluster: EmbeddedCluster, topic: string, partition: number): Promise<Buffer> {
  const description = (await cluster.describeTopic(topic)).partitions[partition]!
  const log = cluster.replicaLog({ topic, partition }, description.leader)!
  const files = (await readdir(log.dir)).filter((file) => file.endsWith('.log')).sort()
  return Buffer.concat(await Promise.all(files.map((file) => readFile(path.join(log.dir, file)))))
}

describe('the KIP-1279 worked example', () => {
  let harness: EngineHarness

  beforeEach(async () => {
    harness = await createEngineHarness({
      clusters: { a: { config: { firstProducerId: 4001 } }, b: { config: { firstProducerId: 9001 } } },
    })
  })
  afterEach(async () => harness.cleanup())

  async function mirrorOffsets0To2() {
    const producers = await sourceUpToOffset2(harness)
    await harness.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: [TOPIC] })
    await harness.run(5)
    const [partition] = harness.engine.partitions('dr')
    expect(partition).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3 })
    await harness.engine.pauseTopics('dr')
    await harness.run(2)
    expect(harness.engine.partitions('dr')[0]!.state).toBe('PAUSED')
    await restOfSource(harness, producers)
    await harness.run(3)
    return producers
  }

  it('source holds exactly the table of the excerpt', async () => {
    await restOfSource(harness, await sourceUpToOffset2(harness))
    const page = await harness.cluster('a').readRecords(TOPIC, 0, { fromOffset: 0, limit: 100 })
    expect(table(page.records)).toEqual([
      [0, 'DATA', 4001, 'A=1'],
      [1, 'DATA', 4001, 'B=2'],
      [2, 'DATA', 4002, 'X=9'],
      [3, 'COMMIT', 4001, null],
      [4, 'DATA', 4003, 'Y=5'],
      [5, 'DATA', null, 'Z=10'],
    ])
  })

  it('the failover plan lists both open transactions and 3 records at risk', async () => {
    await mirrorOffsets0To2()
    const plan = await harness.engine.failoverPlan('dr')
    expect(plan.canProceed).toBe(true)
    expect(plan.partitions).toHaveLength(1)
    expect(plan.partitions[0]).toMatchObject({
      topic: TOPIC,
      partition: 0,
      state: 'PAUSED',
      mirroredOffset: 3,
      sourceLogEndOffset: 6,
      recordsAtRisk: 3,
      transactionsToAbort: [
        { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
        { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
      ],
    })
  })

  it('a failover appends ABORT 4001 at 3, ABORT 4002 at 4 and the reset record at 5', async () => {
    await mirrorOffsets0To2()
    const b = harness.cluster('b')
    const { operation } = await harness.engine.failover('dr', { confirm: 'dr' })
    const finished = await harness.engine.awaitOperation(operation.id)
    expect(finished.status).toBe('succeeded')
    expect(finished.partitions).toEqual([{ topic: TOPIC, partition: 0, step: 'done', state: 'STOPPED', error: null, finishedAt: harness.clock.now() }])
    expect(finished.finishedAt).toBe(harness.clock.now())

    const uncommitted = await b.readRecords(TOPIC, 0, { fromOffset: 0, limit: 100, isolation: 'read_uncommitted' })
    expect(table(uncommitted.records)).toEqual([
      [0, 'DATA', 4001, 'A=1'],
      [1, 'DATA', 4001, 'B=2'],
      [2, 'DATA', 4002, 'X=9'],
      [3, 'ABORT', 4001, null],
      [4, 'ABORT', 4002, null],
      [5, 'MIRROR_PID_RESET', null, null],
    ])
    // The markers carry the new epoch, above the last mirror epoch (KIP-1279.md §11 #26).
    const position = harness.engine.partitions('dr')[0]!.lastMirrorPosition!
    expect(position).toEqual({ epoch: uncommitted.records[2]!.leaderEpoch, offset: 3 })
    for (const marker of uncommitted.records.slice(3)) expect(marker.leaderEpoch).toBeGreaterThan(position.epoch)

    const committed = await b.readRecords(TOPIC, 0, { fromOffset: 0, limit: 100, isolation: 'read_committed' })
    expect(committed.records.filter((record) => record.type === 'DATA')).toEqual([])
    expect(committed.lastStableOffset).toBe(6)

    // STOPPED: the topic is writable, and a producer with a mirrored PID starts fresh.
    const written = await b.produce(TOPIC, { partition: 0, records: [{ key: 'after', value: 'failover' }] })
    expect(written.records[0]!.offset).toBe(6)
    expect(await b.openTransactions({ topic: TOPIC, partition: 0 })).toEqual([])
  })

  it('#28 after the reset record a producer whose id was mirrored starts at sequence 0, also after a restart', async () => {
    await mirrorOffsets0To2()
    const { operation } = await harness.engine.failover('dr', { confirm: 'dr' })
    await harness.engine.awaitOperation(operation.id)
    const tp = { topic: TOPIC, partition: 0 }
    // 4001 wrote sequences 0 and 1 on the source; without the reset, sequence 0 would be a duplicate or out of order.
    const first = await harness.cluster('b').produceBatch(tp, { producerId: 4001, producerEpoch: 0, baseSequence: 0, records: [{ value: 'new life' }] })
    expect(first).toMatchObject({ baseOffset: 6, duplicate: false })
    await harness.restart()
    const second = await harness.cluster('b').produceBatch(tp, { producerId: 4002, producerEpoch: 0, baseSequence: 0, records: [{ value: 'also new' }] })
    expect(second).toMatchObject({ baseOffset: 7, duplicate: false })
  })

  it('failback truncates the old source to offset 3 and then both logs are identical batch for batch', async () => {
    await mirrorOffsets0To2()
    const { operation } = await harness.engine.failover('dr', { confirm: 'dr' })
    await harness.engine.awaitOperation(operation.id)

    const dryRun = await harness.engine.planStart({ sourceCluster: 'b', destinationCluster: 'a', topics: [TOPIC] })
    expect(dryRun.partitions).toEqual([
      expect.objectContaining({ topic: TOPIC, partition: 0, truncateTo: 3, recordsToRemove: 3, lastMirrorPosition: expect.objectContaining({ offset: 3 }) }),
    ])
    // Nothing changed by the dry run.
    expect((await harness.cluster('a').readRecords(TOPIC, 0, { limit: 100 })).records).toHaveLength(6)

    await harness.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [TOPIC] })
    await harness.run(8)
    const [partition] = harness.engine.partitions('back')
    expect(partition).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 6, lastTruncation: { offset: 3, removedRecords: 3 } })

    const a = await harness.cluster('a').readRecords(TOPIC, 0, { limit: 100 })
    const b = await harness.cluster('b').readRecords(TOPIC, 0, { limit: 100 })
    expect(a.records).toEqual(b.records)
    expect(await segmentBytes(harness.cluster('a'), TOPIC, 0)).toEqual(await segmentBytes(harness.cluster('b'), TOPIC, 0))
  })
})
