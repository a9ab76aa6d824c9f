import 'server-only'
import { createEngineHarness } from './harness'
import { mirrorOffsets0To2ThenPause, WORKED_EXAMPLE_CLUSTERS } from './worked-example'

/**
 * @internal Runs the worked example into a failover and SIGKILLs itself at one point of STOPPING.
 * Run with: node --conditions=react-server --import tsx server/engine/testing/stopping-crash-child.ts <root> <step> <phase>
 * Exits 3 if the failover finished without reaching the crash point (the test then fails).
 */
async function main() {
  const [root, crashStep, crashPhase] = process.argv.slice(2)
  if (!root || !crashStep || !crashPhase) throw new Error('usage: stopping-crash-child <root> <step> <beforeAction|afterAction>')
  const harness = await createEngineHarness({
    root,
    clusters: WORKED_EXAMPLE_CLUSTERS,
    onStoppingAction: (phase, step) => {
      if (phase === crashPhase && step === crashStep) process.kill(process.pid, 'SIGKILL')
    },
  })
  await mirrorOffsets0To2ThenPause(harness)
  const { operation } = await harness.engine.failover('dr', { confirm: 'dr' })
  await harness.engine.awaitOperation(operation.id)
  process.exit(3)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
