// Run under a low `ulimit -n` by few-files.test.ts: two embedded clusters and a mirror with more partition
// logs than the process may open files, through creation, mirroring, a restart and reads. Prints one JSON line.
import path from 'node:path'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorEngine } from '@/server/engine/engine'

const PARTITIONS = Number(process.argv[3] ?? 300)

async function open(root: string) {
  const source = await EmbeddedCluster.open(path.join(root, 'a'), { name: 'a', brokers: 1 })
  const destination = await EmbeddedCluster.open(path.join(root, 'b'), { name: 'b', brokers: 1 })
  const clusters = new Map([
    ['a', source],
    ['b', destination],
  ])
  const engine = new MirrorEngine({ clusters: { names: () => [...clusters.keys()], get: (name) => (clusters.has(name) ? { source: clusters.get(name)!, host: clusters.get(name)! } : undefined) } })
  await engine.start()
  return { source, destination, engine, close: async () => (await engine.close(), await source.close(), await destination.close()) }
}

async function main() {
  const root = process.argv[2]!
  let pair = await open(root)
  await pair.source.createTopic({ name: 'wide', partitions: PARTITIONS, replicationFactor: 1 })
  for (let partition = 0; partition < PARTITIONS; partition++) {
    await pair.source.produce('wide', { partition, records: [{ value: `first ${partition}` }, { value: `second ${partition}` }] })
  }
  await pair.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['wide'] })
  for (let i = 0; i < 5; i++) await pair.engine.tick()
  await pair.close()
  pair = await open(root)
  for (let partition = 0; partition < PARTITIONS; partition += 7) await pair.source.produce('wide', { partition, records: [{ value: `third ${partition}` }] })
  for (let i = 0; i < 5; i++) await pair.engine.tick()
  const ends: number[] = []
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const page = await pair.destination.readRecords('wide', partition, { limit: 10 })
    ends.push(page.records.filter((record) => record.type === 'DATA').length)
  }
  const states = new Set(pair.engine.partitions('m').map((p) => p.state))
  await pair.close()
  console.log(JSON.stringify({ ends, states: [...states] }))
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exit(1)
})
