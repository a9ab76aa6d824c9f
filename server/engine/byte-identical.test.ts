import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

const PARTITIONS = 8
const TOTAL_RECORDS = 10_000

async function segmentFiles(cluster: EmbeddedCluster, topic: string, partition: number): Promise<Buffer> {
  const description = (await cluster.describeTopic(topic)).partitions[partition]!
  const log = cluster.replicaLog({ topic, partition }, description.leader)!
  const files = (await readdir(log.dir)).filter((file) => file.endsWith('.log')).sort()
  return Buffer.concat(await Promise.all(files.map((file) => readFile(path.join(log.dir, file)))))
}

it('#10 #23 10,000 records over 8 partitions from transactional, idempotent and plain producers land byte for byte', async () => {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  const a = harness.cluster('a')
  await a.createTopic({ name: 'load', partitions: PARTITIONS, replicationFactor: 1 })
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['load'] })
  const transactional = await a.createTransactionalProducer('load-tx')
  let written = 0
  for (let round = 0; written < TOTAL_RECORDS; round++) {
    const partition = round % PARTITIONS
    const records = Array.from({ length: 25 }, (_, i) => ({ key: `k${round}-${i}`, value: `v${round}-${i}`.padEnd(64, '.') }))
    switch (round % 4) {
      case 0:
        await a.produce('load', { partition, idempotent: true, records })
        break
      case 1:
        await a.produce('load', { partition, idempotent: false, records })
        break
      case 2:
        await transactional.send('load', { partition, records })
        await transactional.send('load', { partition: (partition + 1) % PARTITIONS, records: records.slice(0, 5) })
        written += 5
        await (round % 8 === 2 ? transactional.abort() : transactional.commit())
        break
      case 3:
        await a.produce('load', { partition, idempotent: true, records })
        break
    }
    written += records.length
    // Mirror while the source is written, so fetches see transactions half-way too.
    if (round % 10 === 0) await harness.run(1)
  }
  await harness.run(20)
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const source = await segmentFiles(a, 'load', partition)
    const destination = await segmentFiles(harness.cluster('b'), 'load', partition)
    expect(destination.length).toBe(source.length)
    expect(destination.equals(source)).toBe(true)
  }
  const summary = harness.engine.mirrorSummary('m')
  expect(summary.partitionsByState).toEqual({ MIRRORING: PARTITIONS })
  expect(summary.mirroredRecords).toBeGreaterThanOrEqual(TOTAL_RECORDS)
})
