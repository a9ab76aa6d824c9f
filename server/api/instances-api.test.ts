import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as instancesRoute from '@/app/api/v1/instances/route'
import { instancesOf } from '@/server/api/instances-api'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

const dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-instances-'))
process.env.MIRRORBOARD_DATA_DIR = dataDir
let runtime: Runtime

describe('GET /api/v1/instances without a control cluster', () => {
  beforeAll(async () => {
    runtime = await openTestRuntime(dataDir, { demo: false })
    await runtime.clusters.create({ name: 'east', kind: 'embedded', brokers: 1 })
    await runtime.clusters.create({ name: 'west', kind: 'embedded', brokers: 1 })
    await runtime.engine.createMirror({ name: 'east-to-west', sourceCluster: 'east', destinationCluster: 'west', topics: [] })
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers this one instance, running every mirror, with no group and no heartbeat', async () => {
    const { status, body } = await callRoute(instancesRoute.GET, { path: '/api/v1/instances' })
    expect(status).toBe(200)
    expect(body).toEqual({ highAvailability: false, instances: [{ id: 'this', alive: true, version: '0.0.0-test', mirrors: ['east-to-west'], lastHeartbeatAt: null, self: true }] })
  })

  it('names to a scoped caller only the mirrors its grants reach, as GET /mirrors does', () => {
    const deps = { version: runtime.version, engine: runtime.engine, ha: runtime.ha }
    expect(instancesOf(deps, [{ role: 'viewer', mirrors: ['other-.*'] }]).instances.map((instance) => instance.mirrors)).toEqual([[]])
    expect(instancesOf(deps, [{ role: 'operator', mirrors: ['east-.*'] }]).instances.map((instance) => instance.mirrors)).toEqual([['east-to-west']])
    expect(instancesOf(deps, [{ role: 'viewer' }]).instances.map((instance) => instance.mirrors)).toEqual([['east-to-west']])
  })

  it('is refused without credentials', async () => {
    const { status } = await callRoute(instancesRoute.GET, { path: '/api/v1/instances', headers: { authorization: '' } })
    expect(status).toBe(401)
  })
})
