/**
 * Issue #40: the control cluster unreachable at start. The production server entry (`server/main.ts` over the
 * `next build` output) started with MIRRORBOARD_CONTROL_BOOTSTRAP naming a port nothing listens on exits with a
 * non-zero code and says which control cluster could not be used (instrumentation.ts stops the process once the runtime's
 * start fails; Next may have begun listening by then).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '@/scripts/testing/production-server'

const root = path.resolve(import.meta.dirname, '../..')
const dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-control-unreachable-'))

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('the control cluster unreachable at start', () => {
  it('stops the server with a clear message and a non-zero exit code', async () => {
    const [closed, port] = [await freePort(), await freePort()]
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '-H', '127.0.0.1', '-p', String(port)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        MIRRORBOARD_DATA_DIR: dataDir,
        MIRRORBOARD_CONTROL_BOOTSTRAP: `127.0.0.1:${closed}`,
        MIRRORBOARD_SECRET_KEY: 'control-unreachable-secret-key',
        MIRRORBOARD_INSTANCE_ID: 'unreachable-1',
      },
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)))
    expect(code, output.slice(-3000)).toBe(1)
    expect(output).toContain(`mirrorboard could not start: `)
    expect(output).toContain(`the control cluster at 127.0.0.1:${closed} cannot be used`)
  })
})
