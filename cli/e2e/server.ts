// Global setup of the command line's suite (README.md here): the compiled command line (dist/cli/, what `npm run
// build` makes and the `mirrorboard` bin runs) is rebuilt when a source is newer, then a production server is
// started on loopback (`node --import tsx server/main.ts` over the `next build` output, as the hostile suite and the
// fuzzer start it) with a temporary data dir and known tokens, and stopped after the last file. CLI_E2E_URL (with
// CLI_E2E_OPERATOR_TOKEN and CLI_E2E_VIEWER_TOKEN) points the suite at a server already running instead.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { startProductionServer, type ProductionServer } from '../../scripts/testing/production-server'

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

let server: ProductionServer | null = null

export async function setup(project: TestProject): Promise<void> {
  ensureBuild()
  const env = process.env
  if (env.CLI_E2E_URL) {
    project.provide('cli', { url: env.CLI_E2E_URL, operatorToken: env.CLI_E2E_OPERATOR_TOKEN ?? '', viewerToken: env.CLI_E2E_VIEWER_TOKEN ?? '' })
    return
  }
  const operatorToken = `cli-e2e-operator-${'o'.repeat(24)}`
  const viewerToken = `cli-e2e-viewer-${'v'.repeat(24)}`
  server = await startProductionServer({
    dataDirPrefix: 'mirrorboard-cli-e2e-',
    operatorToken,
    viewerToken,
    ...(Number(env.CLI_E2E_PORT) ? { port: Number(env.CLI_E2E_PORT) } : {}),
    env: { MIRRORBOARD_CHECK_RESPONSES: '1' },
  })
  project.provide('cli', { url: server.url, operatorToken, viewerToken })
}

export async function teardown(): Promise<void> {
  await server?.stop()
}
