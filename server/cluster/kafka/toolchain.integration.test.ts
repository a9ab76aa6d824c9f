/**
 * End-to-end check of the real-Kafka toolchain the mirror is tested against: kafkajs (admin, idempotent and
 * transactional producers, read_committed consumer), the raw fetch built on kafkajs internals, and Kafka's
 * own DumpLogSegments — on both test clusters, asserting the exact on-disk layout of data and markers.
 *
 * Needs `npx tsx scripts/kafka/clusters.ts start`.
 */
import 'server-only'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32c } from '@node-rs/crc32'
import { Kafka, Partitioners, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dumpLogSegment, dumpLogSegments, type DumpedBatch } from '@/scripts/kafka/dump-log-segments'
import { RawFetcher, decodeControlRecord, type RawBatch } from '@/scripts/kafka/raw-fetch'
import { getTestClusters, type TestCluster } from '@/scripts/kafka/test-clusters'

interface Produced {
  topic: string
  idempotentProducerId: bigint
  transactionalProducerId: bigint
}

/** The comparable essence of a batch, as both raw fetch and DumpLogSegments see it. */
interface BatchShape {
  baseOffset: number
  lastOffset: number
  producerId: number
  producerEpoch: number
  baseSequence: number
  partitionLeaderEpoch: number
  isTransactional: boolean
  isControl: boolean
  controlTypes: string[]
}

function shapeOfRaw(batch: RawBatch): BatchShape {
  return {
    baseOffset: Number(batch.baseOffset),
    lastOffset: Number(batch.lastOffset),
    producerId: Number(batch.producerId),
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    controlTypes: batch.records.flatMap((r) => (r.control ? [r.control.typeName] : [])),
  }
}

function shapeOfDump(batch: DumpedBatch): BatchShape {
  return {
    baseOffset: batch.baseOffset,
    lastOffset: batch.lastOffset,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    controlTypes: batch.records.flatMap((r) => (r.controlType === undefined ? [] : [r.controlType])),
  }
}

/**
 * What the produce sequence below must leave in the partition: idempotent producer P1, transactional
 * producer P2 (one committed and one aborted transaction), then one more idempotent record.
 */
function expectedLayout(p1: number, p2: number, p1Epoch: number, p2Epoch: number): BatchShape[] {
  const base = { partitionLeaderEpoch: 0, controlTypes: [] as string[] }
  return [
    { ...base, baseOffset: 0, lastOffset: 2, producerId: p1, producerEpoch: p1Epoch, baseSequence: 0, isTransactional: false, isControl: false },
    { ...base, baseOffset: 3, lastOffset: 3, producerId: p1, producerEpoch: p1Epoch, baseSequence: 3, isTransactional: false, isControl: false },
    { ...base, baseOffset: 4, lastOffset: 5, producerId: p2, producerEpoch: p2Epoch, baseSequence: 0, isTransactional: true, isControl: false },
    { ...base, baseOffset: 6, lastOffset: 6, producerId: p2, producerEpoch: p2Epoch, baseSequence: -1, isTransactional: true, isControl: true, controlTypes: ['COMMIT'] },
    { ...base, baseOffset: 7, lastOffset: 8, producerId: p2, producerEpoch: p2Epoch, baseSequence: 2, isTransactional: true, isControl: false },
    { ...base, baseOffset: 9, lastOffset: 9, producerId: p2, producerEpoch: p2Epoch, baseSequence: -1, isTransactional: true, isControl: true, controlTypes: ['ABORT'] },
    { ...base, baseOffset: 10, lastOffset: 10, producerId: p1, producerEpoch: p1Epoch, baseSequence: 4, isTransactional: false, isControl: false },
  ]
}

const values = (...names: string[]) => names.map((value) => ({ value }))

function kafkaFor(cluster: TestCluster): Kafka {
  return new Kafka({ clientId: 'toolchain-test', brokers: [cluster.bootstrap], logLevel: logLevel.NOTHING })
}

async function waitForHighWatermark(cluster: TestCluster, topic: string, target: bigint): Promise<void> {
  const fetcher = await RawFetcher.connect({ brokers: [cluster.bootstrap] })
  try {
    for (let attempt = 0; ; attempt++) {
      const { highWatermark } = await fetcher.fetch({ topic, partition: 0, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })
      if (highWatermark >= target) return
      if (attempt === 300) throw new Error(`${topic}: highWatermark stuck at ${highWatermark}, expected ${target}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    await fetcher.disconnect()
  }
}

async function produceScenario(cluster: TestCluster): Promise<Produced> {
  const kafka = kafkaFor(cluster)
  const topic = `toolchain-${randomBytes(4).toString('hex')}`
  const admin = kafka.admin()
  await admin.connect()
  try {
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true })).toBe(true)
  } finally {
    await admin.disconnect()
  }

  const createPartitioner = Partitioners.DefaultPartitioner
  const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner })
  const transactional = kafka.producer({
    transactionalId: `toolchain-tx-${randomBytes(4).toString('hex')}`,
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner,
  })
  await Promise.all([idempotent.connect(), transactional.connect()])
  try {
    const first = await idempotent.send({ topic, messages: values('p1-0', 'p1-1', 'p1-2').map((m) => ({ ...m, partition: 0 })) })
    expect(first[0]?.baseOffset).toBe('0')
    const second = await idempotent.send({ topic, messages: [{ partition: 0, value: 'p1-3' }] })
    expect(second[0]?.baseOffset).toBe('3')

    const committed = await transactional.transaction()
    const inCommitted = await committed.send({ topic, messages: values('tx1-0', 'tx1-1').map((m) => ({ ...m, partition: 0 })) })
    expect(inCommitted[0]?.baseOffset).toBe('4')
    await committed.commit()

    const aborted = await transactional.transaction()
    const inAborted = await aborted.send({ topic, messages: values('tx2-0', 'tx2-1').map((m) => ({ ...m, partition: 0 })) })
    expect(inAborted[0]?.baseOffset).toBe('7')
    await aborted.abort()
    // EndTxn returns once the coordinator logged PrepareAbort; it writes the marker afterwards. Wait for
    // it, or the next idempotent record could land before the marker.
    await waitForHighWatermark(cluster, topic, 10n)

    // A committed record after the abort marker lets the read_committed consumer know it has seen everything.
    const last = await idempotent.send({ topic, messages: [{ partition: 0, value: 'p1-4' }] })
    expect(last[0]?.baseOffset).toBe('10')
  } finally {
    await Promise.all([idempotent.disconnect(), transactional.disconnect()])
  }

  // kafkajs keeps producer ids private; read them from the first batch each producer wrote.
  const fetcher = await RawFetcher.connect({ brokers: [cluster.bootstrap] })
  try {
    const head = await fetcher.fetchToEnd({ topic, partition: 0, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })
    const p1 = head.batches.find((b) => b.baseOffset === 0n)?.producerId
    const p2 = head.batches.find((b) => b.baseOffset === 4n)?.producerId
    if (p1 === undefined || p2 === undefined) throw new Error(`unexpected batches: ${head.batches.map((b) => b.baseOffset).join(',')}`)
    return { topic, idempotentProducerId: p1, transactionalProducerId: p2 }
  } finally {
    await fetcher.disconnect()
  }
}

for (const name of ['a', 'b'] as const) {
  describe(`real Kafka toolchain on cluster ${name}`, () => {
    let cluster: TestCluster
    let produced: Produced
    let fetcher: RawFetcher

    beforeAll(async () => {
      const clusters = getTestClusters()
      cluster = clusters[name]
      produced = await produceScenario(cluster)
      fetcher = await RawFetcher.connect({ brokers: [cluster.bootstrap] })
    })

    afterAll(async () => {
      await fetcher?.disconnect()
    })

    it('raw read_uncommitted fetch shows the data and both markers with their producer ids and offsets', async () => {
      const { topic, idempotentProducerId: p1, transactionalProducerId: p2 } = produced
      expect(p1).toBeGreaterThanOrEqual(0n)
      expect(p2).toBeGreaterThanOrEqual(0n)
      expect(p2).not.toBe(p1)

      const fetched = await fetcher.fetchToEnd({ topic, partition: 0, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })
      expect(fetched.highWatermark).toBe(11n)
      expect(fetched.lastStableOffset).toBe(11n)
      expect(fetched.logStartOffset).toBe(0n)
      expect(fetched.abortedTransactions).toEqual([])

      const [b0, , b2] = fetched.batches
      const shapes = fetched.batches.map(shapeOfRaw)
      expect(shapes).toEqual(expectedLayout(Number(p1), Number(p2), b0?.producerEpoch ?? -2, b2?.producerEpoch ?? -2))
      expect(b0?.producerEpoch).toBeGreaterThanOrEqual(0)
      expect(b2?.producerEpoch).toBeGreaterThanOrEqual(0)

      const records = fetched.batches.flatMap((b) => b.records)
      expect(records.map((r) => Number(r.offset))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      expect(records.filter((r) => !r.control).map((r) => r.value?.toString())).toEqual([
        'p1-0', 'p1-1', 'p1-2', 'p1-3', 'tx1-0', 'tx1-1', 'tx2-0', 'tx2-1', 'p1-4',
      ])
      const markers = records.flatMap((r) => (r.control ? [{ offset: r.offset, ...r.control }] : []))
      expect(markers).toEqual([
        { offset: 6n, version: 0, type: 1, typeName: 'COMMIT', coordinatorEpoch: expect.any(Number) },
        { offset: 9n, version: 0, type: 0, typeName: 'ABORT', coordinatorEpoch: expect.any(Number) },
      ])
      expect(markers[0]?.coordinatorEpoch).toBeGreaterThanOrEqual(0)
    })

    it('raw read_committed fetch reports the aborted transaction and stops at the last stable offset', async () => {
      const { topic, transactionalProducerId: p2 } = produced
      const fetched = await fetcher.fetchToEnd({ topic, partition: 0, fetchOffset: 0n, isolationLevel: 'read_committed' })
      expect(fetched.lastStableOffset).toBe(11n)
      expect(fetched.abortedTransactions).toEqual([{ producerId: p2, firstOffset: 7n }])
      // The broker still ships the aborted batch; filtering it is the client's job.
      expect(fetched.batches.map((b) => Number(b.baseOffset))).toEqual([0, 3, 4, 6, 7, 9, 10])

      const fromMiddle = await fetcher.fetch({ topic, partition: 0, fetchOffset: 7n, isolationLevel: 'read_committed' })
      expect(fromMiddle.abortedTransactions).toEqual([{ producerId: p2, firstOffset: 7n }])
      expect(fromMiddle.batches[0]?.baseOffset).toBe(7n)
    })

    it('a read_committed consumer sees only committed data', async () => {
      const consumer = kafkaFor(cluster).consumer({ groupId: `toolchain-group-${randomBytes(4).toString('hex')}` })
      const seen: Array<{ offset: number; value: string | undefined }> = []
      await consumer.connect()
      try {
        await consumer.subscribe({ topics: [produced.topic], fromBeginning: true })
        await new Promise<void>((resolve, reject) => {
          const guard = setTimeout(() => reject(new Error(`consumer saw only ${JSON.stringify(seen)}`)), 60_000)
          consumer
            .run({
              eachMessage: async ({ message }) => {
                seen.push({ offset: Number(message.offset), value: message.value?.toString() })
                if (message.offset === '10') {
                  clearTimeout(guard)
                  resolve()
                }
              },
            })
            .catch(reject)
        })
      } finally {
        await consumer.disconnect()
      }
      expect(seen).toEqual([
        { offset: 0, value: 'p1-0' },
        { offset: 1, value: 'p1-1' },
        { offset: 2, value: 'p1-2' },
        { offset: 3, value: 'p1-3' },
        { offset: 4, value: 'tx1-0' },
        { offset: 5, value: 'tx1-1' },
        { offset: 10, value: 'p1-4' },
      ])
    })

    it("Kafka's DumpLogSegments shows the same batches and markers in the broker's segment file", async () => {
      const { topic, idempotentProducerId: p1, transactionalProducerId: p2 } = produced
      const segment = join(cluster.logDir, `${topic}-0`, '00000000000000000000.log')
      const dumped = await dumpLogSegments(segment, { lib: getTestClusters().lib })
      const fetched = await fetcher.fetchToEnd({ topic, partition: 0, fetchOffset: 0n, isolationLevel: 'read_uncommitted' })

      expect(dumped.map(shapeOfDump)).toEqual(fetched.batches.map(shapeOfRaw))
      const shapes = dumped.map(shapeOfDump)
      expect(shapes.filter((b) => b.isControl)).toEqual(
        expectedLayout(Number(p1), Number(p2), shapes[0]?.producerEpoch ?? -2, shapes[2]?.producerEpoch ?? -2).filter((b) => b.isControl),
      )
      expect(dumped.every((b) => b.isValid && b.magic === 2 && b.compresscodec === 'none')).toBe(true)
      expect(dumped.map((b) => b.position)).toEqual(
        dumped.reduce<number[]>((positions, b, i) => [...positions, i === 0 ? 0 : (positions[i - 1] ?? 0) + (dumped[i - 1]?.size ?? 0)], []),
      )

      const dumpedMarkers = dumped.flatMap((b) => b.records.filter((r) => r.controlType !== undefined).map((r) => ({ offset: r.offset, type: r.controlType, coordinatorEpoch: r.coordinatorEpoch, producerId: b.producerId })))
      const rawMarkers = fetched.batches.flatMap((b) => b.records.flatMap((r) => (r.control ? [{ offset: Number(r.offset), type: r.control.typeName, coordinatorEpoch: r.control.coordinatorEpoch, producerId: Number(b.producerId) }] : [])))
      expect(dumpedMarkers).toEqual(rawMarkers)
      expect(dumpedMarkers.map(({ offset, type, producerId }) => ({ offset, type, producerId }))).toEqual([
        { offset: 6, type: 'COMMIT', producerId: Number(p2) },
        { offset: 9, type: 'ABORT', producerId: Number(p2) },
      ])
    })
  })
}

// ---- DumpLogSegments on a hand-written segment: an unknown control type (7 = MIRROR_PID_RESET) ----

function varint(value: number): Buffer {
  let v = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n))
  const bytes: number[] = []
  while (v >= 0x80n) {
    bytes.push(Number((v & 0x7fn) | 0x80n))
    v >>= 7n
  }
  bytes.push(Number(v))
  return Buffer.from(bytes)
}

function encodeRecord(offsetDelta: number, key: Buffer | null, value: Buffer | null): Buffer {
  const bytes = (b: Buffer | null) => (b === null ? [varint(-1)] : [varint(b.length), b])
  const body = Buffer.concat([Buffer.from([0]), varint(0), varint(offsetDelta), ...bytes(key), ...bytes(value), varint(0)])
  return Buffer.concat([varint(body.length), body])
}

function encodeBatch(o: { baseOffset: number; attributes: number; producerId: bigint; producerEpoch: number; baseSequence: number; records: Buffer[] }): Buffer {
  const afterCrc = Buffer.alloc(40)
  afterCrc.writeInt16BE(o.attributes, 0)
  afterCrc.writeInt32BE(o.records.length - 1, 2)
  afterCrc.writeBigInt64BE(1_700_000_000_000n, 6)
  afterCrc.writeBigInt64BE(1_700_000_000_000n, 14)
  afterCrc.writeBigInt64BE(o.producerId, 22)
  afterCrc.writeInt16BE(o.producerEpoch, 30)
  afterCrc.writeInt32BE(o.baseSequence, 32)
  afterCrc.writeInt32BE(o.records.length, 36)
  const crcInput = Buffer.concat([afterCrc, ...o.records])
  const head = Buffer.alloc(21)
  head.writeBigInt64BE(BigInt(o.baseOffset), 0)
  head.writeInt32BE(crcInput.length + 9, 8)
  head.writeInt32BE(5, 12)
  head.writeInt8(2, 16)
  head.writeUInt32BE(crc32c(crcInput) >>> 0, 17)
  return Buffer.concat([head, crcInput])
}

const controlKey = (type: number) => Buffer.from([0, 0, (type >> 8) & 0xff, type & 0xff])

describe('DumpLogSegments parsing of a hand-written segment', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorboard-dump-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('tolerates a control record type Kafka does not know (MIRROR_PID_RESET = 7)', async () => {
    const pidReset = controlKey(7)
    const file = join(dir, '00000000000000000040.log')
    writeFileSync(
      file,
      Buffer.concat([
        encodeBatch({ baseOffset: 40, attributes: 0x10, producerId: 77n, producerEpoch: 2, baseSequence: 0, records: [encodeRecord(0, Buffer.from('k'), Buffer.from('v')), encodeRecord(1, null, Buffer.from('w'))] }),
        encodeBatch({ baseOffset: 42, attributes: 0x30, producerId: 77n, producerEpoch: 2, baseSequence: -1, records: [encodeRecord(0, controlKey(1), Buffer.from([0, 0, 0, 0, 0, 3]))] }),
        encodeBatch({ baseOffset: 43, attributes: 0x20, producerId: 77n, producerEpoch: 2, baseSequence: -1, records: [encodeRecord(0, pidReset, Buffer.from([0, 0]))] }),
      ]),
    )
    const dumped = await dumpLogSegment(file)
    expect(dumped.logStartOffset).toBe(40)
    expect(dumped.invalidBytesAtEnd).toBe(0)
    expect(dumped.batches.map((b) => [b.baseOffset, b.lastOffset, b.producerId, b.producerEpoch, b.partitionLeaderEpoch, b.isTransactional, b.isControl, b.isValid])).toEqual([
      [40, 41, 77, 2, 5, true, false, true],
      [42, 42, 77, 2, 5, true, true, true],
      [43, 43, 77, 2, 5, false, true, true],
    ])
    expect(dumped.batches[0]?.records.map((r) => [r.offset, r.keySize, r.valueSize, r.sequence])).toEqual([[40, 1, 1, 0], [41, -1, 1, 1]])
    expect(dumped.batches[1]?.records[0]).toMatchObject({ offset: 42, controlType: 'COMMIT', controlTypeId: 1, coordinatorEpoch: 3 })
    expect(dumped.batches[2]?.records[0]).toMatchObject({ offset: 43, controlType: 'UNKNOWN', controlTypeId: 7, keySize: 4, valueSize: 2 })
    expect(dumped.batches[2]?.records[0]?.coordinatorEpoch).toBeUndefined()
    expect(decodeControlRecord(pidReset, Buffer.from([0, 0]), 43n)).toEqual({ version: 0, type: 7, typeName: 'MIRROR_PID_RESET' })
  })

  it('reports a torn tail instead of passing it as a clean segment', async () => {
    const whole = encodeBatch({ baseOffset: 0, attributes: 0, producerId: -1n, producerEpoch: -1, baseSequence: -1, records: [encodeRecord(0, null, Buffer.from('x'))] })
    const file = join(dir, '00000000000000000000.log')
    writeFileSync(file, Buffer.concat([whole, whole.subarray(0, 30)]))
    expect((await dumpLogSegment(file)).invalidBytesAtEnd).toBe(30)
    await expect(dumpLogSegments(file)).rejects.toMatchObject({ code: 'CORRUPT_RECORD' })
  })
})
