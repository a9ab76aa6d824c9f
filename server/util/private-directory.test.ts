import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Logger } from '../observability/logger'
import { ensurePrivateDirectory } from './private-directory'

let root: string
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'mirrorboard-private-'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

function recorder(): Logger & { warnings: unknown[] } {
  const warnings: unknown[] = []
  const log: Logger & { warnings: unknown[] } = { warnings, debug: vi.fn(), info: vi.fn(), error: vi.fn(), warn: (message, fields) => warnings.push({ message, fields }), child: () => log }
  return log
}

describe('ensurePrivateDirectory (issue #41 item 6)', () => {
  it('creates the data directory 0700 and says nothing', async () => {
    const dir = path.join(root, 'data', 'nested')
    const log = recorder()
    expect(await ensurePrivateDirectory(dir, log)).toEqual({ openToOthers: false })
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(log.warnings).toEqual([])
  })

  it('warns about an existing directory others can read, and leaves its mode alone', async () => {
    const dir = path.join(root, 'shared')
    mkdirSync(dir)
    chmodSync(dir, 0o755)
    const log = recorder()
    expect(await ensurePrivateDirectory(dir, log)).toEqual({ openToOthers: true })
    expect(log.warnings).toEqual([{ message: expect.stringMatching(/read by others/), fields: { dir, mode: '0755' } }])
    expect(statSync(dir).mode & 0o777).toBe(0o755)
  })
})
