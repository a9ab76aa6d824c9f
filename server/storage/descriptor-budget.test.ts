import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DescriptorBudget, type DescriptorHolder } from './descriptor-budget'
import { PartitionLog } from './partition-log'
import { makeTempDir } from './testing/temp-dir'

function openDescriptors(): number {
  return fs.readdirSync('/proc/self/fd').length
}

describe('DescriptorBudget', () => {
  it('releases the least recently touched idle holders, skipping busy ones, down to 90% of the limit', () => {
    const budget = new DescriptorBudget(10)
    const released: number[] = []
    const holders = Array.from({ length: 11 }, (_, i): DescriptorHolder => ({
      // Holder 1 is busy (a write in flight): it must be skipped, not closed.
      releaseDescriptor: () => (i === 1 ? false : (released.push(i), true)),
    }))
    for (const holder of holders.slice(0, 10)) budget.touch(holder)
    budget.touch(holders[0]!)
    expect(released).toEqual([])
    budget.touch(holders[10]!)
    expect(released).toEqual([2, 3])
    expect(budget.open).toBe(9)
  })

  it('refuses a limit below one', () => {
    expect(() => new DescriptorBudget(0)).toThrow(RangeError)
  })
})

describe('partition logs under a descriptor budget', () => {
  let cleanup: () => Promise<void> = async () => {}
  afterEach(() => cleanup())

  it('keeps at most the budget of writers open, and every log still appends, reads and recovers', async () => {
    const temp = makeTempDir('mirrorboard-fd-budget-')
    cleanup = temp.cleanup
    const budget = new DescriptorBudget(4)
    const before = openDescriptors()
    const logs: PartitionLog[] = []
    for (let i = 0; i < 20; i++) logs.push(await PartitionLog.open(path.join(temp.dir, `p-${i}`), { descriptorBudget: budget }))
    for (let round = 0; round < 3; round++) {
      for (const [i, log] of logs.entries()) await log.appendAsLeader([{ value: Buffer.from(`log ${i} round ${round}`) }], { leaderEpoch: 0 })
    }
    expect(budget.open).toBeLessThanOrEqual(4)
    // 20 logs without a budget would hold 20 descriptors.
    expect(openDescriptors() - before).toBeLessThanOrEqual(4)
    for (const [i, log] of logs.entries()) {
      const read = await log.read(0, 1 << 20, { maxOffset: log.logEndOffset })
      expect(read.batches.map((b) => b.lastOffset)).toEqual([0, 1, 2])
      expect(log.logEndOffset, `log ${i}`).toBe(3)
    }
    // Half closed cleanly, half abandoned as a crash would: both recover every acknowledged record.
    for (const [i, log] of logs.entries()) if (i % 2 === 0) await log.close()
    for (let i = 0; i < 20; i++) {
      const reopened = await PartitionLog.open(path.join(temp.dir, `p-${i}`), { descriptorBudget: new DescriptorBudget(64) })
      expect(reopened.logEndOffset).toBe(3)
      await reopened.close()
    }
  })
})
