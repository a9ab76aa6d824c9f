// Over 400 lines on purpose: the partition log's contract, a describe per behaviour (appends, segments, truncation, epochs, producers, transactions, follower appends); recovery is partition-log-recovery.test.ts.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { committedRecords, decodeRecords } from '@/lib/log/records-view'
import { PartitionLog } from './partition-log'

import { expectCode, partitionLogFixture, readAll, text, values } from './testing/partition-log-fixture'

const logs = partitionLogFixture()
const { open, abandon, segmentFiles } = logs

describe('appends and reads', () => {
  it('assigns consecutive offsets and reads back every record', async () => {
    const log = await open()
    expect(await log.appendAsLeader(values(3), { leaderEpoch: 0 })).toEqual({ baseOffset: 0, lastOffset: 2, duplicate: false })
    expect(await log.appendAsLeader([{ key: 'k', value: 'x', headers: [{ key: 'h', value: 'hv' }] }], { leaderEpoch: 0 })).toEqual({ baseOffset: 3, lastOffset: 3, duplicate: false })
    expect(log.logEndOffset).toBe(4)
    expect(log.durableEndOffset).toBe(4)
    const records = [...decodeRecords((await readAll(log)).batches)]
    expect(records.map((r) => [r.offset, text(r.key), text(r.value), r.producerId, r.leaderEpoch])).toEqual([
      [0, null, 'v0', null, 0],
      [1, null, 'v1', null, 0],
      [2, null, 'v2', null, 0],
      [3, 'k', 'x', null, 0],
    ])
    expect(records[3]!.headers.map((h) => [h.key, text(h.value)])).toEqual([['h', 'hv']])
  })

  it('reads up to the high watermark by default and returns whole batches containing the fetch offset', async () => {
    const log = await open()
    await log.appendAsLeader(values(3), { leaderEpoch: 0 })
    await log.appendAsLeader(values(2), { leaderEpoch: 0 })
    expect((await log.read(0, 1000)).batches).toEqual([])
    expect(log.updateHighWatermark(4)).toBe(4) // inside the second batch: it is not exposed yet
    expect((await log.read(0, 1000)).batches.map((b) => b.baseOffset)).toEqual([0])
    log.updateHighWatermark(100)
    expect(log.highWatermark).toBe(5)
    const result = await log.read(1, 1000)
    expect(result.batches.map((b) => [b.baseOffset, b.lastOffset])).toEqual([
      [0, 2],
      [3, 4],
    ])
    expect(result.records.length).toBe(result.batches.reduce((n, b) => n + b.sizeInBytes, 0))
    expect([...decodeRecords(result.batches, { fromOffset: 1 })].map((r) => r.offset)).toEqual([1, 2, 3, 4])
  })

  it('says the last offset it returned without building the batches, and builds them the same when asked', async () => {
    const log = await open()
    await log.appendAsLeader(values(3), { leaderEpoch: 0 })
    await log.appendAsLeader(values(2), { leaderEpoch: 0 })
    expect((await log.read(0, 1000)).lastOffset).toBeNull()
    log.updateHighWatermark(100)
    const result = await log.read(1, 1000)
    expect(result.lastOffset).toBe(4)
    expect(result.batches.map((b) => b.lastOffset)).toEqual([2, 4])
    // Built once: the same array each time it is read.
    expect(result.batches).toBe(result.batches)
  })

  it('returns at least one batch even beyond maxBytes, then stops at maxBytes', async () => {
    const log = await open()
    for (let i = 0; i < 5; i++) await log.appendAsLeader(values(10), { leaderEpoch: 0 })
    log.updateHighWatermark(log.logEndOffset)
    const size = (await log.read(0, 1)).batches[0]!.sizeInBytes
    expect((await log.read(0, 1)).batches).toHaveLength(1)
    expect((await log.read(0, size * 2 + 1)).batches).toHaveLength(2)
    expect((await log.read(25, size * 3, { maxOffset: 40 })).batches.map((b) => b.baseOffset)).toEqual([20, 30])
  })

  it('refuses fetch offsets outside [logStartOffset, logEndOffset]', async () => {
    const log = await open()
    await log.appendAsLeader(values(2), { leaderEpoch: 0 })
    await expectCode(log.read(3, 100), 'OFFSET_OUT_OF_RANGE')
    expect((await log.read(2, 100)).batches).toEqual([])
  })

  it('refuses a leader epoch older than the log and leaves the log unchanged', async () => {
    const log = await open()
    await log.appendAsLeader(values(1), { leaderEpoch: 5 })
    await expectCode(log.appendAsLeader(values(1), { leaderEpoch: 4 }), 'FENCED_LEADER_EPOCH')
    await expectCode(log.appendAsLeader([], { leaderEpoch: 5 }), 'VALIDATION_FAILED')
    await expectCode(log.appendAsLeader(values(1), { leaderEpoch: 5, transactional: true }), 'VALIDATION_FAILED')
    expect(log.logEndOffset).toBe(1)
  })

  it('refuses a batch larger than maxMessageBytes', async () => {
    const log = await open({ maxMessageBytes: 500 })
    await expectCode(log.appendAsLeader([{ value: 'x'.repeat(600) }], { leaderEpoch: 0 }), 'RECORD_TOO_LARGE')
    expect(log.logEndOffset).toBe(0)
  })

  it('shares one fdatasync between appends issued together (group commit)', async () => {
    const log = await open()
    await log.appendAsLeader(values(1), { leaderEpoch: 0 })
    const spy = vi.spyOn(fs, 'fdatasync')
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => log.appendAsLeader(values(2), { leaderEpoch: 0 })))
      expect(results.map((r) => r.baseOffset)).toEqual(Array.from({ length: 50 }, (_, i) => 1 + i * 2))
      expect(spy.mock.calls.length).toBeGreaterThanOrEqual(1)
      expect(spy.mock.calls.length).toBeLessThanOrEqual(2)
    } finally {
      spy.mockRestore()
    }
    expect(log.durableEndOffset).toBe(101)
  })

  it('finds the first offset at or after a timestamp', async () => {
    let now = 1000
    const log = await open({ now: () => now, indexIntervalBytes: 0 })
    for (let i = 0; i < 10; i++) {
      await log.appendAsLeader([{ value: 'a' }, { value: 'b', timestamp: now + 5 }], { leaderEpoch: 0 })
      now += 10
    }
    expect(await log.offsetForTimestamp(0)).toMatchObject({ offset: 0, timestamp: 1000 })
    expect(await log.offsetForTimestamp(1003)).toMatchObject({ offset: 1, timestamp: 1005 })
    expect(await log.offsetForTimestamp(1040)).toMatchObject({ offset: 8, timestamp: 1040 })
    expect(await log.offsetForTimestamp(1096)).toBeNull()
  })
})

describe('segments', () => {
  it('rolls by size, writes Kafka-named files and reads across segments', async () => {
    const log = await open({ segmentBytes: 1024, indexIntervalBytes: 100 })
    for (let i = 0; i < 30; i++) await log.appendAsLeader(values(3, `r${i}-`), { leaderEpoch: 0 })
    const files = segmentFiles()
    expect(files.length).toBeGreaterThanOrEqual(3)
    expect(files[0]).toBe('00000000000000000000.log')
    for (const f of files) expect(fs.statSync(path.join(logs.dir(), f)).size).toBeLessThanOrEqual(1024)
    const rolled = files[0]!.replace('.log', '')
    expect(fs.existsSync(path.join(logs.dir(), `${rolled}.index`))).toBe(true)
    expect(fs.existsSync(path.join(logs.dir(), `${rolled}.timeindex`))).toBe(true)
    const records = [...decodeRecords((await readAll(log)).batches)]
    expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 90 }, (_, i) => i))
    // every offset is found through the sparse index
    log.updateHighWatermark(log.logEndOffset)
    for (const offset of [0, 7, 44, 45, 46, 89]) {
      const first = (await log.read(offset, 1)).batches[0]!
      expect(first.baseOffset <= offset && offset <= first.lastOffset).toBe(true)
    }
    await log.close()
    const again = await open({ segmentBytes: 1024 })
    expect(again.logEndOffset).toBe(90)
    expect([...decodeRecords((await readAll(again)).batches)].map((r) => text(r.value))).toEqual(records.map((r) => text(r.value)))
  })

  it('reads into a caller\'s buffer across segments: the same batches as a fresh read, as one view of it; a fresh buffer when they do not fit', async () => {
    const log = await open({ segmentBytes: 1024 })
    for (let i = 0; i < 30; i++) await log.appendAsLeader(values(3, `r${i}-`), { leaderEpoch: 0 })
    log.updateHighWatermark(log.logEndOffset)
    expect(segmentFiles().length).toBeGreaterThanOrEqual(3)
    const into = Buffer.alloc(8192, 0xee)
    for (const offset of [0, 10, 44]) {
      const fresh = await log.read(offset, 3000)
      const reused = await log.read(offset, 3000, { into })
      expect(fresh.records.length).toBeGreaterThan(1024) // more than one segment's worth
      expect(Buffer.compare(reused.records, fresh.records)).toBe(0)
      expect(reused.records.buffer).toBe(into.buffer)
      expect(reused.records.byteOffset).toBe(into.byteOffset)
      expect(reused.batches.map((b) => [b.baseOffset, Buffer.compare(b.raw, fresh.batches.find((f) => f.baseOffset === b.baseOffset)!.raw)])).toEqual(fresh.batches.map((b) => [b.baseOffset, 0]))
    }
    const small = Buffer.alloc(16)
    const fallback = await log.read(0, 3000, { into: small })
    expect(fallback.records.buffer).not.toBe(small.buffer)
    expect(Buffer.compare(fallback.records, (await log.read(0, 3000)).records)).toBe(0)
  })

  it('answers the header of the batch holding an offset, across segments, only below the bound', async () => {
    const log = await open({ segmentBytes: 400 })
    for (let i = 0; i < 20; i++) await log.appendAsLeader(values(3, `r${i}-`), { leaderEpoch: 0 })
    log.updateHighWatermark(log.logEndOffset)
    expect(segmentFiles().length).toBeGreaterThanOrEqual(3)
    for (const offset of [0, 4, 29, 30, 59]) {
      const read = (await log.read(offset, 1)).batches[0]!
      const header = log.batchHeaderAt(offset, log.logEndOffset)
      expect(header && [header.baseOffset, header.lastOffset, header.baseTimestamp, header.sizeInBytes]).toEqual([read.baseOffset, read.lastOffset, read.baseTimestamp, read.sizeInBytes])
    }
    expect(log.batchHeaderAt(57, 59)).toBeNull() // the batch 57–59 ends at the bound
    expect(log.batchHeaderAt(60, 100)).toBeNull() // the log end
  })

  it('deletes whole segments by retention.bytes, never past the high watermark, and persists the log start offset', async () => {
    const log = await open({ segmentBytes: 600 })
    for (let i = 0; i < 20; i++) await log.appendAsLeader(values(2), { leaderEpoch: 0 })
    const before = segmentFiles().length
    expect(await log.applyRetention()).toEqual({ deletedSegments: 0, logStartOffset: 0 }) // retentionBytes unlimited, time not expired
    const limited = log as unknown as { config: { retentionBytes: number } }
    limited.config.retentionBytes = 700
    expect((await log.applyRetention()).deletedSegments).toBe(0) // HW is 0: nothing may go
    log.updateHighWatermark(log.logEndOffset)
    const result = await log.applyRetention()
    expect(result.deletedSegments).toBeGreaterThan(0)
    expect(segmentFiles().length).toBe(before - result.deletedSegments)
    expect(log.logStartOffset).toBe(Number(segmentFiles()[0]!.slice(0, 20)))
    await expectCode(log.read(0, 100), 'OFFSET_OUT_OF_RANGE')
    const start = log.logStartOffset
    await log.close()
    expect((await open({ segmentBytes: 600 })).logStartOffset).toBe(start)
  })

  it('deletes segments by retention.ms using their largest timestamp', async () => {
    let now = 0
    const log = await open({ segmentBytes: 400, retentionMs: 100, now: () => now })
    for (let i = 0; i < 10; i++) {
      await log.appendAsLeader(values(2), { leaderEpoch: 0 })
      now += 30
    }
    log.updateHighWatermark(log.logEndOffset)
    const removed = (await log.applyRetention()).deletedSegments
    expect(removed).toBeGreaterThan(0)
    const remaining = (await readAll(log)).batches
    expect(remaining.every((b) => now - b.maxTimestamp <= 100 + 90)).toBe(true)
  })

  it('rolls by segment.ms', async () => {
    let now = 0
    const log = await open({ segmentMs: 1000, now: () => now })
    await log.appendAsLeader(values(1), { leaderEpoch: 0 })
    now = 2000
    await log.appendAsLeader(values(1), { leaderEpoch: 0 })
    expect(segmentFiles()).toEqual(['00000000000000000000.log', '00000000000000000001.log'])
  })

  it('deleteRecordsBefore moves the log start offset (not past the HW) and survives a crash', async () => {
    const log = await open({ segmentBytes: 500 })
    for (let i = 0; i < 10; i++) await log.appendAsLeader(values(3), { leaderEpoch: 0 })
    await expectCode(log.deleteRecordsBefore(5), 'OFFSET_OUT_OF_RANGE')
    log.updateHighWatermark(30)
    const second = Number(segmentFiles()[1]!.slice(0, 20))
    const target = second + 1 // inside the second segment's first batch
    expect(await log.deleteRecordsBefore(target)).toBe(target)
    expect(log.logStartOffset).toBe(target)
    expect(segmentFiles()[0]).toBe(segmentFiles().find((f) => Number(f.slice(0, 20)) === second))
    await expectCode(log.read(target - 1, 100), 'OFFSET_OUT_OF_RANGE')
    expect((await log.read(target, 100)).batches[0]!.baseOffset).toBe(second) // the batch holding the new start
    expect(log.epochEntries()).toEqual([{ epoch: 0, startOffset: target }])
    abandon(log)
    const again = await open({ segmentBytes: 500 })
    expect(again.logStartOffset).toBe(target)
    expect(again.logEndOffset).toBe(30)
  })
})

describe('truncation', () => {
  it('cuts whole batches: an offset inside a batch removes that batch too', async () => {
    const log = await open()
    await log.appendAsLeader(values(3), { leaderEpoch: 0 })
    await log.appendAsLeader(values(3), { leaderEpoch: 1 })
    await log.appendAsLeader(values(3), { leaderEpoch: 2 })
    log.updateHighWatermark(9)
    expect(await log.truncateTo(4)).toEqual({ removedRecords: 6, logEndOffset: 3 })
    expect(log.highWatermark).toBe(3)
    expect(log.epochEntries()).toEqual([{ epoch: 0, startOffset: 0 }])
    expect(fs.statSync(path.join(logs.dir(), '00000000000000000000.log')).size).toBe((await log.read(0, 1 << 20, { maxOffset: 3 })).records.length)
    expect(await log.appendAsLeader(values(1), { leaderEpoch: 3 })).toMatchObject({ baseOffset: 3 })
    expect(await log.truncateTo(100)).toEqual({ removedRecords: 0, logEndOffset: 4 })
  })

  it('truncates across segments and keeps the remaining segments readable after reopen', async () => {
    const log = await open({ segmentBytes: 400 })
    for (let i = 0; i < 20; i++) await log.appendAsLeader(values(2), { leaderEpoch: Math.floor(i / 5) })
    const segmentsBefore = segmentFiles().length
    await log.truncateTo(11)
    expect(log.logEndOffset).toBe(10)
    expect(segmentFiles().length).toBeLessThan(segmentsBefore)
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 10 },
    ].filter((e) => e.startOffset < 10))
    await log.appendAsLeader(values(2), { leaderEpoch: 7 })
    abandon(log)
    const again = await open({ segmentBytes: 400 })
    expect(again.logEndOffset).toBe(12)
    expect([...decodeRecords((await readAll(again)).batches)].map((r) => r.offset)).toEqual(Array.from({ length: 12 }, (_, i) => i))
    expect(again.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 7, startOffset: 10 },
    ])
  })

  it('rebuilds producer state: a transaction whose marker was cut is open again, and its abort is forgotten', async () => {
    const log = await open()
    await log.appendAsLeader(values(2), { leaderEpoch: 0, producerId: 9, producerEpoch: 0, baseSequence: 0, transactional: true })
    await log.appendControl('ABORT', { leaderEpoch: 0, producerId: 9, producerEpoch: 0 })
    expect(log.abortedTransactions(0, 10)).toHaveLength(1)
    expect(log.openTransactions()).toEqual([])
    await log.truncateTo(2)
    expect(log.openTransactions()).toEqual([{ producerId: 9, producerEpoch: 0, firstOffset: 0 }])
    expect(log.abortedTransactions(0, 10)).toEqual([])
    log.updateHighWatermark(2)
    expect(log.lastStableOffset).toBe(0)
  })

  it('rejects appends that are cut before they became durable', async () => {
    const log = await open()
    await log.appendAsLeader(values(2), { leaderEpoch: 0 })
    const pending = log.appendAsLeader(values(2), { leaderEpoch: 0 })
    const truncation = log.truncateTo(2)
    await expectCode(pending, 'LOG_TRUNCATED')
    await truncation
    expect(log.logEndOffset).toBe(2)
  })

  it('truncateFullyAndStartAt empties the log and restarts it at the offset', async () => {
    const log = await open({ segmentBytes: 400 })
    for (let i = 0; i < 10; i++) await log.appendAsLeader(values(2), { leaderEpoch: 1, producerId: 3, producerEpoch: 0, baseSequence: i * 2 })
    expect(await log.truncateFullyAndStartAt(500)).toEqual({ removedRecords: 20 })
    expect([log.logStartOffset, log.logEndOffset, log.highWatermark, log.latestEpoch()]).toEqual([500, 500, 500, -1])
    expect(log.producerStates()).toEqual([])
    expect(segmentFiles()).toEqual(['00000000000000000500.log'])
    expect(await log.appendAsLeader(values(1), { leaderEpoch: 0 })).toMatchObject({ baseOffset: 500 })
    abandon(log)
    const again = await open()
    expect([again.logStartOffset, again.logEndOffset, again.latestEpoch()]).toEqual([500, 501, 0])
  })
})

describe('leader epochs', () => {
  it('answers endOffsetForEpoch from the batches written in each epoch and keeps it across restarts', async () => {
    const log = await open({ segmentBytes: 300 })
    await log.appendAsLeader(values(2), { leaderEpoch: 1 })
    await log.appendAsLeader(values(2), { leaderEpoch: 1 })
    await log.appendAsLeader(values(3), { leaderEpoch: 4 })
    await log.appendAsLeader(values(1), { leaderEpoch: 6 })
    const check = (l: PartitionLog) => {
      expect(l.epochEntries()).toEqual([
        { epoch: 1, startOffset: 0 },
        { epoch: 4, startOffset: 4 },
        { epoch: 6, startOffset: 7 },
      ])
      expect(l.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 1, endOffset: 4 })
      expect(l.endOffsetForEpoch(3)).toEqual({ leaderEpoch: 1, endOffset: 4 })
      expect(l.endOffsetForEpoch(6)).toEqual({ leaderEpoch: 6, endOffset: 8 })
      expect(l.endOffsetForEpoch(0)).toEqual({ leaderEpoch: 0, endOffset: 0 })
      expect(l.endOffsetForEpoch(9)).toEqual({ leaderEpoch: -1, endOffset: -1 })
      expect(l.epochForOffset(5)).toBe(4)
    }
    check(log)
    expect(fs.readFileSync(path.join(logs.dir(), 'leader-epoch-checkpoint'), 'utf8')).toMatch(/^0\n\d+\n/)
    abandon(log)
    check(await open({ segmentBytes: 300 }))
  })
})

describe('idempotent producers', () => {
  it('returns the original offsets for a retried batch without appending it', async () => {
    const log = await open()
    const producer = { leaderEpoch: 0, producerId: 1000, producerEpoch: 0 }
    await log.appendAsLeader(values(3), { ...producer, baseSequence: 0 })
    await log.appendAsLeader(values(2), { ...producer, baseSequence: 3 })
    expect(await log.appendAsLeader(values(3), { ...producer, baseSequence: 0 })).toEqual({ baseOffset: 0, lastOffset: 2, duplicate: true })
    expect(log.logEndOffset).toBe(5)
  })

  it('refuses a sequence gap and an older producer epoch, changing nothing', async () => {
    const log = await open()
    await log.appendAsLeader(values(3), { leaderEpoch: 0, producerId: 1, producerEpoch: 2, baseSequence: 0 })
    await expectCode(log.appendAsLeader(values(1), { leaderEpoch: 0, producerId: 1, producerEpoch: 2, baseSequence: 5 }), 'OUT_OF_ORDER_SEQUENCE')
    await expectCode(log.appendAsLeader(values(1), { leaderEpoch: 0, producerId: 1, producerEpoch: 1, baseSequence: 3 }), 'INVALID_PRODUCER_EPOCH')
    await expectCode(log.appendAsLeader(values(1), { leaderEpoch: 0, producerId: 1, producerEpoch: 2 }), 'VALIDATION_FAILED')
    expect(log.logEndOffset).toBe(3)
    expect(log.producerStates()).toMatchObject([{ producerId: 1, producerEpoch: 2, lastSequence: 2, lastOffset: 2 }])
  })

  it('still detects duplicates after a restart (producer snapshot)', async () => {
    const log = await open()
    await log.appendAsLeader(values(2), { leaderEpoch: 0, producerId: 7, producerEpoch: 0, baseSequence: 0 })
    await log.close()
    const again = await open()
    expect(await again.appendAsLeader(values(2), { leaderEpoch: 0, producerId: 7, producerEpoch: 0, baseSequence: 0 })).toMatchObject({ duplicate: true, baseOffset: 0 })
  })
})

describe('transactions', () => {
  async function interleaved(log: PartitionLog) {
    const p1 = { leaderEpoch: 0, producerId: 1, producerEpoch: 0, transactional: true }
    const p2 = { leaderEpoch: 0, producerId: 2, producerEpoch: 0, transactional: true }
    await log.appendAsLeader([{ value: 'plain-0' }], { leaderEpoch: 0 }) // 0
    await log.appendAsLeader([{ value: 'p1-a' }], { ...p1, baseSequence: 0 }) // 1
    await log.appendAsLeader([{ value: 'p2-a' }], { ...p2, baseSequence: 0 }) // 2
    await log.appendAsLeader([{ value: 'p1-b' }], { ...p1, baseSequence: 1 }) // 3
    await log.appendControl('ABORT', { leaderEpoch: 0, producerId: 1, producerEpoch: 0, coordinatorEpoch: 3 }) // 4
    await log.appendAsLeader([{ value: 'plain-5' }], { leaderEpoch: 0 }) // 5
    await log.appendAsLeader([{ value: 'p2-b' }], { ...p2, baseSequence: 1 }) // 6
    await log.appendControl('COMMIT', { leaderEpoch: 0, producerId: 2, producerEpoch: 0, coordinatorEpoch: 3 }) // 7
    await log.appendAsLeader([{ value: 'p1-c' }], { ...p1, baseSequence: 2 }) // 8: open
  }

  it('separates read_committed from read_uncommitted and keeps the LSO at the open transaction', async () => {
    const log = await open()
    await interleaved(log)
    log.updateHighWatermark(log.logEndOffset)
    expect(log.openTransactions()).toEqual([{ producerId: 1, producerEpoch: 0, firstOffset: 8 }])
    expect(log.lastStableOffset).toBe(8)
    const uncommitted = await log.read(0, 1 << 20)
    expect([...decodeRecords(uncommitted.batches)].map((r) => `${r.offset}:${r.type}`)).toEqual(['0:DATA', '1:DATA', '2:DATA', '3:DATA', '4:ABORT', '5:DATA', '6:DATA', '7:COMMIT', '8:DATA'])
    expect(uncommitted.abortedTransactions).toEqual([])
    const committed = await log.read(0, 1 << 20, { isolation: 'read_committed' })
    expect(committed.batches.at(-1)!.lastOffset).toBe(7)
    expect(committed.abortedTransactions).toEqual([{ producerId: 1, firstOffset: 1 }])
    expect([...committedRecords(committed)].map((r) => text(r.value))).toEqual(['plain-0', 'p2-a', 'plain-5', 'p2-b'])
    expect(log.abortedTransactions(0, 100)).toEqual([{ producerId: 1, firstOffset: 1, lastOffset: 4, lastStableOffset: 2 }])
  })

  it('keeps open transactions, aborted index and LSO across clean and unclean restarts', async () => {
    const log = await open({ segmentBytes: 350 })
    await interleaved(log)
    log.updateHighWatermark(log.logEndOffset)
    await log.checkpointHighWatermark()
    abandon(log)
    for (const reopen of ['unclean', 'clean']) {
      const again = await open({ segmentBytes: 350 })
      expect(again.openTransactions(), reopen).toEqual([{ producerId: 1, producerEpoch: 0, firstOffset: 8 }])
      expect(again.highWatermark).toBe(9)
      expect(again.lastStableOffset).toBe(8)
      expect(again.abortedTransactions(0, 100)).toEqual([{ producerId: 1, firstOffset: 1, lastOffset: 4, lastStableOffset: 2 }])
      await again.close()
      abandon(again)
    }
    expect(fs.readdirSync(logs.dir()).filter((f) => f.endsWith('.txnindex'))).toHaveLength(1)
  })

  it('fences markers with an older coordinator epoch', async () => {
    const log = await open()
    await interleaved(log)
    await expectCode(log.appendControl('COMMIT', { leaderEpoch: 0, producerId: 1, producerEpoch: 0, coordinatorEpoch: 2 }), 'TRANSACTION_COORDINATOR_FENCED')
    await expectCode(log.appendAsLeader([{ value: 'x' }], { leaderEpoch: 0, producerId: 1, producerEpoch: 0, baseSequence: 3 }), 'INVALID_TXN_STATE')
  })
})

describe('MIRROR_PID_RESET', () => {
  it('clears all producer state, also after clean and unclean restarts', async () => {
    const log = await open()
    await log.appendAsLeader(values(2), { leaderEpoch: 0, producerId: 1, producerEpoch: 4, baseSequence: 0 })
    await log.appendAsLeader(values(1), { leaderEpoch: 0, producerId: 2, producerEpoch: 0, baseSequence: 0, transactional: true })
    await log.appendControl('ABORT', { leaderEpoch: 3, producerId: 2, producerEpoch: 0 })
    expect(await log.appendControl('MIRROR_PID_RESET', { leaderEpoch: 3 })).toEqual({ baseOffset: 4, lastOffset: 4, duplicate: false })
    expect(log.producerStates()).toEqual([])
    const [reset] = [...decodeRecords((await readAll(log)).batches)].filter((r) => r.type === 'MIRROR_PID_RESET')
    expect(reset).toMatchObject({ offset: 4, producerId: null, leaderEpoch: 3, controlTypeId: 7 })
    abandon(log)
    const unclean = await open()
    expect(unclean.producerStates()).toEqual([])
    expect(unclean.openTransactions()).toEqual([])
    // a new local producer that happens to reuse id 1 is neither fenced nor out of sequence
    expect(await unclean.appendAsLeader(values(1), { leaderEpoch: 3, producerId: 1, producerEpoch: 0, baseSequence: 0 })).toMatchObject({ baseOffset: 5 })
    await unclean.close()
    abandon(unclean)
    const clean = await open()
    expect(clean.producerStates().map((p) => [p.producerId, p.producerEpoch])).toEqual([[1, 0]])
  })
})

describe('follower appends', () => {
  it('copies batches byte for byte with offsets, epochs, producer state and markers', async () => {
    const leader = await open({}, path.join(logs.dir(), 'leader'))
    await leader.appendAsLeader(values(2), { leaderEpoch: 2 })
    await leader.appendAsLeader(values(2), { leaderEpoch: 2, producerId: 5, producerEpoch: 1, baseSequence: 0, transactional: true })
    await leader.appendControl('ABORT', { leaderEpoch: 3, producerId: 5, producerEpoch: 1 })
    await leader.appendAsLeader(values(1), { leaderEpoch: 3, producerId: 6, producerEpoch: 0, baseSequence: 0, transactional: true })
    const fetched = await leader.read(0, 1 << 20, { maxOffset: leader.logEndOffset })
    const follower = await open({}, path.join(logs.dir(), 'follower'))
    expect(await follower.appendAsFollower(fetched.records)).toEqual({ firstOffset: 0, lastOffset: 5, batchCount: 4, lastBatchEpoch: 3 })
    expect(follower.epochEntries()).toEqual(leader.epochEntries())
    expect(follower.openTransactions()).toEqual(leader.openTransactions())
    expect(follower.abortedTransactions(0, 100)).toEqual(leader.abortedTransactions(0, 100))
    expect(fs.readFileSync(path.join(logs.dir(), 'follower', '00000000000000000000.log')).equals(fs.readFileSync(path.join(logs.dir(), 'leader', '00000000000000000000.log')))).toBe(true)
  })

  it('refuses batches that do not continue the log, bad CRCs and older epochs, changing nothing', async () => {
    const leader = await open({}, path.join(logs.dir(), 'leader'))
    await leader.appendAsLeader(values(2), { leaderEpoch: 1 })
    await leader.appendAsLeader(values(2), { leaderEpoch: 1 })
    const { records, batches } = await leader.read(0, 1 << 20, { maxOffset: 4 })
    const follower = await open({}, path.join(logs.dir(), 'follower'))
    await expectCode(follower.appendAsFollower(batches[1]!.raw), 'INVALID_RECORD')
    const corrupt = Buffer.from(records)
    corrupt[corrupt.length - 1]! ^= 0xff
    await expectCode(follower.appendAsFollower(corrupt), 'CORRUPT_RECORD')
    expect(follower.logEndOffset).toBe(0)
    await follower.appendAsFollower(batches[0]!.raw)
    const older = await open({}, path.join(logs.dir(), 'older'))
    await older.appendAsLeader(values(2), { leaderEpoch: 0 })
    await older.appendAsLeader(values(2), { leaderEpoch: 0 })
    const stale = (await older.read(2, 1 << 20, { maxOffset: 4 })).records
    await expectCode(follower.appendAsFollower(stale), 'INVALID_RECORD')
    expect(follower.logEndOffset).toBe(2)
  })

  it('accepts offset gaps when asked (compacted sources)', async () => {
    const leader = await open({}, path.join(logs.dir(), 'leader'))
    await leader.truncateFullyAndStartAt(10)
    await leader.appendAsLeader(values(2), { leaderEpoch: 0 })
    const follower = await open({}, path.join(logs.dir(), 'follower'))
    const records = (await leader.read(10, 1 << 20, { maxOffset: 12 })).records
    await expectCode(follower.appendAsFollower(records), 'INVALID_RECORD')
    expect(await follower.appendAsFollower(records, { allowOffsetGaps: true })).toMatchObject({ firstOffset: 10, lastOffset: 11 })
    expect(follower.logEndOffset).toBe(12)
  })
})

describe('offset gaps beyond the relative-offset range', () => {
  it('starts a new segment when a batch is more than 2^31 offsets past the segment base', async () => {
    const leader = await open({}, path.join(logs.dir(), 'leader'))
    await leader.truncateFullyAndStartAt(5_000_000_000)
    await leader.appendAsLeader(values(2), { leaderEpoch: 0 })
    const follower = await open({}, path.join(logs.dir(), 'follower'))
    await follower.appendAsFollower((await leader.read(5_000_000_000, 1 << 20, { maxOffset: leader.logEndOffset })).records, { allowOffsetGaps: true })
    expect(segmentFiles(path.join(logs.dir(), 'follower'))).toEqual(['00000000000000000000.log', '00000000005000000000.log'])
    follower.updateHighWatermark(follower.logEndOffset)
    expect((await follower.read(5_000_000_001, 100)).batches.map((b) => b.baseOffset)).toEqual([5_000_000_000])
  })
})
