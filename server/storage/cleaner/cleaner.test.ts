import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { committedRecords, decodeRecords } from '@/lib/log/records-view'
import type { LogRecord } from '@/lib/log/types'
import { PartitionLog } from '../partition-log'
import { makeTempDir } from '../testing/temp-dir'
import type { PartitionLogConfig } from '../types'
import { compactionConfigOfTopic } from './cleaner-config'
import { LogCleaner } from './log-cleaner'
import { cleanedFileName, swapFileName } from './segment-swap'

let dir: string
let cleanup: () => Promise<void>
const opened: PartitionLog[] = []
// Tests drive passes themselves; this cleaner's background checks are stopped so they never interleave.
const manualCleaner = new LogCleaner({ backoffMs: 3_600_000 })
manualCleaner.stop()

beforeEach(() => {
  ;({ dir, cleanup } = makeTempDir('mirrorboard-cleaner-'))
})
afterEach(async () => {
  for (const log of opened.splice(0)) await log.close().catch(() => undefined)
  await cleanup()
})

async function open(config: PartitionLogConfig = {}, at = dir): Promise<PartitionLog> {
  const log = await PartitionLog.open(at, { segmentBytes: 1024, cleanupPolicy: 'compact', cleaner: manualCleaner, ...config })
  opened.push(log)
  return log
}

async function close(log: PartitionLog): Promise<void> {
  opened.splice(opened.indexOf(log), 1)
  await log.close()
}

const text = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString())

async function records(log: PartitionLog, isolation: 'read_uncommitted' | 'read_committed' = 'read_uncommitted'): Promise<LogRecord[]> {
  const read = await log.read(log.logStartOffset, 64 << 20, isolation === 'read_committed' ? { isolation } : { maxOffset: Number.MAX_SAFE_INTEGER })
  return isolation === 'read_committed' ? [...committedRecords(read)] : [...decodeRecords(read.batches)]
}

const view = (rs: LogRecord[]) => rs.filter((r) => r.type === 'DATA').map((r) => [r.offset, text(r.key), text(r.value)])

/** Latest record per key of a record list (what a compacted topic must keep), as [offset, key, value]. */
function latestPerKey(rs: LogRecord[]): Array<[number, string | null, string | null]> {
  const latest = new Map<string, [number, string | null, string | null]>()
  for (const r of rs) if (r.type === 'DATA') latest.set(text(r.key)!, [r.offset, text(r.key), text(r.value)])
  return [...latest.values()].sort((a, b) => a[0] - b[0])
}

/** Writes `rounds` updates of each of `keys` keys, one record per batch, and makes them all committed (HW = LEO). */
async function writeUpdates(log: PartitionLog, keys: number, rounds: number, valuePrefix = 'r'): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < keys; k++) await log.appendAsLeader([{ key: `key-${k}`, value: `${valuePrefix}${round}-${'x'.repeat(40)}` }], { leaderEpoch: 0 })
  }
  log.updateHighWatermark(log.logEndOffset)
}

describe('log compaction keeps the latest record per key', () => {
  it('keeps the latest value of every key at its original offset, leaving gaps, and survives a reopen', async () => {
    const log = await open()
    await writeUpdates(log, 5, 20)
    const before = await records(log)
    const outcome = await log.compact()
    expect(outcome.kind).toBe('cleaned')
    const after = await records(log)
    // Only the active segment may still hold older versions; everything below it is one record per key.
    const activeBase = Number(fs.readdirSync(dir).filter((f) => f.endsWith('.log')).sort().at(-1)!.slice(0, 20))
    const cleanedPart = after.filter((r) => r.offset < activeBase)
    expect(new Set(cleanedPart.map((r) => text(r.key))).size).toBe(cleanedPart.length)
    expect(after.length).toBeLessThan(before.length)
    expect(latestPerKey(after)).toEqual(latestPerKey(before))
    // Every surviving record is the record that was written at that offset.
    const written = new Map(before.map((r) => [r.offset, text(r.value)]))
    for (const r of after) expect(text(r.value)).toBe(written.get(r.offset))
    expect(log.logEndOffset).toBe(100)
    await close(log)
    const reopened = await open()
    expect(view(await records(reopened))).toEqual(view(after))
    expect(reopened.logEndOffset).toBe(100)
  })

  it('never cleans the active segment, nor anything at or above the last stable offset', async () => {
    const log = await open()
    await writeUpdates(log, 3, 10)
    log.updateHighWatermark(0)
    expect((await log.compact()).kind).toBe('nothing-to-clean')
    log.updateHighWatermark(log.logEndOffset)
    const activeBase = Number(fs.readdirSync(dir).filter((f) => f.endsWith('.log')).sort().at(-1)!.slice(0, 20))
    const activeBefore = (await records(log)).filter((r) => r.offset >= activeBase)
    await log.compact()
    expect(view((await records(log)).filter((r) => r.offset >= activeBase))).toEqual(view(activeBefore))
  })

  it('drops a tombstone only once delete.retention.ms has passed since the clean that first saw it', async () => {
    let now = 1_000_000
    const log = await open({ deleteRetentionMs: 60_000, now: () => now })
    await writeUpdates(log, 4, 6)
    await log.appendAsLeader([{ key: 'key-1', value: null }], { leaderEpoch: 0 })
    await writeUpdates(log, 1, 30, 'pad') // pushes the tombstone out of the active segment
    const tombstones = async () => (await records(log)).filter((r) => text(r.key) === 'key-1')
    await log.compact()
    expect((await tombstones()).map((r) => r.value)).toEqual([null])
    now += 59_000
    await log.compact()
    expect((await tombstones()).map((r) => r.value)).toEqual([null])
    expect(log.cleanerState().deleteHorizonDue).toBe(false)
    now += 2_000
    expect(log.cleanerState().deleteHorizonDue).toBe(true)
    await log.compact()
    expect(await tombstones()).toEqual([])
    // Other keys are untouched by the tombstone's removal.
    expect((await records(log)).some((r) => text(r.key) === 'key-2')).toBe(true)
  })

  it('retention leaves a compact-only log whole, and compact,delete applies both', async () => {
    let now = 0
    const compactOnly = await open({ retentionMs: 10, now: () => now })
    await writeUpdates(compactOnly, 3, 10)
    now = 1_000_000
    expect((await compactOnly.applyRetention()).deletedSegments).toBe(0)
    const both = await open({ retentionMs: 10, now: () => now, cleanupPolicy: 'compact,delete' }, path.join(dir, 'both'))
    await writeUpdates(both, 3, 10)
    now = 2_000_000
    expect((await both.applyRetention()).deletedSegments).toBeGreaterThan(0)
    expect((await both.compact()).kind).not.toBe('aborted')
  })

  it('reads Kafka topic configs: cleanup.policy in either order, delete.retention.ms, min.compaction.lag.ms, the dirty ratio', () => {
    expect(compactionConfigOfTopic({ 'cleanup.policy': 'delete,compact', 'delete.retention.ms': '5000', 'min.compaction.lag.ms': '7', 'min.cleanable.dirty.ratio': '0.25' })).toEqual({
      cleanupPolicy: 'compact,delete',
      deleteRetentionMs: 5000,
      minCompactionLagMs: 7,
      minCleanableDirtyRatio: 0.25,
    })
    expect(compactionConfigOfTopic({ 'cleanup.policy': 'compact' })).toEqual({ cleanupPolicy: 'compact' })
    expect(compactionConfigOfTopic({})).toEqual({})
  })
})

describe('log compaction and transactions', () => {
  it('drops aborted data, keeps committed data deduplicated and open transactions untouched, with the read_committed view unchanged', async () => {
    let now = 5_000_000
    const log = await open({ deleteRetentionMs: 1000, now: () => now })
    const committedTxn = { leaderEpoch: 0, producerId: 10, producerEpoch: 0, transactional: true }
    const abortedTxn = { leaderEpoch: 0, producerId: 11, producerEpoch: 0, transactional: true }
    await log.appendAsLeader([{ key: 'a', value: 'a-committed' }], { ...committedTxn, baseSequence: 0 })
    await log.appendAsLeader([{ key: 'b', value: 'b-aborted' }], { ...abortedTxn, baseSequence: 0 })
    await log.appendControl('COMMIT', { leaderEpoch: 0, producerId: 10, producerEpoch: 0 })
    await log.appendControl('ABORT', { leaderEpoch: 0, producerId: 11, producerEpoch: 0 })
    await writeUpdates(log, 3, 5)
    // The aborting producer moves on: its aborted batch is no longer the one that carries its sequence.
    await log.appendAsLeader([{ key: 'c', value: 'c-committed' }], { ...abortedTxn, baseSequence: 1 })
    await log.appendControl('COMMIT', { leaderEpoch: 0, producerId: 11, producerEpoch: 0 })
    await writeUpdates(log, 3, 10)
    // An open transaction: its data sits above the last stable offset and must stay as written.
    const openAt = log.logEndOffset
    await log.appendAsLeader([{ key: 'key-0', value: 'open-txn' }], { leaderEpoch: 0, producerId: 12, producerEpoch: 0, baseSequence: 0, transactional: true })
    await writeUpdates(log, 3, 15, 'later')
    expect(log.lastStableOffset).toBe(openAt)
    const committedBefore = latestPerKey(await records(log, 'read_committed'))

    await log.compact()
    const all = await records(log)
    expect(all.some((r) => text(r.value) === 'b-aborted')).toBe(false)
    expect(all.some((r) => text(r.value) === 'a-committed')).toBe(true)
    expect(all.find((r) => r.offset === openAt && text(r.value) === 'open-txn')).toBeDefined()
    expect(latestPerKey(await records(log, 'read_committed'))).toEqual(committedBefore)
    // The ABORT marker stays one pass after its data went (new writes make the log dirty again), then until its delete horizon.
    expect(all.some((r) => r.type === 'ABORT')).toBe(true)
    await log.appendControl('COMMIT', { leaderEpoch: 0, producerId: 12, producerEpoch: 0 })
    await writeUpdates(log, 3, 10, 'again')
    await log.compact()
    expect((await records(log)).some((r) => r.type === 'ABORT' && r.producerId === 11)).toBe(true)
    now += 5_000
    await log.compact()
    expect((await records(log)).some((r) => r.type === 'ABORT' && r.producerId === 11)).toBe(false)
    const committedAfter = latestPerKey(await records(log, 'read_committed'))
    for (const [, key, value] of committedBefore.filter(([, key]) => key === 'a' || key === 'c')) expect(committedAfter.find(([, k]) => k === key)?.[2]).toBe(value)
    expect(committedAfter.some(([, , value]) => value === 'b-aborted')).toBe(false)
  })

  it('keeps the last batch of an active idempotent producer (emptied), so its sequence continues after a reopen', async () => {
    const log = await open()
    const producer = { leaderEpoch: 0, producerId: 42, producerEpoch: 3 }
    for (let seq = 0; seq < 10; seq++) await log.appendAsLeader([{ key: 'same', value: `v${seq}` }], { ...producer, baseSequence: seq })
    await writeUpdates(log, 2, 40, 'other') // a later write of every key supersedes nothing of 'same'
    await log.appendAsLeader([{ key: 'same', value: 'newest' }], { leaderEpoch: 0 })
    await writeUpdates(log, 2, 20, 'pad')
    await log.compact()
    expect((await records(log)).filter((r) => r.producerId === 42)).toEqual([])
    expect(log.producerStates().find((p) => p.producerId === 42)?.lastSequence).toBe(9)
    await close(log)
    // A crash-style reopen (clean marker removed) replays the cleaned segments: the emptied batch carries the sequence.
    fs.rmSync(path.join(dir, 'clean-shutdown'))
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.producer-snapshot'))) fs.rmSync(path.join(dir, f))
    const reopened = await open()
    expect(reopened.producerStates().find((p) => p.producerId === 42)).toMatchObject({ producerEpoch: 3, lastSequence: 9 })
    await expect(reopened.appendAsLeader([{ key: 'same', value: 'next' }], { ...producer, baseSequence: 10 })).resolves.toMatchObject({ duplicate: false })
  })
})

describe('log compaction is crash-safe and never stalls readers', () => {
  /** Copies every file of the log directory (the log must be closed). */
  function copyDir(from: string, to: string): void {
    fs.mkdirSync(to, { recursive: true })
    for (const name of fs.readdirSync(from)) if (fs.statSync(path.join(from, name)).isFile()) fs.copyFileSync(path.join(from, name), path.join(to, name))
  }

  it('recovers a swap interrupted before its commit point as the old log, and after it as the cleaned log', async () => {
    const original = path.join(dir, 'p')
    let log = await open({}, original)
    await writeUpdates(log, 4, 25)
    await close(log)
    const before = path.join(dir, 'before')
    copyDir(original, before)
    log = await open({}, original)
    const expectedBefore = view(await records(log))
    expect((await log.compact()).kind).toBe('cleaned')
    const expectedAfter = view(await records(log))
    await close(log)
    const cleanedFirst = fs.readFileSync(path.join(original, '00000000000000000000.log'))
    const oldBases = fs.readdirSync(before).filter((f) => f.endsWith('.log')).map((f) => Number(f.slice(0, 20)))
    const newBases = fs.readdirSync(original).filter((f) => f.endsWith('.log')).map((f) => Number(f.slice(0, 20)))
    const groupEnd = newBases[1]!

    // Crash before the commit point: the old segments plus a complete `.cleaned` file.
    const early = path.join(dir, 'early')
    copyDir(before, early)
    fs.rmSync(path.join(early, 'clean-shutdown'))
    fs.writeFileSync(path.join(early, cleanedFileName(0)), cleanedFirst)
    const earlyLog = await open({}, early)
    expect(view(await records(earlyLog))).toEqual(expectedBefore)
    expect(fs.readdirSync(early).some((f) => f.endsWith('.cleaned'))).toBe(false)

    // Crash after the commit point, with part of the old group already deleted: the swap is completed.
    const late = path.join(dir, 'late')
    copyDir(before, late)
    fs.rmSync(path.join(late, 'clean-shutdown'))
    fs.writeFileSync(path.join(late, swapFileName(0, groupEnd)), cleanedFirst)
    fs.rmSync(path.join(late, `${String(oldBases[1]).padStart(20, '0')}.log`))
    const lateLog = await open({}, late)
    const lateRecords = view(await records(lateLog))
    // The first group is the cleaned one; later segments are still the uncleaned originals (older versions kept).
    expect(lateRecords.filter(([offset]) => Number(offset) < groupEnd)).toEqual(expectedAfter.filter(([offset]) => Number(offset) < groupEnd))
    expect(latestPerKey(await records(lateLog))).toEqual(latestPerKey(await records(earlyLog)))
    expect(fs.readdirSync(late).some((f) => f.endsWith('.swap'))).toBe(false)
  })

  it('serves consistent reads and keeps the event loop turning while a pass runs in slices', async () => {
    const log = await open({ segmentBytes: 64 * 1024 })
    for (let round = 0; round < 40; round++) {
      await log.appendAsLeader(Array.from({ length: 50 }, (_, k) => ({ key: `key-${k}`, value: `r${round}-${'y'.repeat(200)}` })), { leaderEpoch: 0 })
    }
    log.updateHighWatermark(log.logEndOffset)
    const expected = latestPerKey(await records(log))
    let turns = 0
    let consistent = true
    let reading = true
    const reader = (async () => {
      while (reading) {
        const rs = await records(log)
        const offsets = rs.map((r) => r.offset)
        if (offsets.some((o, i) => i > 0 && o <= offsets[i - 1]!)) consistent = false
        if (JSON.stringify(latestPerKey(rs)) !== JSON.stringify(expected)) consistent = false
        turns++
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const outcome = await log.compact()
    reading = false
    await reader
    expect(outcome.kind).toBe('cleaned')
    expect(consistent).toBe(true)
    expect(turns).toBeGreaterThan(1)
  })

  it('abandons a pass when the log is truncated under it, leaving no cleaner files', async () => {
    const log = await open()
    await writeUpdates(log, 5, 30)
    const pass = log.compact()
    await log.truncateTo(10)
    expect((await pass).kind).toBe('aborted')
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.cleaned') || f.endsWith('.swap'))).toEqual([])
    expect(log.logEndOffset).toBe(10)
  })

  it('the background cleaner picks the filthiest log at or above its dirty ratio', async () => {
    const cleaner = new LogCleaner({ backoffMs: 3_600_000 })
    cleaner.stop()
    const dirty = await open({ cleaner, minCleanableDirtyRatio: 0.5 }, path.join(dir, 'dirty'))
    const clean = await open({ cleaner, minCleanableDirtyRatio: 0.5 }, path.join(dir, 'clean'))
    await writeUpdates(dirty, 3, 20)
    await writeUpdates(clean, 3, 20)
    await clean.compact()
    expect(clean.cleanerState().dirtyRatio).toBe(0)
    expect(cleaner.filthiestLog()).toBe(dirty)
    expect(await cleaner.cleanUntilIdle()).toBe(1)
    expect(cleaner.filthiestLog()).toBeUndefined()
  })
})
