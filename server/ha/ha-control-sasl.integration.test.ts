/**
 * Issue #40: the control cluster reached over SASL (MIRRORBOARD_CONTROL_SASL_*, the same options as a cluster
 * connection): an instance whose control cluster is test cluster b's SASL_PLAINTEXT listener creates its control
 * topics, joins its group and writes its status there as the SASL user; a wrong password is refused at start with
 * the broker's reason. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { openTestRuntime } from '@/server/testing/test-runtime'
import type { Runtime } from '@/server/runtime'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import { readHaConfig } from './ha-config'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-sasl-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const dirs: string[] = []
let runtime: Runtime | null = null

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-ha-sasl-'))
  dirs.push(dir)
  return dir
}

describe('the control cluster over SASL', () => {
  afterAll(async () => {
    await runtime?.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('joins the group as the SASL user, and refuses a wrong password at start', async () => {
    const sasl = getTestClusters().b.sasl
    if (!sasl) throw new Error('test cluster b has no SASL listener: restart the test clusters (scripts/kafka/clusters.ts start)')
    const env = {
      MIRRORBOARD_CONTROL_BOOTSTRAP: sasl.bootstrap,
      MIRRORBOARD_CONTROL_SASL_MECHANISM: 'scram-sha-512',
      MIRRORBOARD_CONTROL_SASL_USERNAME: sasl.username,
      MIRRORBOARD_CONTROL_SASL_PASSWORD: sasl.password,
      MIRRORBOARD_CONTROL_GROUP: `sasl-group-${RUN}`,
      MIRRORBOARD_INSTANCE_ID: 'sasl-i1',
      MIRRORBOARD_SECRET_KEY: 'ha-control-sasl-secret-key',
      MIRRORBOARD_SESSION_TIMEOUT_MS: '6000',
    }
    const wrong = readHaConfig({ ...env, MIRRORBOARD_CONTROL_SASL_PASSWORD: 'not-the-password', MIRRORBOARD_INSTANCE_ID: 'sasl-wrong' })!
    await expect(openTestRuntime(tempDir(), { demo: false, ha: wrong })).rejects.toThrow(/the control cluster at .* cannot be used: .*(SASL|[Aa]uthentication)/)

    const config = readHaConfig(env)!
    expect(config.connection?.sasl?.mechanism).toBe('scram-sha-512')
    runtime = await openTestRuntime(tempDir(), { demo: false, ha: config })
    const ha = runtime.ha!
    await vi.waitFor(() => {
      expect(ha.leaderInstance()).toBe('sasl-i1')
      expect(ha.instances().map(({ id, alive }) => ({ id, alive }))).toEqual([{ id: 'sasl-i1', alive: true }])
    }, { timeout: 60_000, interval: 250 })
    expect(ha.control.state().available).toBe(true)
  })
})
