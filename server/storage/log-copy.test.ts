import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { CLEAN_SHUTDOWN_FILE, LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE } from './log-checkpoints'
import { Worker } from 'node:worker_threads'
import { COPY_WORKER_NICE, copyLog, copyLogs, copyPlan, LogCopies, PLANS_PER_MESSAGE } from './log-copy'
import type { PartitionLog } from './partition-log'
import { partitionLogFixture, readAll, values } from './testing/partition-log-fixture'

/**
 * A copy of a log (a drill's sandbox) opened with its original's close state at the snapshot (what a clean close
 * then would have written, kept in memory) opens as the original stood then — offsets, epochs, producer state,
 * open and aborted transactions, timestamps — without scanning its active segment or replaying producer state.
 */

const logs = partitionLogFixture()

/** What a copy must agree on with its original. */
async function stateOf(log: PartitionLog) {
  return {
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    epochs: log.epochEntries(),
    producers: log.producerStates(),
    open: log.openTransactions(),
    aborted: log.abortedTransactions(0, log.logEndOffset),
    records: (await readAll(log)).batches.map((batch) => [batch.baseOffset, batch.lastOffset]),
    latestTimestamp: await log.offsetForTimestamp(0),
  }
}

describe('a copy of a log', () => {
  it("opens as after a clean close at its snapshot, from the state the snapshot took from memory", async () => {
    // Small segments: sealed ones are linked, the active one copied to its size then.
    const log = await logs.open({ segmentBytes: 600, highWatermarkCheckpointIntervalMs: null })
    await log.appendAsLeader(values(3, 'a'), { leaderEpoch: 0 })
    await log.appendAsLeader(values(2, 'idempotent'), { leaderEpoch: 0, producerId: 7, producerEpoch: 0, baseSequence: 0 })
    await log.appendAsLeader(values(2, 'aborted'), { leaderEpoch: 1, producerId: 8, producerEpoch: 0, baseSequence: 0, transactional: true })
    await log.appendControl('ABORT', { leaderEpoch: 1, producerId: 8, producerEpoch: 0 })
    for (let i = 0; i < 6; i++) await log.appendAsLeader(values(2, `b${i}-`), { leaderEpoch: 2 })
    await log.appendAsLeader(values(1, 'open'), { leaderEpoch: 2, producerId: 9, producerEpoch: 0, baseSequence: 0, transactional: true })
    await log.appendAsLeader(values(1, 'more'), { leaderEpoch: 2, producerId: 7, producerEpoch: 0, baseSequence: 2 })
    log.updateHighWatermark(log.logEndOffset)
    expect(logs.segmentFiles().length).toBeGreaterThan(1)

    const snapshot = log.fileSnapshot()
    const then = await stateOf(log)
    // After the snapshot: not in the copy.
    await log.appendAsLeader(values(2, 'later'), { leaderEpoch: 3, producerId: 9, producerEpoch: 0, baseSequence: 1, transactional: true })

    const target = path.join(logs.dir(), 'copy')
    await copyLog(snapshot, target)
    expect(fs.existsSync(path.join(target, CLEAN_SHUTDOWN_FILE))).toBe(false)
    const config = { segmentBytes: 600, highWatermarkCheckpointIntervalMs: null, checkpointedHighWatermark: snapshot.highWatermark }
    const copy = await logs.open({ ...config, closeState: snapshot.closeState }, target)
    expect(await stateOf(copy)).toEqual(then)
    // The copy's own appends continue it; the original's files are untouched by them.
    await copy.appendControl('ABORT', { leaderEpoch: 4, producerId: 9, producerEpoch: 0 })
    expect(copy.openTransactions()).toEqual([])
    expect(log.openTransactions().map((t) => t.producerId)).toEqual([9])
    expect((await readAll(log)).batches.at(-1)!.lastOffset).toBe(then.logEndOffset + 1)
  })

  it('trusts its active segment as after a clean close (no checksum scan), where a copy opened as after a crash cuts it at a bad batch', async () => {
    const log = await logs.open({ highWatermarkCheckpointIntervalMs: null })
    for (let i = 0; i < 4; i++) await log.appendAsLeader(values(2, `b${i}-`), { leaderEpoch: 0 })
    const snapshot = log.fileSnapshot()
    const sizes = (await readAll(log)).batches.map((batch) => batch.sizeInBytes)
    // A flipped byte in the last batch's records, in both copies' active segments.
    const flip = (dir: string) => {
      const file = path.join(dir, logs.segmentFiles(dir).at(-1)!)
      const bytes = fs.readFileSync(file)
      bytes[sizes.slice(0, 3).reduce((a, b) => a + b, 0) + sizes[3]! - 2]! ^= 0xff
      fs.writeFileSync(file, bytes)
    }
    const trusted = path.join(logs.dir(), 'trusted')
    const recovered = path.join(logs.dir(), 'recovered')
    for (const dir of [trusted, recovered]) {
      await copyLog(snapshot, dir)
      flip(dir)
    }
    expect((await logs.open({ highWatermarkCheckpointIntervalMs: null, closeState: snapshot.closeState }, trusted)).logEndOffset).toBe(8)
    expect((await logs.open({ highWatermarkCheckpointIntervalMs: null }, recovered)).logEndOffset).toBe(6)
  })

  it("links the checkpoints (one call each, not a copy), and a checkpoint the copy replaces leaves the original's as it was", async () => {
    const log = await logs.open({ highWatermarkCheckpointIntervalMs: null })
    await log.appendAsLeader(values(2, 'a'), { leaderEpoch: 0 })
    await log.appendAsLeader(values(2, 'b'), { leaderEpoch: 1 })
    log.updateHighWatermark(log.logEndOffset)
    await log.deleteRecordsBefore(1)
    const snapshot = log.fileSnapshot()
    const target = path.join(logs.dir(), 'linked')
    for (const [index, copied] of [await copyLog(snapshot, target), (await copyLogs([copyPlan(snapshot, path.join(logs.dir(), 'linked-many'))]))[0]!].entries()) {
      const dir = index === 0 ? target : path.join(logs.dir(), 'linked-many')
      for (const name of [LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE]) expect(fs.statSync(path.join(dir, name)).ino).toBe(fs.statSync(path.join(log.dir, name)).ino)
      expect(copied.bytesCopied).toBe(snapshot.segments.filter((segment) => segment.active).reduce((sum, segment) => sum + segment.bytes, 0))
    }
    const before = fs.readFileSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE), 'utf8')
    const copy = await logs.open({ highWatermarkCheckpointIntervalMs: null, closeState: snapshot.closeState }, target)
    await copy.appendAsLeader(values(1, 'c'), { leaderEpoch: 5 })
    expect(copy.epochEntries().map((entry) => entry.epoch)).toEqual([0, 1, 5])
    // A clean close replaces the copy's checkpoints with its own.
    await copy.close()
    expect(fs.readFileSync(path.join(log.dir, LEADER_EPOCH_CHECKPOINT_FILE), 'utf8')).toBe(before)
    expect(fs.readFileSync(path.join(target, LEADER_EPOCH_CHECKPOINT_FILE), 'utf8')).not.toBe(before)
    expect(log.epochEntries().map((entry) => entry.epoch)).toEqual([0, 1])
  })

  it('copies many logs at once on a worker thread, each as copyLog copies it, and names the one that cannot be copied', async () => {
    const first = await logs.open({ segmentBytes: 600, highWatermarkCheckpointIntervalMs: null })
    for (let i = 0; i < 16; i++) await first.appendAsLeader(values(2, `b${i}-`), { leaderEpoch: i < 8 ? 0 : 1 })
    await first.appendAsLeader(values(1, 'open'), { leaderEpoch: 1, producerId: 9, producerEpoch: 0, baseSequence: 0, transactional: true })
    first.updateHighWatermark(first.logEndOffset)
    const second = await logs.open({ highWatermarkCheckpointIntervalMs: null }, path.join(logs.dir(), 'second'))
    await second.appendAsLeader(values(3, 'c'), { leaderEpoch: 0 })
    second.updateHighWatermark(second.logEndOffset)
    const snapshots = [first.fileSnapshot(), second.fileSnapshot()]
    const states = [await stateOf(first), await stateOf(second)]
    await first.appendAsLeader(values(2, 'later'), { leaderEpoch: 2 })

    const targets = [path.join(logs.dir(), 'many-0'), path.join(logs.dir(), 'many-1')]
    const outcomes = await copyLogs(snapshots.map((snapshot, index) => copyPlan(snapshot, targets[index]!)))
    const one = await copyLog(snapshots[0]!, path.join(logs.dir(), 'one'))
    expect(outcomes[0]).toEqual(one)
    expect(outcomes[0]!.filesLinked).toBeGreaterThan(0)
    for (const [index, snapshot] of snapshots.entries()) {
      const copy = await logs.open({ segmentBytes: 600, highWatermarkCheckpointIntervalMs: null, checkpointedHighWatermark: snapshot.highWatermark, closeState: snapshot.closeState }, targets[index]!)
      expect(await stateOf(copy)).toEqual(states[index])
    }

    // The active segment shorter than the snapshot says: that log's copy fails, by its directory.
    const broken = copyPlan(snapshots[1]!, path.join(logs.dir(), 'broken'))
    const short = broken.steps.map((step) => (step.kind === 'prefix' ? { ...step, bytes: step.bytes + 1 } : step))
    await expect(copyLogs([copyPlan(snapshots[0]!, path.join(logs.dir(), 'fine')), { ...broken, steps: short }])).rejects.toThrow(/broken failed: .*truncated meanwhile/)
  })

  it('sends the plans to its worker a message at a time, the event loop turning between messages, and names a failure by its index among all', async () => {
    const log = await logs.open({ segmentBytes: 600, highWatermarkCheckpointIntervalMs: null })
    for (let i = 0; i < 8; i++) await log.appendAsLeader(values(2, `m${i}-`), { leaderEpoch: 0 })
    const snapshot = log.fileSnapshot()
    const count = 2 * PLANS_PER_MESSAGE + 1
    const plans = Array.from({ length: count }, (_, index) => copyPlan(snapshot, path.join(logs.dir(), 'wide', `copy-${index}`)))
    // What each message carried, and how many turns the event loop had taken when it was sent.
    const sent: Array<{ dirs: string[]; turns: number }> = []
    let turns = 0
    let copying = true
    const turn = () => {
      turns += 1
      if (copying) setImmediate(turn)
    }
    setImmediate(turn)
    const original = Worker.prototype.postMessage
    const postMessage = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, message: unknown, transfer?: readonly Transferable[]) {
      const plans = (message as { plans?: Array<{ dir: string }> }).plans
      if (plans !== undefined) sent.push({ dirs: plans.map((plan) => plan.dir), turns })
      return original.call(this, message, transfer as never)
    })
    try {
      const outcomes = await copyLogs(plans)
      expect(outcomes).toHaveLength(count)
      for (const outcome of outcomes) expect(outcome).toEqual(outcomes[0])
      for (const index of [0, PLANS_PER_MESSAGE, count - 1]) expect(fs.readdirSync(plans[index]!.dir).sort()).toEqual(fs.readdirSync(plans[0]!.dir).sort())
      // Every plan once, in order, at most PLANS_PER_MESSAGE a message, the event loop turning between messages.
      expect(sent.flatMap((message) => message.dirs)).toEqual(plans.map((plan) => plan.dir))
      expect(sent.map((message) => message.dirs.length)).toEqual([PLANS_PER_MESSAGE, PLANS_PER_MESSAGE, 1])
      for (let i = 1; i < sent.length; i++) expect(sent[i]!.turns).toBeGreaterThan(sent[i - 1]!.turns)

      // A plan of the last message that cannot be copied is named by its place among all.
      sent.length = 0
      const again = plans.map((_, index) => copyPlan(snapshot, path.join(logs.dir(), 'again', index === count - 1 ? 'broken' : `copy-${index}`)))
      const short = again.map((plan, index) => (index === count - 1 ? { ...plan, steps: plan.steps.map((step) => (step.kind === 'prefix' ? { ...step, bytes: step.bytes + 1 } : step)) } : plan))
      await expect(copyLogs(short)).rejects.toThrow(/again\/broken failed: .*truncated meanwhile/)
    } finally {
      copying = false
      postMessage.mockRestore()
    }
  })

  it.runIf(process.platform === 'linux')('copies on a thread of lower priority than the event loop (Linux: a nice value per thread)', async () => {
    /** This process's threads' nice values (the 19th field of /proc/self/task/<tid>/stat, after the command's ")"). */
    const niceValues = () =>
      fs.readdirSync('/proc/self/task').map((tid) => {
        const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
      })
    const before = niceValues().filter((nice) => nice === COPY_WORKER_NICE).length
    const copies = new LogCopies()
    try {
      let niced = 0
      for (let waited = 0; waited < 10_000 && niced <= before; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        niced = niceValues().filter((nice) => nice === COPY_WORKER_NICE).length
      }
      expect(niced).toBe(before + 1)
      expect(niceValues()[0]).toBe(0)
      await expect(copies.finish()).resolves.toEqual([])
    } finally {
      copies.abort()
    }
  })
})
