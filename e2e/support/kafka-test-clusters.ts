import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { TestCluster } from '../../scripts/kafka/test-clusters'

/**
 * The Kafka test brokers `npm test` starts before the e2e phase (scripts/kafka/clusters.ts), read from the
 * same .kafka/run/clusters.json as scripts/kafka/test-clusters.ts. Read here rather than imported: that module
 * finds the repository through `import.meta.url`, which Playwright's CommonJS transform cannot load.
 */
export function kafkaTestClusters(): { a: TestCluster; b: TestCluster } {
  const file = path.join(process.cwd(), '.kafka', 'run', 'clusters.json')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (cause) {
    throw new Error(`Kafka test clusters are not running (no ${file}): run \`npx tsx scripts/kafka/clusters.ts start\``, { cause })
  }
  const { clusters } = JSON.parse(text) as { clusters: { a: TestCluster; b: TestCluster } }
  return { a: clusters.a, b: clusters.b }
}
