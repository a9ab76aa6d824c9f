// Storage benchmarks (issue "embedded default", item 1): PartitionLog appends and reads against a raw file
// baseline measured in the same run on the same disk — plain append + fdatasync of the same bytes per batch,
// and plain sequential reads of the same file.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { encodeBatch } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'
import { PartitionLog } from '@/server/storage/partition-log'
import { median, type BenchResult } from './result'

const RECORD_BYTES = 1024
const BATCH_RECORDS = 100
const BATCHES = 200
const RUNS = 7
const READ_MAX_BYTES = 1 << 20
const GOAL = '≥ 0.5 of the raw baseline'

interface RunFigures {
  leaderAppend: number
  concurrentAppend: number
  followerAppend: number
  rawAppend: number
  read: number
  rawRead: number
  rawReadReused: number
}

function makeBatches(): Buffer[][] {
  const value = Buffer.alloc(RECORD_BYTES)
  for (let i = 0; i < value.length; i++) value[i] = (i * 31 + 7) & 0xff
  return Array.from({ length: BATCHES }, () => Array.from({ length: BATCH_RECORDS }, () => value))
}

/** Appends the pre-encoded batches to a plain file, fdatasync after each: the floor any durable log pays. */
function rawAppend(file: string, encoded: Uint8Array[]): { recordsPerSecond: number; fd: number; size: number } {
  const fd = fs.openSync(file, 'w+')
  const start = performance.now()
  let position = 0
  for (const bytes of encoded) {
    fs.writeSync(fd, bytes, 0, bytes.length, position)
    fs.fdatasyncSync(fd)
    position += bytes.length
  }
  return { recordsPerSecond: (BATCHES * BATCH_RECORDS) / ((performance.now() - start) / 1000), fd, size: position }
}

async function oneRun(batches: Buffer[][]): Promise<RunFigures> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-storage-'))
  const records = BATCHES * BATCH_RECORDS
  const encoded = batches.map((batch, i) => encodeBatch({ baseOffset: i * BATCH_RECORDS, partitionLeaderEpoch: 0, timestamp: Date.now(), records: batch.map((value) => ({ value })) }, crc32c))
  try {
    // The raw baseline right before the measured appends, so both see the same disk and machine load.
    const raw = rawAppend(path.join(root, 'raw.log'), encoded)

    // PartitionLog, one append at a time (each waits for its fdatasync).
    const leader = await PartitionLog.open(path.join(root, 'leader'))
    let start = performance.now()
    for (const batch of batches) await leader.appendAsLeader(batch.map((value) => ({ value })), { leaderEpoch: 0 })
    const leaderAppend = records / ((performance.now() - start) / 1000)
    leader.updateHighWatermark(leader.logEndOffset)

    // Several producers at once: group commit shares fdatasyncs.
    const concurrent = await PartitionLog.open(path.join(root, 'concurrent'))
    start = performance.now()
    for (let i = 0; i < batches.length; i += 8) {
      await Promise.all(batches.slice(i, i + 8).map((batch) => concurrent.appendAsLeader(batch.map((value) => ({ value })), { leaderEpoch: 0 })))
    }
    const concurrentAppend = records / ((performance.now() - start) / 1000)

    // Reads of the whole log in 1 MiB fetches, as a follower or mirror fetcher does.
    start = performance.now()
    let fetched = 0
    const chunks: Buffer[] = []
    for (let offset = 0; offset < leader.logEndOffset; ) {
      const result = await leader.read(offset, READ_MAX_BYTES)
      chunks.push(result.records)
      fetched += result.batches.reduce((n, b) => n + b.recordCount, 0)
      offset = result.batches.at(-1)!.lastOffset + 1
    }
    const read = fetched / ((performance.now() - start) / 1000)

    // Raw sequential reads of the baseline file in 1 MiB chunks: into a fresh buffer per chunk (what any read
    // that hands its bytes to a caller must do), and into one reused buffer (the page-cache copy alone).
    start = performance.now()
    for (let at = 0; at < raw.size; ) {
      const chunk = Buffer.allocUnsafe(READ_MAX_BYTES)
      at += fs.readSync(raw.fd, chunk, 0, chunk.length, at)
    }
    const rawRead = records / ((performance.now() - start) / 1000)
    start = performance.now()
    const reused = Buffer.allocUnsafe(READ_MAX_BYTES)
    for (let at = 0; at < raw.size; ) at += fs.readSync(raw.fd, reused, 0, reused.length, at)
    const rawReadReused = records / ((performance.now() - start) / 1000)
    fs.closeSync(raw.fd)

    // The mirror path: the fetched bytes appended verbatim.
    const follower = await PartitionLog.open(path.join(root, 'follower'))
    start = performance.now()
    for (const chunk of chunks) await follower.appendAsFollower(chunk)
    const followerAppend = records / ((performance.now() - start) / 1000)

    await Promise.all([leader.close(), follower.close(), concurrent.close()])
    return { leaderAppend, concurrentAppend, followerAppend, rawAppend: raw.recordsPerSecond, read, rawRead, rawReadReused }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

/** Medians of RUNS runs; every ratio is against the raw baseline of the same runs. */
export async function benchStorage(): Promise<BenchResult[]> {
  const batches = makeBatches()
  const runs: RunFigures[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await oneRun(batches))
  const m = (key: keyof RunFigures) => median(runs.map((r) => r[key]))
  const rawAppend = { name: 'file append + fdatasync per batch', value: m('rawAppend') }
  const rawRead = { name: 'sequential file read, fresh 1 MiB buffer per read', value: m('rawRead') }
  const rawReadReused = { name: 'sequential file read, one reused 1 MiB buffer', value: m('rawReadReused') }
  const unit = 'records/s'
  const label = `${BATCH_RECORDS} × ${RECORD_BYTES} B records per batch`
  const vsAppend = (name: string, value: number): BenchResult => ({ name, value, unit, baseline: rawAppend, ratio: value / rawAppend.value, goal: GOAL })
  return [
    vsAppend(`PartitionLog.appendAsLeader (${label})`, m('leaderAppend')),
    vsAppend('PartitionLog.appendAsLeader, 8 in flight', m('concurrentAppend')),
    vsAppend('PartitionLog.appendAsFollower (verbatim)', m('followerAppend')),
    { name: 'PartitionLog.read (1 MiB fetches)', value: m('read'), unit, baseline: rawRead, ratio: m('read') / rawRead.value, goal: GOAL },
    // Informational: a returned buffer cannot be reused, so this baseline skips the fresh-page cost every reader pays.
    { name: 'PartitionLog.read vs reused-buffer read', value: m('read'), unit, baseline: rawReadReused, ratio: m('read') / rawReadReused.value },
  ]
}
