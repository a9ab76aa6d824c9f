import { rm } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EmbeddedCluster } from './embedded-cluster'
import { CAPTURES_PER_TURN } from './partition-copies'
import { openTestCluster, type TestCluster } from './testing'

/**
 * A copy of many partitions (a drill's sandbox) takes each partition's snapshot at an instant of its own and gives
 * the event loop turns between them: 2,000 captures in one turn held the server's event loop for 133 ms.
 */

let t: TestCluster
let target: string | undefined

afterEach(async () => {
  if (target !== undefined) await rm(target, { recursive: true, force: true })
  await t?.cleanup()
})

describe('copyPartitions', () => {
  it('gives the event loop turns between its captures, each partition copied as it stood at its own capture', async () => {
    t = await openTestCluster({ brokers: 1 })
    const count = 2 * CAPTURES_PER_TURN + 1
    await t.cluster.createTopic({ name: 'wide', partitions: count, replicationFactor: 1 })
    for (let partition = 0; partition < count; partition++) await t.cluster.produce('wide', { partition, records: Array.from({ length: 1 + (partition % 3) }, (_, i) => ({ value: `${partition}-${i}` })) })
    const partitions = Array.from({ length: count }, (_, partition) => ({ topic: 'wide', partition }))

    // The cluster's clock moves once per turn the event loop gets while the copy runs: each capture reads it.
    let copying = true
    const turn = () => {
      t.clock.advance(1)
      if (copying) setImmediate(turn)
    }
    setImmediate(turn)
    target = `${t.dir}-copy`
    const copied = await t.cluster.copyPartitions(target, partitions).finally(() => {
      copying = false
    })

    const instants = [...new Set(copied.map((entry) => entry.copiedAt))]
    // Captures in order, a turn between each run of them (one instant for all, without the turns).
    expect(instants.length).toBeGreaterThanOrEqual(3)
    expect(copied.map((entry) => entry.copiedAt)).toEqual([...copied.map((entry) => entry.copiedAt)].sort((a, b) => a - b))
    expect(copied.map(({ topic, partition, logEndOffset }) => [topic, partition, logEndOffset])).toEqual(partitions.map(({ topic, partition }) => [topic, partition, 1 + (partition % 3)]))

    const copy = await EmbeddedCluster.open(target, { name: 'copy', brokers: 1 })
    try {
      for (const { topic, partition } of [partitions[0]!, partitions[CAPTURES_PER_TURN]!, partitions.at(-1)!]) {
        expect((await copy.describePartition({ topic, partition })).logEndOffset).toBe(1 + (partition % 3))
      }
      expect(path.basename(copied[0]!.dir)).toBe('wide-0')
    } finally {
      await copy.close()
    }
  })
})
