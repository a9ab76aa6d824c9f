import 'server-only'
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { DrillPhase } from '@/lib/api/drills'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { sandboxProcesses } from '@/server/drills/testing/sandbox-processes'

/**
 * @internal A server process of drill-crash.test.ts over a prepared data directory (mirror `dr` MIRRORING): it
 * starts a drill of `dr` and, when the drill reaches `<phase>`, prints {"drill", "phase", "sandbox", "sandboxProcesses"}
 * (whether the sandbox directory exists; the pids of the drill's sandbox process) and waits for the test to SIGKILL it.
 * Run with: node --conditions=react-server --import tsx server/drills/testing/drill-crash-child.ts <dataDir> <phase>
 */
async function main() {
  const [dataDir, phase] = process.argv.slice(2)
  if (!dataDir || !phase) throw new Error('usage: drill-crash-child <dataDir> <phase>')
  process.env.MIRRORBOARD_DATA_DIR = dataDir
  const runtime = await openTestRuntime(dataDir, {
    demo: false,
    drills: {
      // As a server runs: the drill takes the spare process forked at the start (if forked by then), which must
      // end with this process as a drill's own does.
      spareSandbox: true,
      spareDelayMs: 0,
      atPhase: async (drill, reached: DrillPhase, saved) => {
        if (reached !== phase) return
        // The test reads the phase the restart names from the record: killed once it is written.
        await saved
        const sandbox = existsSync(path.join(dataDir, 'drills', 'sandboxes', drill.id, 'metadata.json'))
        // A pipe on Linux is written synchronously: the line is out before the test's SIGKILL.
        process.stdout.write(`${JSON.stringify({ drill: drill.id, phase: reached, sandbox, sandboxProcesses: sandboxProcesses() })}\n`)
        await new Promise(() => {})
      },
    },
  })
  for (let waited = 0; runtime.engine.partitions('dr').some((p) => p.state !== 'MIRRORING'); waited += 50) {
    if (waited > 30_000) throw new Error('dr did not come back to MIRRORING')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await runtime.drills.start('dr', { requestedBy: { actor: 'token:operator', role: 'operator' } })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
