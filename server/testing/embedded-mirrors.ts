import 'server-only'
import type { Runtime } from '@/server/runtime'

/**
 * @internal The fixture many runtime tests open with: two one-broker embedded clusters, a one-partition source topic
 * per mirror, the mirrors, and a wait until every partition is MIRRORING (each test then bends one of them).
 */
export async function embeddedMirrors(
  runtime: Runtime,
  { source, destination, mirrors }: { source: string; destination: string; mirrors: Readonly<Record<string, string>> },
): Promise<void> {
  await runtime.clusters.create({ name: source, kind: 'embedded', brokers: 1 })
  await runtime.clusters.create({ name: destination, kind: 'embedded', brokers: 1 })
  for (const topic of new Set(Object.values(mirrors))) await runtime.clusters.embedded(source).createTopic({ name: topic, partitions: 1 })
  for (const [name, topic] of Object.entries(mirrors)) await runtime.engine.createMirror({ name, sourceCluster: source, destinationCluster: destination, topics: [topic] })
  const deadline = Date.now() + 30_000
  const mirroring = () => Object.keys(mirrors).every((name) => runtime.engine.partitions(name).every((partition) => partition.state === 'MIRRORING'))
  while (!mirroring()) {
    if (Date.now() > deadline) {
      const states = Object.keys(mirrors).map((name) => `${name}: ${runtime.engine.partitions(name).map((partition) => partition.state).join(', ')}`)
      throw new Error(`the fixture's mirrors are not all MIRRORING after 30 s (${states.join('; ')})`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
