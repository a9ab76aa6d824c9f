import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitBatches } from '@/lib/log/record-batch'
import { decodeRecords } from '@/lib/log/records-view'
import type { LogRecord } from '@/lib/log/types'
import { crc32c } from './crc32c'
import { PartitionLog } from './partition-log'
import { CRASH_WRITER_CONFIG, type CrashWriterLine } from './testing/crash-writer-protocol'
import { makeTempDir } from './testing/temp-dir'

/*
 * Crash safety: a child process appends in a loop and prints every acknowledged (durable) append; we SIGKILL it
 * at random moments, then reopen the log here and check that every acknowledged record is intact, no torn
 * batch is left, and producer state / LSO agree with the records.
 */

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
const writerScript = fileURLToPath(new URL('./testing/crash-writer.ts', import.meta.url))
const KILLS = 50

function randomGenerator(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

/** Runs the writer until `killAfterMs` after it reported ready, SIGKILLs it, and returns the lines it printed. */
function runWriterAndKill(dir: string, seed: number, killAfterMs: number): Promise<{ lines: CrashWriterLine[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=react-server', '--require', 'tsx/cjs', writerScript, dir, String(seed)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk
      if (timer === undefined && stdout.includes('"kind":"ready"')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (_code, signal) => {
      clearTimeout(timer)
      if (signal !== 'SIGKILL') {
        reject(new Error(`writer exited on its own (signal ${signal}):\n${stderr}`))
        return
      }
      // Only complete lines count: each was written whole, after the append was durable.
      const complete = stdout.slice(0, stdout.lastIndexOf('\n') + 1)
      resolve({ lines: complete.split('\n').filter(Boolean).map((l) => JSON.parse(l) as CrashWriterLine), stderr })
    })
  })
}

function openTransactionsOf(records: LogRecord[]): Map<number, number> {
  const open = new Map<number, number>()
  for (const r of records) {
    if (r.type === 'MIRROR_PID_RESET') open.clear()
    else if ((r.type === 'COMMIT' || r.type === 'ABORT') && r.producerId !== null) open.delete(r.producerId)
    else if (r.type === 'DATA' && r.transactional && r.producerId !== null && !open.has(r.producerId)) open.set(r.producerId, r.offset)
  }
  return open
}

describe('crash safety', () => {
  let dir: string
  let cleanup: () => Promise<void>
  beforeAll(() => {
    ;({ dir, cleanup } = makeTempDir('mirrorboard-crash-'))
  })
  afterAll(() => cleanup())

  it(`keeps every acknowledged append through ${KILLS} SIGKILLs at random moments`, { timeout: 180_000 }, async () => {
    const random = randomGenerator(20260517)
    const acknowledged = new Map<number, { type: 'DATA' | 'COMMIT' | 'ABORT'; value?: string; producerId: number | null; transactional: boolean }>()
    /** Transactions the acknowledgements say are open: producer → first offset. */
    const ackedOpen = new Map<number, number>()
    let totalAcks = 0
    let reopenedEnd = 0

    for (let kill = 0; kill < KILLS; kill++) {
      const { lines, stderr } = await runWriterAndKill(dir, kill + 1, Math.floor(5 + random() * 150))
      expect(stderr).toBe('')
      const ready = lines[0]
      expect(ready?.kind).toBe('ready')
      if (ready?.kind === 'ready') expect(ready.logEndOffset).toBe(reopenedEnd)
      const events = lines.slice(1).sort((a, b) => (a.kind === 'marker' ? a.offset : a.kind === 'data' ? a.baseOffset : 0) - (b.kind === 'marker' ? b.offset : b.kind === 'data' ? b.baseOffset : 0))
      for (const line of events) {
        totalAcks++
        if (line.kind === 'data') {
          line.values.forEach((value, i) => acknowledged.set(line.baseOffset + i, { type: 'DATA', value, producerId: line.producerId, transactional: line.transactional }))
          if (line.transactional && line.producerId !== null && !ackedOpen.has(line.producerId)) ackedOpen.set(line.producerId, line.baseOffset)
        } else if (line.kind === 'marker') {
          acknowledged.set(line.offset, { type: line.type, producerId: line.producerId, transactional: true })
          ackedOpen.delete(line.producerId)
        }
      }

      const log = await PartitionLog.open(dir, CRASH_WRITER_CONFIG)
      try {
        // No torn or corrupt batch survives recovery, in any segment.
        for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.log'))) {
          expect(() => splitBatches(fs.readFileSync(path.join(dir, file)), crc32c)).not.toThrow()
        }
        const read = await log.read(log.logStartOffset, 1 << 30, { maxOffset: log.logEndOffset })
        const records = [...decodeRecords(read.batches)]
        const byOffset = new Map(records.map((r) => [r.offset, r]))
        const damaged: string[] = []
        for (const [offset, expected] of acknowledged) {
          const actual = byOffset.get(offset)
          const value = actual?.value ? Buffer.from(actual.value).toString() : undefined
          if (!actual) damaged.push(`offset ${offset} is missing`)
          else if (actual.type !== expected.type || actual.producerId !== expected.producerId || actual.transactional !== expected.transactional || (expected.value !== undefined && value !== expected.value)) {
            damaged.push(`offset ${offset} differs: ${JSON.stringify({ expected, actual: { type: actual.type, producerId: actual.producerId, transactional: actual.transactional, value } })}`)
          }
        }
        expect(damaged, `after kill ${kill}`).toEqual([])

        // Producer state agrees with the records, and a transaction open at kill time is still open
        // (unless an unacknowledged marker for it made it to disk before the kill).
        const open = openTransactionsOf(records)
        expect(log.openTransactions().map((t) => [t.producerId, t.firstOffset])).toEqual([...open.entries()].sort((a, b) => a[1] - b[1]))
        for (const [producerId, firstOffset] of ackedOpen) {
          const closedLater = records.some((r) => r.producerId === producerId && (r.type === 'COMMIT' || r.type === 'ABORT') && r.offset > firstOffset)
          if (!closedLater) expect(open.get(producerId)).toBe(firstOffset)
        }
        log.updateHighWatermark(log.logEndOffset)
        const firstOpen = Math.min(...open.values(), log.logEndOffset)
        expect(log.lastStableOffset).toBe(firstOpen)

        // Continue from what is on disk: unacknowledged but durable appends are part of the log now.
        ackedOpen.clear()
        for (const [producerId, firstOffset] of open) ackedOpen.set(producerId, firstOffset)
        reopenedEnd = log.logEndOffset
      } finally {
        // Alternate clean closes and abandoning the instance, so both recovery paths are exercised.
        if (kill % 2 === 0) await log.close()
      }
    }
    expect(totalAcks).toBeGreaterThan(KILLS * 3)
  })
})
