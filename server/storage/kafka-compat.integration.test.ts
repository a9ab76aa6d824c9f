import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeBatchRecords, splitBatches } from '@/lib/log/record-batch'
import { decodeTxnIndex } from '@/lib/log/segment-index'
import type { BatchHeader, LogRecord } from '@/lib/log/types'
import { dumpLogSegment, type DumpedBatch } from '@/scripts/kafka/dump-log-segments'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import { crc32c } from './crc32c'
import { PartitionLog } from './partition-log'
import { makeTempDir } from './testing/temp-dir'

/*
 * Byte compatibility with Apache Kafka 4.1 in both directions:
 * (a) Kafka's own DumpLogSegments reads the segments PartitionLog writes, batch for batch and record for record;
 * (b) a segment a real broker wrote (plain, idempotent, committed and aborted transactions) decodes here field
 *     for field, and appending it verbatim gives a byte-identical segment and the same aborted-transaction index.
 */

/** DumpLogSegments on index files (the helper only takes `.log`): Kafka checks each entry against the log. */
async function dumpIndexFiles(lib: string, files: string[]): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)('java', ['-Xmx256m', '-cp', `${lib}/*`, 'kafka.tools.DumpLogSegments', '--index-sanity-check', '--files', files.join(',')], { maxBuffer: 64 << 20 })
  const full = await promisify(execFile)('java', ['-Xmx256m', '-cp', `${lib}/*`, 'kafka.tools.DumpLogSegments', '--files', files.join(',')], { maxBuffer: 64 << 20 })
  return `${stdout}${stderr}${full.stdout}${full.stderr}`
}

interface Decoded {
  header: BatchHeader
  position: number
  records: LogRecord[]
}

function decodeSegment(bytes: Buffer): Decoded[] {
  return splitBatches(bytes, crc32c).map(({ header, position }) => ({ header, position, records: decodeBatchRecords(bytes.subarray(position, position + header.sizeInBytes), header) }))
}

/** Compares every field DumpLogSegments prints with what our codec decoded from the same bytes. */
function expectSameAsKafka(ours: Decoded[], kafka: DumpedBatch[]): void {
  expect(kafka.map((b) => b.baseOffset)).toEqual(ours.map((b) => b.header.baseOffset))
  ours.forEach(({ header, position, records }, i) => {
    const dumped = kafka[i]!
    expect({
      baseOffset: dumped.baseOffset,
      lastOffset: dumped.lastOffset,
      count: dumped.count,
      baseSequence: dumped.baseSequence,
      lastSequence: dumped.lastSequence,
      producerId: dumped.producerId,
      producerEpoch: dumped.producerEpoch,
      partitionLeaderEpoch: dumped.partitionLeaderEpoch,
      isTransactional: dumped.isTransactional,
      isControl: dumped.isControl,
      position: dumped.position,
      maxTimestamp: dumped.createTime,
      size: dumped.size,
      magic: dumped.magic,
      crc: dumped.crc,
      isValid: dumped.isValid,
      compression: dumped.compresscodec,
    }).toEqual({
      baseOffset: header.baseOffset,
      lastOffset: header.lastOffset,
      count: header.recordCount,
      baseSequence: header.baseSequence,
      lastSequence: header.lastSequence,
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      partitionLeaderEpoch: header.partitionLeaderEpoch,
      isTransactional: header.isTransactional,
      isControl: header.isControl,
      position,
      maxTimestamp: header.maxTimestamp,
      size: header.sizeInBytes,
      magic: 2,
      crc: header.crc,
      isValid: true,
      compression: 'none',
    })
    expect(dumped.records.map((r) => ({ offset: r.offset, timestamp: r.createTime, keySize: r.keySize, valueSize: r.valueSize, sequence: r.sequence, headerKeys: r.headerKeys, controlType: r.controlType, controlTypeId: r.controlTypeId, coordinatorEpoch: r.coordinatorEpoch }))).toEqual(
      records.map((r) => ({
        offset: r.offset,
        timestamp: r.timestamp,
        keySize: r.key?.length ?? -1,
        valueSize: r.value?.length ?? -1,
        sequence: r.sequence,
        headerKeys: r.headers.map((h) => h.key),
        controlType: r.type === 'DATA' ? undefined : r.type === 'MIRROR_PID_RESET' ? 'UNKNOWN' : r.type,
        controlTypeId: r.controlTypeId,
        coordinatorEpoch: r.coordinatorEpoch,
      })),
    )
  })
}

describe('Kafka byte compatibility', () => {
  let dir: string
  let cleanup: () => Promise<void>
  beforeAll(() => {
    ;({ dir, cleanup } = makeTempDir('mirrorboard-compat-'))
  })
  afterAll(() => cleanup())

  it("Kafka's DumpLogSegments reads our segments with every offset, producer, flag and marker as written", async () => {
    const { lib } = getTestClusters()
    const log = await PartitionLog.open(path.join(dir, 'ours'), { segmentBytes: 700, indexIntervalBytes: 100 })
    await log.appendAsLeader([{ key: 'k1', value: 'plain', headers: [{ key: 'trace', value: 'x' }, { key: 'span', value: null }] }, { value: null }], { leaderEpoch: 0 })
    await log.appendAsLeader([{ value: 'idem-1' }, { value: 'idem-2' }], { leaderEpoch: 0, producerId: 4000, producerEpoch: 2, baseSequence: 0 })
    await log.appendAsLeader([{ value: 'tx-a' }], { leaderEpoch: 1, producerId: 5000, producerEpoch: 0, baseSequence: 0, transactional: true })
    await log.appendAsLeader([{ value: 'tx-b' }], { leaderEpoch: 1, producerId: 5001, producerEpoch: 3, baseSequence: 0, transactional: true })
    await log.appendControl('COMMIT', { leaderEpoch: 1, producerId: 5000, producerEpoch: 0, coordinatorEpoch: 7 })
    await log.appendControl('ABORT', { leaderEpoch: 2, producerId: 5001, producerEpoch: 3, coordinatorEpoch: 7 })
    await log.appendControl('MIRROR_PID_RESET', { leaderEpoch: 2 })
    for (let i = 0; i < 8; i++) await log.appendAsLeader([{ key: `key-${i}`, value: 'v'.repeat(60) }], { leaderEpoch: 3 })
    await log.close()

    const segments = fs.readdirSync(path.join(dir, 'ours')).filter((f) => f.endsWith('.log')).sort()
    expect(segments.length).toBeGreaterThan(1)
    let batches = 0
    for (const segment of segments) {
      const file = path.join(dir, 'ours', segment)
      const dumped = await dumpLogSegment(file, { lib })
      expect(dumped.invalidBytesAtEnd).toBe(0)
      const ours = decodeSegment(fs.readFileSync(file))
      expectSameAsKafka(ours, dumped.batches)
      batches += dumped.batches.length
    }
    expect(batches).toBe(15)

    // Our sparse offset/time indexes and transaction index pass Kafka's own checks against the segments.
    const indexFiles = fs.readdirSync(path.join(dir, 'ours')).filter((f) => /\.(index|timeindex|txnindex)$/.test(f)).map((f) => path.join(dir, 'ours', f))
    const output = await dumpIndexFiles(lib, indexFiles)
    expect(output).not.toMatch(/mismatch|exception|error/i)
    expect(output).toMatch(/^offset: \d+ position: \d+$/m)
    expect(output).toMatch(/^timestamp: \d+ offset: \d+$/m)
    expect(output.match(/passed sanity check/g)?.length).toBe(indexFiles.filter((f) => !f.endsWith('.txnindex')).length)
    expect(output).toMatch(/producerId: 5001 firstOffset: 5 lastOffset: 7 lastStableOffset: 8/)
  })

  it('decodes a segment written by a real broker field for field and stores it byte for byte', async () => {
    const { a, lib } = getTestClusters()
    const topic = `storage-compat-${Date.now()}`
    const kafka = new Kafka({ clientId: 'storage-compat', brokers: [a.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    const plain = kafka.producer()
    const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    const transactional = kafka.producer({ transactionalId: `${topic}-tx`, idempotent: true, maxInFlightRequests: 1 })
    let abortedProducerId = -1
    try {
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true })
      await Promise.all([plain.connect(), idempotent.connect(), transactional.connect()])
      await plain.send({ topic, messages: [{ key: 'k', value: 'plain-1', headers: { h1: 'a' } }, { value: 'plain-2' }] })
      await idempotent.send({ topic, messages: [{ value: 'idem-1' }, { value: 'idem-2' }] })
      const committed = await transactional.transaction()
      await committed.send({ topic, messages: [{ value: 'tx-commit-1' }, { value: 'tx-commit-2' }] })
      await committed.commit()
      const aborted = await transactional.transaction()
      await aborted.send({ topic, messages: [{ value: 'tx-abort-1' }] })
      await aborted.abort()
      await plain.send({ topic, messages: [{ value: 'after' }] })
    } finally {
      await Promise.allSettled([plain.disconnect(), idempotent.disconnect(), transactional.disconnect(), admin.disconnect()])
    }

    const partitionDir = path.join(a.logDir, `${topic}-0`)
    const file = path.join(partitionDir, '00000000000000000000.log')
    // The coordinator writes transaction markers asynchronously after EndTxn returns: wait for both.
    let bytes = fs.readFileSync(file)
    for (const deadline = Date.now() + 20_000; decodeSegment(bytes).length < 7 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      bytes = fs.readFileSync(file)
    }
    const ours = decodeSegment(bytes)
    expect(ours.at(-1)!.header.lastOffset).toBe(9) // 8 data records + COMMIT + ABORT
    const dumped = await dumpLogSegment(file, { lib })
    expectSameAsKafka(ours, dumped.batches)
    const types = ours.flatMap((b) => b.records.map((r) => r.type))
    expect(types.filter((t) => t === 'COMMIT')).toHaveLength(1)
    expect(types.filter((t) => t === 'ABORT')).toHaveLength(1)
    const values = ours.flatMap((b) => b.records.filter((r) => r.type === 'DATA').map((r) => Buffer.from(r.value!).toString()))
    expect(values).toEqual(['plain-1', 'plain-2', 'idem-1', 'idem-2', 'tx-commit-1', 'tx-commit-2', 'tx-abort-1', 'after'])
    abortedProducerId = ours.find((b) => b.records.some((r) => r.type === 'ABORT'))!.header.producerId

    // Stored verbatim through the follower path: same bytes on disk, same transaction bookkeeping as the broker.
    const copy = await PartitionLog.open(path.join(dir, 'copy'))
    try {
      expect(await copy.appendAsFollower(bytes)).toMatchObject({ firstOffset: 0, batchCount: ours.length })
      expect(fs.readFileSync(path.join(dir, 'copy', '00000000000000000000.log')).equals(bytes)).toBe(true)
      expect(copy.openTransactions()).toEqual([])
      const abortedOurs = copy.abortedTransactions(0, Number.MAX_SAFE_INTEGER)
      expect(abortedOurs.map((t) => t.producerId)).toEqual([abortedProducerId])
      // The broker's own transaction index holds the same entry (producer, first offset, marker offset, LSO).
      expect(decodeTxnIndex(fs.readFileSync(path.join(partitionDir, '00000000000000000000.txnindex')))).toEqual(abortedOurs)
      expect(copy.epochEntries().map((e) => e.epoch)).toEqual([...new Set(ours.map((b) => b.header.partitionLeaderEpoch))])
    } finally {
      await copy.close()
    }
    expect(fs.readFileSync(path.join(dir, 'copy', 'leader-epoch-checkpoint'), 'utf8')).toBe(fs.readFileSync(path.join(partitionDir, 'leader-epoch-checkpoint'), 'utf8'))
  })
})
