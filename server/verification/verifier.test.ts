import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { healRottenByte } from '@/server/cluster/embedded/bit-rot'
import { createEngineHarness, type EngineHarness } from '@/server/engine/testing/harness'
import { JsonRecordStore } from '@/server/util/json-record-store'
import { IDENTITY_MAPPING } from './partition-comparison'
import { StoredVerification, Verifier, type VerifierOptions } from './verifier'

/**
 * The verifier over real embedded clusters (a → b): byte mode compares the destination's segments, as the
 * source and destination logs hold them, through each cluster's consumer fetch.
 */
describe('verification of an embedded mirror', () => {
  let harness: EngineHarness
  let storeDir: string
  const verifiers: Verifier[] = []

  beforeEach(async () => {
    harness = await createEngineHarness({ clusters: { a: {}, b: {} } })
    storeDir = await mkdtemp(path.join(os.tmpdir(), 'verifications-'))
  })
  afterEach(async () => {
    for (const verifier of verifiers.splice(0)) await verifier.close()
    await harness.cleanup()
    await rm(storeDir, { recursive: true, force: true })
  })

  async function open(options: VerifierOptions = { bytesPerSecond: Number.POSITIVE_INFINITY }): Promise<Verifier> {
    const verifier = new Verifier(
      await JsonRecordStore.open(storeDir, StoredVerification),
      {
        now: () => Date.now(),
        log: () => {},
        emit: () => {},
        mirror: (name) => ({ ...harness.engine.getMirror(name), partitions: harness.engine.partitions(name) }),
        reader: (cluster) => harness.cluster(cluster),
        destination: () => ({ mode: 'bytes', mapping: () => IDENTITY_MAPPING }),
      },
      options,
    )
    verifiers.push(verifier)
    return verifier
  }

  /** Three partitions: plain, idempotent and transactional records (committed and aborted), all mirrored. */
  async function mirrored(records = 60): Promise<void> {
    const a = harness.cluster('a')
    await a.createTopic({ name: 'orders', partitions: 3, replicationFactor: 3 })
    for (let i = 0; i < records; i++) await a.produce('orders', { partition: i % 3, idempotent: i % 2 === 0, records: [{ key: `k${i}`, value: `value-${i}` }] })
    const committed = await a.createTransactionalProducer('tx-c')
    await committed.send('orders', { partition: 1, records: [{ key: 't', value: 'committed' }] })
    await committed.commit()
    const aborted = await a.createTransactionalProducer('tx-a')
    await aborted.send('orders', { partition: 2, records: [{ key: 't', value: 'aborted' }] })
    await aborted.abort()
    await harness.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await harness.run(10)
    const partitions = harness.engine.partitions('dr')
    const ends = (await a.describeTopic('orders')).partitions.map((p) => p.logEndOffset)
    expect(partitions.map((p) => [p.state, p.destinationHighWatermark])).toEqual(ends.map((end) => ['MIRRORING', end]))
  }

  it('passes an identical range: every partition identical up to its high watermark', async () => {
    await mirrored()
    const verifier = await open()
    const started = await verifier.start('dr')
    expect(started.status).toBe('running')
    const done = await verifier.settled(started.id)
    expect(done.status).toBe('passed')
    expect(done.mode).toBe('bytes')
    const ends = (await harness.cluster('b').describeTopic('orders')).partitions.map((p) => p.highWatermark)
    expect(done.partitions.map(({ partition, status, fromOffset, toOffset, identicalUpTo, mismatchCount }) => ({ partition, status, fromOffset, toOffset, identicalUpTo, mismatchCount }))).toEqual(
      ends.map((end, partition) => ({ partition, status: 'identical', fromOffset: 0, toOffset: end, identicalUpTo: end, mismatchCount: 0 })),
    )
    expect(done.partitions[0]!.summary).toBe(`identical up to offset ${ends[0]}`)
    expect(done.totals).toMatchObject({ partitions: 3, done: 3, identical: 3, mismatches: 0 })
    expect(done.totals.batches).toBeGreaterThanOrEqual(62)
    expect(done.totals.bytes).toBeGreaterThan(0)
  })

  it('names the offset of one flipped byte on the destination and reports the batch failing its own CRC', async () => {
    await mirrored()
    const rot = await harness.cluster('b').rotOneByte({ topic: 'orders', partition: 1 })
    const verifier = await open()
    const done = await verifier.settled((await verifier.start('dr')).id)
    expect(done.status).toBe('mismatched')
    const rotten = done.partitions.find((p) => p.partition === 1)!
    expect(rotten.status).toBe('mismatched')
    expect(rotten.identicalUpTo).toBe(rot.batchBaseOffset)
    expect(rotten.mismatches.map(({ offset, kind }) => ({ offset, kind }))).toEqual([
      { offset: rot.batchBaseOffset, kind: 'crc' },
      { offset: rot.offset, kind: 'bytes' },
    ])
    expect(rotten.mismatches[0]!.detail).toMatch(/^destination batch .* fails its own CRC32C check/)
    expect(rotten.mismatches[1]!.detail).toMatch(new RegExp(`^record at offset ${rot.offset} differs: value: source "value-\\d+" / destination "`))
    // The others are untouched, and the log itself still reads (its own CRC check is reported, not crashed on).
    expect(done.partitions.filter((p) => p.partition !== 1).every((p) => p.status === 'identical')).toBe(true)
    expect((await harness.cluster('b').readRecords('orders', 1, { fromOffset: 0, limit: 100 })).records.length).toBeGreaterThan(0)

    // Healed, the same comparison passes again.
    expect(await healRottenByte(rot)).toBe(true)
    expect((await verifier.settled((await verifier.start('dr')).id)).status).toBe('passed')
  })

  it('finds one flipped byte in the last of many partitions compared at once, each worker reusing its buffers step after step', async () => {
    const a = harness.cluster('a')
    const count = 240
    await a.createTopic({ name: 'wide', partitions: count, replicationFactor: 1 })
    // Three batches a partition, of different sizes: a step of 256 bytes holds one or two, so every partition takes
    // several steps through the same buffers while the other workers read other partitions into theirs.
    for (let partition = 0; partition < count; partition++) {
      for (const size of [1, 3, 2]) await a.produce('wide', { partition, records: Array.from({ length: size }, (_, i) => ({ key: `k${partition}`, value: `p${partition}-${size}-${i}` })) })
    }
    await harness.engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics: ['wide'] })
    await harness.run(10)
    expect(harness.engine.partitions('wide').filter((p) => p.state === 'MIRRORING' && p.destinationHighWatermark === 6)).toHaveLength(count)
    const rot = await harness.cluster('b').rotOneByte({ topic: 'wide', partition: count - 1 })

    const wide = await open({ bytesPerSecond: Number.POSITIVE_INFINITY, concurrency: 16, chunkBytes: 256 })
    const done = await wide.settled((await wide.start('wide')).id)
    expect(done.status).toBe('mismatched')
    expect(done.totals).toMatchObject({ partitions: count, done: count, identical: count - 1, mismatched: 1, failed: 0 })
    const last = done.partitions.find((p) => p.partition === count - 1)!
    expect(last).toMatchObject({ status: 'mismatched', identicalUpTo: rot.batchBaseOffset })
    expect(last.mismatches.map(({ offset, kind }) => ({ offset, kind }))).toEqual([
      { offset: rot.batchBaseOffset, kind: 'crc' },
      { offset: rot.offset, kind: 'bytes' },
    ])
    expect(done.partitions.filter((p) => p.partition !== count - 1).every((p) => p.status === 'identical' && p.identicalUpTo === 6 && p.batches === 3)).toBe(true)
    // The same verdict, partition by partition, as one partition at a time.
    const one = await open({ bytesPerSecond: Number.POSITIVE_INFINITY, concurrency: 1, chunkBytes: 256 })
    const alone = await one.settled((await one.start('wide')).id)
    const verdicts = (v: typeof done) => v.partitions.map(({ partition, status, identicalUpTo, batches, bytes, mismatches }) => ({ partition, status, identicalUpTo, batches, bytes, mismatches }))
    expect(verdicts(done)).toEqual(verdicts(alone))
  })

  it('refuses a topic the mirror does not mirror with NOT_FOUND and records nothing', async () => {
    await mirrored(6)
    const verifier = await open()
    await expect(verifier.start('dr', { topics: ['orders', 'nope'] })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expect(verifier.list({ mirror: 'dr' })).toEqual([])
  })

  it('resumes after a restart where each partition had got to, and can be cancelled', async () => {
    await mirrored(300)
    // Slow enough to be caught midway: steps of a few batches, ~2 KiB a second.
    const slow = await open({ bytesPerSecond: 2048, concurrency: 1, chunkBytes: 256 })
    const started = await slow.start('dr')
    await new Promise((resolve) => setTimeout(resolve, 2600))
    await slow.close()
    verifiers.splice(verifiers.indexOf(slow), 1)
    const saved = (await JsonRecordStore.open(storeDir, StoredVerification)).loaded.find((record) => record.id === started.id)!
    expect(saved.status).toBe('running')
    const reached = saved.partitions[0]!.verifiedTo
    expect(reached).toBeGreaterThan(0)
    expect(reached).toBeLessThan(saved.partitions[0]!.toOffset)

    const resumed = await open()
    resumed.recover()
    const done = await resumed.settled(started.id)
    expect(done.status).toBe('passed')
    expect(done.partitions.every((p) => p.identicalUpTo === p.toOffset)).toBe(true)

    const again = await open({ bytesPerSecond: 1024, concurrency: 1, chunkBytes: 256 })
    const cancelling = await again.start('dr')
    const cancelled = await again.cancel(cancelling.id)
    expect(cancelled.status).toBe('cancelled')
    expect(cancelled.partitions.some((p) => p.status === 'cancelled')).toBe(true)
    await expect(again.cancel(cancelling.id)).rejects.toMatchObject({ code: 'CONFLICT' })
  })

  it('fails the partitions it cannot read, with the reason, when the source is gone', async () => {
    await mirrored(6)
    await harness.cluster('a').close()
    const verifier = await open()
    const done = await verifier.settled((await verifier.start('dr')).id)
    expect(done.status).toBe('failed')
    expect(done.partitions[0]!.summary).toMatch(/^not verified: the source cluster a could not be read/)
  })
})
