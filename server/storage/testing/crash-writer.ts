import 'server-only'
import { PartitionLog } from '../partition-log'
import { CRASH_WRITER_CONFIG, type CrashWriterLine } from './crash-writer-protocol'

/*
 * Child process of crash-safety.test.ts: reopens the log in argv[2] and appends forever (plain, idempotent
 * and transactional data, COMMIT/ABORT markers, several appends in flight at once so group commit is
 * exercised), printing one JSON line per acknowledged append, after it became durable. The parent SIGKILLs it
 * at a random moment and checks that every printed append survived.
 *
 * Run with: node --conditions=react-server --require tsx/cjs server/storage/testing/crash-writer.ts <dir> <seed>
 */

const IDEMPOTENT_PRODUCER = 100
const TRANSACTIONAL_PRODUCERS = [200, 201]

function randomGenerator(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4294967296
  }
}

function emit(line: CrashWriterLine): void {
  // stdout to a pipe is synchronous on Linux: once written, the parent has it even if we die right after.
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

async function main(): Promise<void> {
  const [dir, seedText] = process.argv.slice(2)
  if (!dir) throw new Error('usage: crash-writer <dir> <seed>')
  const random = randomGenerator(Number(seedText ?? 1))
  const log = await PartitionLog.open(dir, CRASH_WRITER_CONFIG)
  // A restarted replica becomes leader with a new epoch, as after an election.
  const leaderEpoch = Math.max(log.latestEpoch(), 0) + 1
  emit({ kind: 'ready', logEndOffset: log.logEndOffset, leaderEpoch })
  const nextSequence = new Map<number, number>()
  const epochOf = new Map<number, number>()
  for (const p of log.producerStates()) {
    nextSequence.set(p.producerId, p.lastSequence + 1)
    epochOf.set(p.producerId, p.producerEpoch)
  }
  const open = new Set(log.openTransactions().map((t) => t.producerId))
  let counter = 0
  const values = (n: number) => Array.from({ length: n }, () => `${seedText}-${counter++}-${'x'.repeat(Math.floor(random() * 300))}`)

  const appendData = (producerId: number | null, transactional: boolean) => {
    const batch = values(1 + Math.floor(random() * 8))
    let options: Parameters<PartitionLog['appendAsLeader']>[1] = { leaderEpoch }
    if (producerId !== null) {
      const baseSequence = nextSequence.get(producerId) ?? 0
      nextSequence.set(producerId, baseSequence + batch.length)
      options = { leaderEpoch, producerId, producerEpoch: epochOf.get(producerId) ?? 0, baseSequence, transactional }
    }
    return log.appendAsLeader(batch.map((value) => ({ value })), options).then((r) =>
      emit({ kind: 'data', baseOffset: r.baseOffset, lastOffset: r.lastOffset, values: batch, producerId, transactional, leaderEpoch }),
    )
  }

  for (;;) {
    const inFlight: Array<Promise<void>> = []
    const fanOut = 1 + Math.floor(random() * 4)
    for (let i = 0; i < fanOut; i++) {
      const choice = random()
      if (choice < 0.35) {
        inFlight.push(appendData(null, false))
      } else if (choice < 0.6) {
        inFlight.push(appendData(IDEMPOTENT_PRODUCER, false))
      } else {
        const producerId = TRANSACTIONAL_PRODUCERS[Math.floor(random() * TRANSACTIONAL_PRODUCERS.length)]!
        if (open.has(producerId) && random() < 0.4) {
          const type = random() < 0.5 ? 'COMMIT' : 'ABORT'
          open.delete(producerId)
          inFlight.push(
            log.appendControl(type, { leaderEpoch, producerId, producerEpoch: epochOf.get(producerId) ?? 0 }).then((r) => emit({ kind: 'marker', offset: r.baseOffset, type, producerId, leaderEpoch })),
          )
        } else {
          open.add(producerId)
          inFlight.push(appendData(producerId, true))
        }
      }
    }
    await Promise.all(inFlight)
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
