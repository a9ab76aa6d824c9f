import 'server-only'
import { createEngineHarness } from './harness'
import { mirrorOffsets0To2ThenPause, WORKED_EXAMPLE_CLUSTERS } from './worked-example'

/**
 * @internal Runs the worked example through a complete failover, then SIGKILLs itself: no clean close, no
 * producer snapshot at the log end, so the next open rebuilds producer state by replaying the segments.
 * Run with: node --conditions=react-server --import tsx server/engine/testing/pid-reset-crash-child.ts <root>
 * Exits 3 if the failover did not succeed (the test then fails).
 */
async function main() {
  const [root] = process.argv.slice(2)
  if (!root) throw new Error('usage: pid-reset-crash-child <root>')
  const harness = await createEngineHarness({ root, clusters: WORKED_EXAMPLE_CLUSTERS })
  await mirrorOffsets0To2ThenPause(harness)
  const { operation } = await harness.engine.failover('dr', { confirm: 'dr' })
  const finished = await harness.engine.awaitOperation(operation.id)
  if (finished.status !== 'succeeded') process.exit(3)
  process.kill(process.pid, 'SIGKILL')
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
