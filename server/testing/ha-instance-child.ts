import 'server-only'
import { readHaConfig } from '@/server/ha/ha-config'
import { openTestRuntime } from '@/server/testing/test-runtime'

/**
 * @internal One Mirrorboard instance of a group sharing the work over the control cluster (issue #40), until the
 * test SIGKILLs it. Its configuration comes from the environment as a server's does (MIRRORBOARD_CONTROL_BOOTSTRAP,
 * MIRRORBOARD_INSTANCE_ID, ...); it registers the two Kafka test clusters as kafka-a and kafka-b before its
 * engine starts, then prints the mirrors it runs as a line `held <json>` at every change.
 * Run with: node --conditions=react-server --import tsx server/testing/ha-instance-child.ts <dataDir> <bootstrapA> <bootstrapB>
 */
async function main() {
  const [dataDir, bootstrapA, bootstrapB] = process.argv.slice(2)
  if (!dataDir || !bootstrapA || !bootstrapB) throw new Error('usage: ha-instance-child <dataDir> <bootstrapA> <bootstrapB>')
  process.env.MIRRORBOARD_DATA_DIR = dataDir
  const ha = readHaConfig(process.env)
  if (!ha) throw new Error('MIRRORBOARD_CONTROL_BOOTSTRAP is not set')
  const runtime = await openTestRuntime(dataDir, {
    demo: false,
    ha,
    beforeEngine: async (clusters) => {
      for (const [name, bootstrap] of [['kafka-a', bootstrapA], ['kafka-b', bootstrapB]] as const) {
        if (!clusters.names().includes(name)) await clusters.create({ name, kind: 'kafka', bootstrapServers: [bootstrap] })
      }
    },
  })
  let last = ''
  const report = () => {
    const held = JSON.stringify({ instance: ha.instanceId, mirrors: runtime.engine.heldMirrors().sort() })
    if (held !== last) process.stdout.write(`held ${(last = held)}\n`)
  }
  report()
  setInterval(report, 50)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
