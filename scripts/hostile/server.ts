// Starts the production server the hostile-input suite attacks (as scripts/fuzz/run.sh does: `node --import tsx
// server/main.ts` over the `next build` output), on loopback, with a temporary data dir and known tokens; stops it
// after the last file. HOSTILE_URL (with HOSTILE_DATA_DIR and the HOSTILE_*_TOKEN variables) points the suite at
// a server already running instead, to see what an older build does.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'

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

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${log()}`)
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the server did not answer /health within 90 s:\n${log()}`)
}

let child: ChildProcess | null = null
let dataDir: string | null = null

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
  const root = path.resolve(import.meta.dirname, '../..')
  if (!existsSync(path.join(root, '.next/BUILD_ID'))) throw new Error("no production build (.next/BUILD_ID): run 'npx next build' first")
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-hostile-'))
  const port = Number(env.HOSTILE_PORT) || (await freePort())
  const operatorToken = `hostile-operator-${'o'.repeat(32)}`
  const viewerToken = `hostile-viewer-${'v'.repeat(32)}`
  let output = ''
  child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      NEXT_TELEMETRY_DISABLED: '1',
      MIRRORBOARD_DATA_DIR: dataDir,
      MIRRORBOARD_OPERATOR_TOKEN: operatorToken,
      MIRRORBOARD_VIEWER_TOKEN: viewerToken,
    },
  })
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(url, child, () => output)
  project.provide('hostile', { url, dataDir, operatorToken, viewerToken, pid: child.pid ?? null })
}

export async function teardown(): Promise<void> {
  const server = child
  if (server?.pid !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve))
    // Its own process group: whatever it started stops with it. It closes its logs first, then exits.
    process.kill(-server.pid, 'SIGTERM')
    // The timer is cleared once the server exited: left running, it held vitest open until its close timeout.
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 30_000, 'timeout')))
    if ((await Promise.race([exited, timeout])) === 'timeout') process.kill(-server.pid, 'SIGKILL')
    clearTimeout(timer)
  }
  server?.stdout?.destroy()
  server?.stderr?.destroy()
  if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true })
}
