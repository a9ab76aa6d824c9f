import 'server-only'
import { createEngineHarness } from './harness'
import { OPERATION_CRASH_CLUSTERS, OPERATION_CRASH_MIRROR, OPERATION_CRASH_REQUESTER } from './operation-crash'

/**
 * @internal A server process of operation-crash.test.ts over a prepared data root. Prints one JSON line per
 * fact on stdout, and SIGKILLs itself at the `killAt`-th STOPPING action (counting before and after each
 * action; 0: right after the failover is accepted; -1: never).
 *   failover        accept a failover ({"accepted": id}), run it; ({"finished": operation}) if not killed
 *   resume          start on the root ({"startup": [{id, status}], "states": {"STATE[:step]": count}} before anything
 *                   runs), run to the end
 *   finishThenKill  accept a failover, run it to the end, print it, then SIGKILL itself
 * Run with: node --conditions=react-server --import tsx server/engine/testing/operation-crash-child.ts <root> <mode> <killAt>
 */
function print(fact: Record<string, unknown>): void {
  // A pipe on Linux is written synchronously: the line is out before any SIGKILL below.
  process.stdout.write(`${JSON.stringify(fact)}\n`)
}

async function main() {
  const [root, mode, killAtText] = process.argv.slice(2)
  const killAt = Number(killAtText)
  if (!root || !['failover', 'resume', 'finishThenKill'].includes(mode ?? '') || !Number.isInteger(killAt)) {
    throw new Error('usage: operation-crash-child <root> <failover|resume|finishThenKill> <killAt>')
  }
  let actions = 0
  let runningAtStartup: string | undefined
  const harness = await createEngineHarness({
    root,
    clusters: OPERATION_CRASH_CLUSTERS,
    onStoppingAction: () => {
      actions += 1
      if (actions === killAt) process.kill(process.pid, 'SIGKILL')
    },
    onStarted: (engine) => {
      if (mode !== 'resume') return
      runningAtStartup = engine.listOperations({ status: 'running' })[0]?.id
      const states: Record<string, number> = {}
      for (const { state, stoppingStep } of engine.partitions(OPERATION_CRASH_MIRROR)) {
        const key = stoppingStep === null ? state : `${state}:${stoppingStep}`
        states[key] = (states[key] ?? 0) + 1
      }
      print({ startup: engine.listOperations().map(({ id, status }) => ({ id, status })), states })
    },
  })
  let id: string
  if (mode === 'resume') {
    if (runningAtStartup === undefined) {
      print({ finished: null })
      process.exit(0)
    }
    id = runningAtStartup
  } else {
    const { operation } = await harness.engine.failover(OPERATION_CRASH_MIRROR, { confirm: OPERATION_CRASH_MIRROR, requestedBy: OPERATION_CRASH_REQUESTER })
    id = operation.id
    print({ accepted: id })
    if (killAt === 0) process.kill(process.pid, 'SIGKILL')
  }
  let operation = await harness.engine.awaitOperation(id)
  for (let round = 0; operation.status === 'running' && round < 50; round++) {
    await harness.run(1)
    operation = await harness.engine.awaitOperation(id)
  }
  // The engine's operation as it stands; the test maps it to the API's shape (server/api/mirror-api.ts toOperation).
  print({ finished: operation })
  if (mode === 'finishThenKill') process.kill(process.pid, 'SIGKILL')
  await harness.close()
  process.exit(0)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
