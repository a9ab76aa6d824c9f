// Global setup of the command line's suite (README.md here): the compiled command line (dist/cli/, what `npm run
// build` makes and the `mirrorboard` bin runs) is rebuilt when a source is newer, then a production server is
// started on loopback (`node --import tsx server/main.ts` over the `next build` output, as the hostile suite and the
// fuzzer start it) with a temporary data dir and known tokens, and stopped after the last file. CLI_E2E_URL (with
// CLI_E2E_OPERATOR_TOKEN and CLI_E2E_VIEWER_TOKEN) points the suite at a server already running instead.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'

export interface CliTarget {
  url: string
  operatorToken: string
  viewerToken: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    cli: CliTarget
  }
}

const root = path.resolve(import.meta.dirname, '../..')

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** The newest .ts source under these folders (tests excluded), as cli/bin.js compares it with the build. */
function newestSource(folders: readonly string[]): number {
  let newest = 0
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(full).mtimeMs)
    }
  }
  for (const folder of folders) walk(path.join(root, folder))
  return newest
}

/**
 * The suite tests the build, not the sources: cli/bin.js runs the sources through tsx when they are newer than
 * the build, which would hide a build that does not work. So a stale or missing build is made first.
 */
function ensureBuild(): void {
  const stamp = path.join(root, 'dist/cli/BUILT')
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource(['cli', 'lib'])) return
  console.log('cli e2e: building the command line (node cli/build.mjs)')
  execFileSync(process.execPath, ['cli/build.mjs'], { cwd: root, stdio: 'inherit' })
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
  ensureBuild()
  const env = process.env
  if (env.CLI_E2E_URL) {
    project.provide('cli', { url: env.CLI_E2E_URL, operatorToken: env.CLI_E2E_OPERATOR_TOKEN ?? '', viewerToken: env.CLI_E2E_VIEWER_TOKEN ?? '' })
    return
  }
  if (!existsSync(path.join(root, '.next/BUILD_ID'))) throw new Error("no production build (.next/BUILD_ID): run 'npx next build' first")
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-cli-e2e-'))
  const port = Number(env.CLI_E2E_PORT) || (await freePort())
  const operatorToken = `cli-e2e-operator-${'o'.repeat(24)}`
  const viewerToken = `cli-e2e-viewer-${'v'.repeat(24)}`
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
      MIRRORBOARD_CHECK_RESPONSES: '1',
    },
  })
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(url, child, () => output)
  project.provide('cli', { url, operatorToken, viewerToken })
}

export async function teardown(): Promise<void> {
  const server = child
  if (server?.pid !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve))
    // Its own process group: whatever it started stops with it.
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
