import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PartitionLogConfig } from './types'
import { HIGH_WATERMARK_CHECKPOINT_FILE } from './partition-log'

import { expectCode, partitionLogFixture, values } from './testing/partition-log-fixture'

const logs = partitionLogFixture()
const { open, abandon, segmentFiles } = logs

describe('high watermark checkpoints', () => {
  it("its own file by default; none when the owner checkpoints, whose value it opens with (own file as fallback)", async () => {
    const own = await open({ highWatermarkCheckpointIntervalMs: 0 })
    await own.appendAsLeader(values(3), { leaderEpoch: 0 })
    own.updateHighWatermark(2)
    await own.close()
    abandon(own)
    expect(fs.readFileSync(path.join(logs.dir(), HIGH_WATERMARK_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\n2\n')

    // Owner-checkpointed: its value wins (cut to the log's end), the log writes no file, not even at close.
    const external = await open({ highWatermarkCheckpointIntervalMs: null, checkpointedHighWatermark: 9 })
    expect(external.highWatermark).toBe(3)
    external.updateHighWatermark(1)
    await external.close()
    abandon(external)
    expect(fs.readFileSync(path.join(logs.dir(), HIGH_WATERMARK_CHECKPOINT_FILE), 'utf8')).toBe('0\n1\n2\n')
    expect((await open({ highWatermarkCheckpointIntervalMs: null, checkpointedHighWatermark: 1 })).highWatermark).toBe(1)
  })

  it('an owner whose checkpoint lists no value for the replica falls back to the log file', async () => {
    const own = await open()
    await own.appendAsLeader(values(3), { leaderEpoch: 0 })
    own.updateHighWatermark(3)
    await own.close()
    abandon(own)
    expect((await open({ highWatermarkCheckpointIntervalMs: null, checkpointedHighWatermark: null })).highWatermark).toBe(3)
  })
})

describe('recovery', () => {
  async function writeSome(config: PartitionLogConfig = {}) {
    const log = await open(config)
    for (let i = 0; i < 5; i++) await log.appendAsLeader(values(4, `b${i}-`), { leaderEpoch: i })
    const sizes = (await log.read(0, 1 << 20, { maxOffset: 20 })).batches.map((b) => b.sizeInBytes)
    abandon(log)
    return sizes
  }
  const activeLog = () => path.join(logs.dir(), segmentFiles().at(-1)!)

  it('cuts a torn tail (half-written batch) at the last complete batch', async () => {
    const sizes = await writeSome()
    const full = sizes.reduce((a, b) => a + b, 0)
    fs.truncateSync(activeLog(), full - 7)
    const log = await open()
    expect(log.logEndOffset).toBe(16)
    expect(fs.statSync(activeLog()).size).toBe(full - sizes.at(-1)!)
    expect(log.epochEntries().at(-1)).toEqual({ epoch: 3, startOffset: 12 })
    expect(await log.appendAsLeader(values(1), { leaderEpoch: 9 })).toMatchObject({ baseOffset: 16 })
  })

  it('cuts at garbage appended after the last batch', async () => {
    const sizes = await writeSome()
    fs.appendFileSync(activeLog(), Buffer.from('this is not a record batch at all, just noise'))
    const log = await open()
    expect(log.logEndOffset).toBe(20)
    expect(fs.statSync(activeLog()).size).toBe(sizes.reduce((a, b) => a + b, 0))
  })

  it('cuts at a batch whose CRC no longer matches (bit flip), dropping everything after it', async () => {
    const sizes = await writeSome()
    const fd = fs.openSync(activeLog(), 'r+')
    const position = sizes[0]! + sizes[1]! + 40 // inside the third batch's CRC-covered header
    const byte = Buffer.alloc(1)
    fs.readSync(fd, byte, 0, 1, position)
    byte[0]! ^= 0x10
    fs.writeSync(fd, byte, 0, 1, position)
    fs.closeSync(fd)
    const log = await open()
    expect(log.logEndOffset).toBe(8)
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 4 },
    ])
  })

  it('handles a zero-filled tail (preallocated or torn blocks)', async () => {
    await writeSome()
    fs.appendFileSync(activeLog(), Buffer.alloc(4096))
    expect((await open()).logEndOffset).toBe(20)
  })

  describe('damaged side files', () => {
    async function writeTransactions() {
      const log = await open({ segmentBytes: 400, indexIntervalBytes: 50 })
      for (let i = 0; i < 6; i++) {
        await log.appendAsLeader(values(2), { leaderEpoch: i, producerId: 1, producerEpoch: 0, baseSequence: i * 2, transactional: true })
        await log.appendControl(i % 2 === 0 ? 'ABORT' : 'COMMIT', { leaderEpoch: i, producerId: 1, producerEpoch: 0 })
      }
      await log.appendAsLeader(values(1), { leaderEpoch: 6, producerId: 2, producerEpoch: 0, baseSequence: 0, transactional: true })
      const state = { epochs: log.epochEntries(), aborted: log.abortedTransactions(0, 100), open: log.openTransactions(), producers: log.producerStates() }
      abandon(log)
      expect(segmentFiles().length).toBeGreaterThan(2)
      return state
    }
    const sideFiles = (suffix: string) => fs.readdirSync(logs.dir()).filter((f) => f.endsWith(suffix)).sort()
    const reopenState = async () => {
      const log = await open({ segmentBytes: 400, indexIntervalBytes: 50 })
      log.updateHighWatermark(log.logEndOffset)
      for (let offset = 0; offset < log.logEndOffset; offset++) {
        const first = (await log.read(offset, 1)).batches[0]!
        expect(first.baseOffset <= offset && offset <= first.lastOffset).toBe(true)
      }
      return { epochs: log.epochEntries(), aborted: log.abortedTransactions(0, 100), open: log.openTransactions(), producers: log.producerStates() }
    }

    it('rebuilds missing or torn offset/time indexes of rolled segments', async () => {
      const state = await writeTransactions()
      fs.unlinkSync(path.join(logs.dir(), sideFiles('.index')[0]!))
      fs.truncateSync(path.join(logs.dir(), sideFiles('.timeindex')[1]!), 5)
      expect(await reopenState()).toEqual(state)
      expect(sideFiles('.index')).toHaveLength(segmentFiles().length - 1)
    })

    it('rebuilds the aborted index by replay when a txnindex is torn', async () => {
      const state = await writeTransactions()
      fs.appendFileSync(path.join(logs.dir(), sideFiles('.txnindex')[0]!), Buffer.from([1, 2, 3]))
      expect(await reopenState()).toEqual(state)
    })

    it('ignores a torn producer snapshot and a torn epoch checkpoint', async () => {
      const state = await writeTransactions()
      for (const snapshot of sideFiles('.producer-snapshot')) fs.writeFileSync(path.join(logs.dir(), snapshot), 'deadbeef\n{"version":1')
      fs.writeFileSync(path.join(logs.dir(), 'leader-epoch-checkpoint'), '0\n3\n0 0\n')
      expect(await reopenState()).toEqual(state)
    })
  })

  it('does not trust a clean-shutdown marker that does not match the files', async () => {
    const log = await open()
    await log.appendAsLeader(values(4), { leaderEpoch: 0 })
    await log.close()
    abandon(log)
    fs.appendFileSync(activeLog(), Buffer.from('garbage after a clean close'))
    const again = await open()
    expect(again.logEndOffset).toBe(4)
    expect(fs.existsSync(path.join(logs.dir(), 'clean-shutdown'))).toBe(false)
  })

  it('has removed what the open is done with once it returns: the clean-shutdown marker and the close\'s producer snapshot', async () => {
    const log = await open()
    await log.appendAsLeader(values(4), { leaderEpoch: 0 })
    await log.close()
    const files = () => fs.readdirSync(logs.dir()).filter((name) => name === 'clean-shutdown' || name.endsWith('.producer-snapshot')).sort()
    expect(files()).toEqual(['00000000000000000004.producer-snapshot', 'clean-shutdown'])
    abandon(log)
    const again = await open()
    expect(files()).toEqual([])
    expect(again.logEndOffset).toBe(4)
  })
})

describe('closing for deletion', () => {
  it('waits for acknowledged appends, then writes no index, snapshot or checkpoint into a directory removed next', async () => {
    const log = await open()
    const appended = log.appendAsLeader(values(3), { leaderEpoch: 0 })
    const closing = log.closeForDeletion()
    expect(await appended).toMatchObject({ baseOffset: 0 })
    await closing
    const snapshot = (at: string) => fs.readdirSync(at).map((f) => [f, fs.statSync(path.join(at, f)).size]).sort()
    const before = snapshot(logs.dir())
    // A log closed the ordinary way writes its checkpoints and clean-shutdown marker: the deletion close did not.
    const other = await open({}, fs.mkdtempSync(path.join(logs.dir(), '..', 'other-')))
    await other.appendAsLeader(values(3), { leaderEpoch: 0 })
    await other.close()
    expect(fs.readdirSync(other.dir).length).toBeGreaterThan(before.length)
    expect(snapshot(logs.dir())).toEqual(before)
    await expectCode(log.appendAsLeader(values(1), { leaderEpoch: 0 }), 'LOG_CLOSED')
  })
})
