import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitBatches } from '@/lib/log/record-batch'
import { decodeRecords } from '@/lib/log/records-view'
import { crc32c } from '../crc32c'
import { PartitionLog } from '../partition-log'
import { compactionCrashConfig, type CompactionWriterLine } from '../testing/compaction-crash-protocol'
import { makeTempDir } from '../testing/temp-dir'
import { LogCleaner } from './log-cleaner'

/*
 * Crash safety of the cleaner: a child appends keyed records while cleaning passes run back to back; we SIGKILL
 * it at random moments (many land mid-pass), reopen the log here and check that for every acknowledged record
 * either it is still there, unchanged at its offset, or a newer record of its key is — compaction may only
 * remove what a later write of the same key superseded.
 */

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))
const writerScript = fileURLToPath(new URL('../testing/compaction-crash-writer.ts', import.meta.url))
const KILLS = 8
/** Acknowledgements a writer gives before its kill timer starts, so a slow, shared machine still kills mid-work. */
const ACKS_BEFORE_TIMER = 25

function runWriterAndKill(dir: string, seed: number, killAfterMs: number): Promise<{ lines: CompactionWriterLine[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=react-server', '--require', 'tsx/cjs', writerScript, dir, String(seed)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk
      // The random delay counts from the writer's first acknowledgements, not from its start: on a loaded machine a
      // fixed delay from "ready" could end before the writer had written anything worth checking.
      if (timer === undefined && stdout.includes('"kind":"ready"') && stdout.split('"kind":"ack"').length > ACKS_BEFORE_TIMER) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
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
      const complete = stdout.slice(0, stdout.lastIndexOf('\n') + 1)
      resolve({ lines: complete.split('\n').filter(Boolean).map((l) => JSON.parse(l) as CompactionWriterLine), stderr })
    })
  })
}

describe('compaction crash safety', () => {
  let dir: string
  let cleanup: () => Promise<void>
  beforeAll(() => {
    ;({ dir, cleanup } = makeTempDir('mirrorboard-compaction-crash-'))
  })
  afterAll(() => cleanup())

  it(`loses nothing acknowledged through ${KILLS} SIGKILLs during cleaning`, { timeout: 180_000 }, async () => {
    let seed = 7
    const acked: Array<{ offset: number; key: string; value: string }> = []
    let reopenedEnd = 0
    let removedByCleaning = 0
    for (let kill = 0; kill < KILLS; kill++) {
      seed = (seed * 48271) % 2147483647
      const { lines, stderr } = await runWriterAndKill(dir, kill + 1, 300 + (seed % 900))
      expect(stderr).toBe('')
      const ready = lines[0]
      expect(ready).toEqual({ kind: 'ready', logEndOffset: reopenedEnd })
      for (const line of lines.slice(1)) if (line.kind === 'ack') acked.push(line)

      const cleaner = new LogCleaner({ backoffMs: 3_600_000 })
      cleaner.stop()
      const log = await PartitionLog.open(dir, compactionCrashConfig(cleaner))
      try {
        expect(fs.readdirSync(dir).filter((f) => f.endsWith('.cleaned') || f.endsWith('.swap'))).toEqual([])
        for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.log'))) expect(() => splitBatches(fs.readFileSync(path.join(dir, file)), crc32c)).not.toThrow()
        const read = await log.read(log.logStartOffset, 1 << 30, { maxOffset: log.logEndOffset })
        const records = [...decodeRecords(read.batches)]
        const offsets = records.map((r) => r.offset)
        expect(offsets.every((o, i) => i === 0 || o > offsets[i - 1]!)).toBe(true)
        const byOffset = new Map(records.map((r) => [r.offset, r]))
        const newestOffsetOfKey = new Map<string, number>()
        for (const r of records) newestOffsetOfKey.set(Buffer.from(r.key!).toString(), r.offset)
        const lost: string[] = []
        removedByCleaning = 0
        for (const ack of acked) {
          const actual = byOffset.get(ack.offset)
          if (actual) {
            const value = actual.value === null ? null : Buffer.from(actual.value).toString()
            if (Buffer.from(actual.key!).toString() !== ack.key || value !== ack.value) lost.push(`offset ${ack.offset} differs`)
            continue
          }
          removedByCleaning++
          // Gone: only a newer write of the same key may explain it.
          const newer = newestOffsetOfKey.get(ack.key)
          if (newer === undefined || newer <= ack.offset) lost.push(`offset ${ack.offset} (${ack.key}) vanished without a newer record of its key`)
        }
        expect(lost, `after kill ${kill}`).toEqual([])
        reopenedEnd = log.logEndOffset
      } finally {
        await log.close()
      }
    }
    expect(acked.length).toBeGreaterThan(KILLS * 20)
    // The kills must have landed in a log the cleaner was really compacting.
    expect(removedByCleaning).toBeGreaterThan(0)
  })
})
