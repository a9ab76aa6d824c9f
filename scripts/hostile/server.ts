// Starts the production server the hostile-input suite attacks (as scripts/fuzz/run.sh does: `node --import tsx
// server/main.ts` over the `next build` output), on loopback, with a temporary data dir and known tokens; stops it
// after the last file. HOSTILE_URL (with HOSTILE_DATA_DIR and the HOSTILE_*_TOKEN variables) points the suite at
// a server already running instead, to see what an older build does.
import type { TestProject } from 'vitest/node'
import { startProductionServer, type ProductionServer } from '../testing/production-server'

export interface HostileTarget {
  url: string
  dataDir: string
  operatorToken: string
  viewerToken: string
  /** The server's process id, when the suite started it (descriptor counts read /proc/<pid>/fd). */
  pid: number | null
}

declare module 'vitest' {
  export interface ProvidedContext {
    hostile: HostileTarget
  }
}

let server: ProductionServer | null = null

export async function setup(project: TestProject): Promise<void> {
  const env = process.env
  if (env.HOSTILE_URL) {
    project.provide('hostile', {
      url: env.HOSTILE_URL,
      dataDir: env.HOSTILE_DATA_DIR ?? '',
      operatorToken: env.HOSTILE_OPERATOR_TOKEN ?? '',
      viewerToken: env.HOSTILE_VIEWER_TOKEN ?? '',
      pid: null,
    })
    return
  }
  const operatorToken = `hostile-operator-${'o'.repeat(32)}`
  const viewerToken = `hostile-viewer-${'v'.repeat(32)}`
  server = await startProductionServer({ dataDirPrefix: 'mirrorboard-hostile-', operatorToken, viewerToken, ...(Number(env.HOSTILE_PORT) ? { port: Number(env.HOSTILE_PORT) } : {}) })
  project.provide('hostile', { url: server.url, dataDir: server.dataDir, operatorToken, viewerToken, pid: server.pid })
}

export async function teardown(): Promise<void> {
  await server?.stop()
}
