import 'server-only'
import { openTestRuntime } from '@/server/testing/test-runtime'

/**
 * @internal A server mirroring a Kafka topic into a Kafka cluster until the test SIGKILLs it (no close: open
 * destination producers, state not flushed beyond what each append made durable). Adds both clusters and the
 * mirror on first run, prints "mirroring" once the mirror is created, then keeps the engine ticking.
 * Run with: node --conditions=react-server --import tsx server/testing/kafka-mirroring-child.ts <dataDir> <bootstrapA> <bootstrapB> <topic>
 */
async function main() {
  const [dataDir, bootstrapA, bootstrapB, topic] = process.argv.slice(2)
  if (!dataDir || !bootstrapA || !bootstrapB || !topic) throw new Error('usage: kafka-mirroring-child <dataDir> <bootstrapA> <bootstrapB> <topic>')
  process.env.MIRRORBOARD_DATA_DIR = dataDir
  const runtime = await openTestRuntime(dataDir, { demo: false })
  await runtime.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [bootstrapA] })
  await runtime.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [bootstrapB] })
  await runtime.engine.createMirror({ name: 'killed', sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [topic] })
  process.stdout.write('mirroring\n')
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
