import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { splitBatches } from '@/lib/log/record-batch'
import { decodeRecords } from '@/lib/log/records-view'
import type { RecordType } from '@/lib/log/types'
import { crc32c } from './crc32c'
import { PartitionLog } from './partition-log'
import { makeTempDir } from './testing/temp-dir'
import type { PartitionLogConfig } from './types'

/*
 * Model-based property test: random sequences of appends (plain, idempotent, transactional), markers,
 * MIRROR_PID_RESET, epoch bumps, HW moves, truncations, delete-records and clean/unclean reopens, checked
 * after every step against a model of what was acknowledged.
 */

type Command =
  | { kind: 'plain'; count: number }
  | { kind: 'idempotent'; producer: number; count: number }
  | { kind: 'txnData'; producer: number; count: number }
  | { kind: 'endTxn'; producer: number; commit: boolean }
  | { kind: 'pidReset' }
  | { kind: 'bumpEpoch' }
  | { kind: 'highWatermark'; fraction: number }
  | { kind: 'truncate'; fraction: number }
  | { kind: 'deleteRecords'; fraction: number }
  | { kind: 'reopen'; clean: boolean }

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('plain' as const), count: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('idempotent' as const), producer: fc.constantFrom(10, 11), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('txnData' as const), producer: fc.constantFrom(20, 21), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('endTxn' as const), producer: fc.constantFrom(20, 21), commit: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pidReset' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bumpEpoch' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('highWatermark' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRecords' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), clean: fc.boolean() }) },
)

interface ModelRecord {
  type: RecordType
  value: string | null
  producerId: number | null
  transactional: boolean
}

const CONFIG: PartitionLogConfig = { segmentBytes: 420, indexIntervalBytes: 60 }

/** Open transactions implied by the acknowledged records (what producer state must say). */
function openTransactionsOf(model: Map<number, ModelRecord>): Map<number, number> {
  const open = new Map<number, number>()
  for (const [offset, r] of [...model.entries()].sort((a, b) => a[0] - b[0])) {
    if (r.type === 'MIRROR_PID_RESET') open.clear()
    else if (r.type === 'COMMIT' || r.type === 'ABORT') open.delete(r.producerId!)
    else if (r.transactional && !open.has(r.producerId!)) open.set(r.producerId!, offset)
  }
  return open
}

async function checkInvariants(log: PartitionLog, dir: string, model: Map<number, ModelRecord>): Promise<void> {
  const { logStartOffset, logEndOffset, highWatermark, lastStableOffset } = log
  expect(logStartOffset).toBeLessThanOrEqual(lastStableOffset)
  expect(lastStableOffset).toBeLessThanOrEqual(highWatermark)
  expect(highWatermark).toBeLessThanOrEqual(logEndOffset)

  const result = await log.read(logStartOffset, 1 << 30, { maxOffset: logEndOffset })
  let previous = -1
  for (const batch of result.batches) {
    expect(batch.baseOffset).toBeGreaterThan(previous)
    expect(batch.lastOffset).toBeGreaterThanOrEqual(batch.baseOffset)
    expect(log.epochForOffset(batch.baseOffset)).toBe(batch.partitionLeaderEpoch)
    previous = batch.lastOffset
  }
  const actual = [...decodeRecords(result.batches, { fromOffset: logStartOffset })].map((r) => ({
    offset: r.offset,
    type: r.type,
    value: r.type === 'DATA' ? Buffer.from(r.value!).toString() : null,
    producerId: r.producerId,
    transactional: r.transactional,
  }))
  const expected = [...model.entries()]
    .filter(([offset]) => offset >= logStartOffset)
    .sort((a, b) => a[0] - b[0])
    .map(([offset, r]) => ({ offset, ...r }))
  expect(actual).toEqual(expected)
  expect(logEndOffset).toBe(expected.length === 0 ? logEndOffset : expected.at(-1)!.offset + 1)

  const epochs = log.epochEntries()
  for (let i = 1; i < epochs.length; i++) {
    expect(epochs[i]!.epoch).toBeGreaterThan(epochs[i - 1]!.epoch)
    expect(epochs[i]!.startOffset).toBeGreaterThan(epochs[i - 1]!.startOffset)
  }
  for (const e of epochs) expect(e.startOffset).toBeLessThan(Math.max(logEndOffset, 1))

  const open = openTransactionsOf(model)
  expect(log.openTransactions().map((t) => [t.producerId, t.firstOffset])).toEqual([...open.entries()].sort((a, b) => a[1] - b[1]))
  const firstOpen = Math.min(...open.values())
  if (Number.isFinite(firstOpen) && firstOpen >= logStartOffset) expect(lastStableOffset).toBeLessThanOrEqual(firstOpen)

  // Every segment file is a whole number of valid batches: truncation and recovery never leave a partial one.
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    expect(() => splitBatches(fs.readFileSync(path.join(dir, file)), crc32c)).not.toThrow()
  }
}

function stateOf(log: PartitionLog) {
  return {
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    epochs: log.epochEntries(),
    open: log.openTransactions(),
    producers: log.producerStates(),
    aborted: log.abortedTransactions(0, Number.MAX_SAFE_INTEGER),
  }
}

async function run(commands: Command[]): Promise<void> {
  const { dir, cleanup } = makeTempDir('mirrorboard-prop-')
  let log = await PartitionLog.open(dir, CONFIG)
  const model = new Map<number, ModelRecord>()
  let epoch = 0
  let counter = 0
  const nextValues = (n: number) => Array.from({ length: n }, () => ({ value: `r${counter++}` }))
  const record = (base: number, values: Array<{ value: string }>, producerId: number | null, transactional: boolean) =>
    values.forEach((v, i) => model.set(base + i, { type: 'DATA', value: v.value, producerId, transactional }))
  const producer = (id: number) => log.producerStates().find((p) => p.producerId === id)
  try {
    for (const command of commands) {
      switch (command.kind) {
        case 'plain': {
          const values = nextValues(command.count)
          const { baseOffset } = await log.appendAsLeader(values, { leaderEpoch: epoch })
          record(baseOffset, values, null, false)
          break
        }
        case 'idempotent':
        case 'txnData': {
          const state = producer(command.producer)
          const values = nextValues(command.count)
          const transactional = command.kind === 'txnData'
          const { baseOffset } = await log.appendAsLeader(values, {
            leaderEpoch: epoch,
            producerId: command.producer,
            producerEpoch: state?.producerEpoch ?? 0,
            baseSequence: (state?.lastSequence ?? -1) + 1,
            transactional,
          })
          record(baseOffset, values, command.producer, transactional)
          break
        }
        case 'endTxn': {
          const state = producer(command.producer)
          const type = command.commit ? 'COMMIT' : 'ABORT'
          const { baseOffset } = await log.appendControl(type, { leaderEpoch: epoch, producerId: command.producer, producerEpoch: state?.producerEpoch ?? 0, coordinatorEpoch: Math.max(state?.coordinatorEpoch ?? 0, 0) })
          model.set(baseOffset, { type, value: null, producerId: command.producer, transactional: true })
          break
        }
        case 'pidReset': {
          const { baseOffset } = await log.appendControl('MIRROR_PID_RESET', { leaderEpoch: epoch })
          model.set(baseOffset, { type: 'MIRROR_PID_RESET', value: null, producerId: null, transactional: false })
          break
        }
        case 'bumpEpoch':
          epoch++
          break
        case 'highWatermark':
          log.updateHighWatermark(Math.round(log.logStartOffset + command.fraction * (log.logEndOffset - log.logStartOffset)))
          break
        case 'truncate': {
          const before = log.logEndOffset
          const target = Math.round(log.logStartOffset + command.fraction * (before - log.logStartOffset))
          const { logEndOffset } = await log.truncateTo(target)
          expect(logEndOffset).toBeLessThanOrEqual(Math.min(target, before))
          for (const offset of [...model.keys()]) if (offset >= logEndOffset) model.delete(offset)
          break
        }
        case 'deleteRecords': {
          const target = Math.round(log.logStartOffset + command.fraction * (log.highWatermark - log.logStartOffset))
          await log.deleteRecordsBefore(target)
          break
        }
        case 'reopen': {
          const before = stateOf(log)
          if (command.clean) await log.close()
          log = await PartitionLog.open(dir, CONFIG)
          expect(stateOf(log)).toEqual(before)
          break
        }
      }
      await checkInvariants(log, dir, model)
    }
  } finally {
    await log.close()
    await cleanup()
  }
}

describe('PartitionLog properties', () => {
  it('keeps offsets, epochs, producer state and records consistent through random operations and restarts', async () => {
    await fc.assert(fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 35 }), run), { numRuns: 60 })
  })
})
