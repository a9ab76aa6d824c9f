// A production server for the suites that test from outside (the hostile-input suite, the command line's suite):
// `node --import tsx server/main.ts` over the `next build` output, as scripts/fuzz/run.sh starts it, on loopback,
// with a temporary data dir and the tokens given, in a process group of its own so that stopping it stops
// whatever it started.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

export interface ProductionServerOptions {
  /** Prefix of the temporary data dir's name (it is removed when the server stops). */
  dataDirPrefix: string
  operatorToken: string
  viewerToken: string
  /** A fixed port; a free one otherwise. */
  port?: number
  /** More environment for the server (beyond this process's, the data dir and the tokens). */
  env?: Record<string, string>
}

export interface ProductionServer {
  url: string
  dataDir: string
  pid: number | null
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
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

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    // It closes its logs first, then exits; SIGKILL only when it does not within 30 s.
    process.kill(-child.pid, 'SIGTERM')
    // The timer is cleared once the server exited: left running, it held vitest open until its close timeout.
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 30_000, 'timeout')))
    if ((await Promise.race([exited, timeout])) === 'timeout') process.kill(-child.pid, 'SIGKILL')
    clearTimeout(timer)
  }
  child.stdout?.destroy()
  child.stderr?.destroy()
}

export async function startProductionServer(options: ProductionServerOptions): Promise<ProductionServer> {
  if (!existsSync(path.join(root, '.next/BUILD_ID'))) throw new Error("no production build (.next/BUILD_ID): run 'npx next build' first")
  const dataDir = mkdtempSync(path.join(tmpdir(), options.dataDirPrefix))
  const port = options.port ?? (await freePort())
  let output = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      MIRRORBOARD_DATA_DIR: dataDir,
      MIRRORBOARD_OPERATOR_TOKEN: options.operatorToken,
      MIRRORBOARD_VIEWER_TOKEN: options.viewerToken,
      ...options.env,
    },
  })
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    await stopChild(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    await waitForHealth(url, child, () => output)
  } catch (error) {
    await stop()
    throw error
  }
  return { url, dataDir, pid: child.pid ?? null, stop }
}
