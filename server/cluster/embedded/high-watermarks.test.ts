import { readFile, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { HIGH_WATERMARK_CHECKPOINT_FILE } from '@/server/storage/partition-log'
import { HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, REPLICATION_OFFSET_CHECKPOINT_FILE } from './high-watermarks'
import { openTestCluster, type TestCluster } from './testing'

let t: TestCluster | undefined
afterEach(async () => t?.cleanup())

const checkpointOf = (dir: string, brokerId: number) => readFile(path.join(dir, `broker-${brokerId}`, REPLICATION_OFFSET_CHECKPOINT_FILE), 'utf8')

/** The file's text once it is `expected`: the interval's write runs in the background (its fsyncs may be slow here). */
async function eventually(read: () => Promise<string>, expected: string): Promise<string> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const text = await read().catch(() => '')
    if (text === expected || Date.now() > deadline) return text
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

it("keeps each broker's high watermarks in one replication-offset-checkpoint, every interval and at close, and none per partition", async () => {
  t = await openTestCluster({ brokers: 2 })
  await t.cluster.createTopic({ name: 'orders', partitions: 2, replicationFactor: 2 })
  await t.cluster.produce('orders', { partition: 0, records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] })
  await t.cluster.produce('orders', { partition: 1, records: [{ value: 'd' }] })
  await t.cluster.tick()

  // Within the interval no write starts; past it, one tick writes every broker's file.
  t.clock.advance(HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS - 1)
  await t.cluster.tick()
  await expect(checkpointOf(t.dir, 1)).rejects.toMatchObject({ code: 'ENOENT' })
  t.clock.advance(1)
  await t.cluster.tick()
  for (const brokerId of [1, 2]) expect(await eventually(() => checkpointOf(t!.dir, brokerId), '0\n2\norders 0 3\norders 1 1\n')).toBe('0\n2\norders 0 3\norders 1 1\n')

  // Moved since, not yet due: the clean close writes what the logs hold as they close.
  await t.cluster.produce('orders', { partition: 1, records: [{ value: 'e' }] })
  await t.cluster.tick()
  await t.cluster.close()
  for (const brokerId of [1, 2]) expect(await checkpointOf(t.dir, brokerId)).toBe('0\n2\norders 0 3\norders 1 2\n')
  for (const brokerId of [1, 2]) {
    for (const replica of await readdir(path.join(t.dir, `broker-${brokerId}`))) {
      if (replica === REPLICATION_OFFSET_CHECKPOINT_FILE) continue
      expect(await readdir(path.join(t.dir, `broker-${brokerId}`, replica)), replica).not.toContain(HIGH_WATERMARK_CHECKPOINT_FILE)
    }
  }

  // Reopened, the high watermarks are where they were.
  await t.reopen()
  expect((await t.cluster.describeTopic('orders')).partitions.map((p) => p.highWatermark)).toEqual([3, 2])
})

it('opens with a torn checkpoint (each log falls back to 0 and replication re-establishes its high watermark)', async () => {
  t = await openTestCluster({ brokers: 1 })
  await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 1 })
  await t.cluster.produce('orders', { records: [{ value: 'a' }, { value: 'b' }] })
  await t.cluster.close()
  await writeFile(path.join(t.dir, 'broker-1', REPLICATION_OFFSET_CHECKPOINT_FILE), '0\n5\norders 0')
  await t.reopen()
  await t.cluster.tick()
  expect((await t.cluster.describeTopic('orders')).partitions[0]).toMatchObject({ highWatermark: 2, logEndOffset: 2 })
  expect((await t.cluster.readRecords('orders', 0, { limit: 10 })).records.map((r) => r.value)).toEqual(['a', 'b'])
})
