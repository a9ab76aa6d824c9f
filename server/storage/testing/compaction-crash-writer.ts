import 'server-only'
import { LogCleaner } from '../cleaner/log-cleaner'
import { PartitionLog } from '../partition-log'
import { compactionCrashConfig, type CompactionWriterLine } from './compaction-crash-protocol'

/*
 * Child process of cleaner/compaction-crash.test.ts: reopens the compacted log in argv[2], appends keyed
 * records forever while cleaning passes run back to back, and prints one JSON line per acknowledged (durable)
 * append. The parent SIGKILLs it at a random moment — often mid-clean — and checks nothing acknowledged is lost.
 *
 * Run with: node --conditions=react-server --require tsx/cjs server/storage/testing/compaction-crash-writer.ts <dir> <seed>
 */

const KEYS = 12

function emit(line: CompactionWriterLine): void {
  // stdout to a pipe is synchronous on Linux: once written, the parent has it even if we die right after.
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

async function main(): Promise<void> {
  const [dir, seedText] = process.argv.slice(2)
  if (!dir) throw new Error('usage: compaction-crash-writer <dir> <seed>')
  let state = Number(seedText ?? 1) >>> 0 || 1
  const random = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4294967296
  }
  const cleaner = new LogCleaner({ backoffMs: 3_600_000, sliceMs: 1 })
  cleaner.stop()
  const log = await PartitionLog.open(dir, compactionCrashConfig(cleaner))
  emit({ kind: 'ready', logEndOffset: log.logEndOffset })
  const cleaning = (async () => {
    for (;;) {
      await log.compact()
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  let counter = 0
  for (;;) {
    const key = `key-${Math.floor(random() * KEYS)}`
    const value = `${seedText}-${counter++}-${'z'.repeat(Math.floor(random() * 200))}`
    const result = await log.appendAsLeader([{ key, value }], { leaderEpoch: 0 })
    log.updateHighWatermark(log.logEndOffset)
    emit({ kind: 'ack', offset: result.baseOffset, key, value })
    void cleaning
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`)
  process.exit(1)
})
