import 'server-only'
import { readHaConfig } from '@/server/ha/ha-config'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { instancesOf } from '@/server/api/instances-api'

/**
 * @internal One Mirrorboard instance of a group sharing the work over the control cluster (issue #40), until the
 * test SIGKILLs it. Its configuration comes from the environment as a server's does (MIRRORBOARD_CONTROL_BOOTSTRAP,
 * MIRRORBOARD_INSTANCE_ID, MIRRORBOARD_SECRET_KEY, ...); it knows no cluster of its own: they come from the control
 * cluster. It prints the mirrors it runs as a line `held <json>` at every change, and what GET /api/v1/instances
 * would answer (alive and mirrors of each) as a line `instances <json>`. SIGUSR2 resumes every mirror it runs.
 * Run with: node --conditions=react-server --import tsx server/testing/ha-instance-child.ts <dataDir>
 */
async function main() {
  const [dataDir] = process.argv.slice(2)
  if (!dataDir) throw new Error('usage: ha-instance-child <dataDir>')
  process.env.MIRRORBOARD_DATA_DIR = dataDir
  const ha = readHaConfig(process.env)
  if (!ha) throw new Error('MIRRORBOARD_CONTROL_BOOTSTRAP is not set')
  const runtime = await openTestRuntime(dataDir, { demo: false, ha })
  let last = ''
  let lastInstances = ''
  const report = () => {
    const held = JSON.stringify({ instance: ha.instanceId, mirrors: runtime.engine.heldMirrors().sort() })
    if (held !== last) process.stdout.write(`held ${(last = held)}\n`)
    const instances = JSON.stringify(instancesOf({ version: runtime.version, engine: runtime.engine, ha: runtime.ha }, [{ role: 'admin' }]).instances.map(({ id, alive, mirrors }) => ({ id, alive, mirrors })))
    if (instances !== lastInstances) process.stdout.write(`instances ${(lastInstances = instances)}\n`)
  }
  report()
  setInterval(report, 50)
  // SIGTERM ends the process normally, so a CPU profile (--cpu-prof: scripts/bench/ha-throughput.ts) is written.
  process.on('SIGTERM', () => process.exit(0))
  // SIGUSR2: resume every mirror held here (scripts/bench/ha-throughput.ts starts its drain once the group settled).
  process.on('SIGUSR2', () => {
    for (const mirror of runtime.engine.heldMirrors()) {
      runtime.engine.resumeTopics(mirror).then(
        () => process.stdout.write(`resumed ${mirror}\n`),
        (error: unknown) => process.stdout.write(`resume failed ${mirror} ${String(error)}\n`),
      )
    }
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
