import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as auditRoute from '@/app/api/v1/audit/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import * as unfenceRoute from '@/app/api/v1/mirrors/[mirror]/unfence/route'
import * as fencesRoute from '@/app/api/v1/mirrors/[mirror]/fences/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import { Operation } from '@/lib/api/operations'
import { MirrorFencesResponse, UnfenceResponse } from '@/lib/api/mirrors'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

/**
 * The operator's unfence through the HTTP API (issue #34): after a planned switchover the old source stays fenced;
 * POST /mirrors/{m}/unfence lifts the fence (typed, audited, idempotent), and the mirror cannot be deleted before.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-unfence-fallback-${process.pid}`)

const settle = { timeout: 30_000, interval: 50 }
let dataDir: string
let runtime: Runtime

const unfence = (mirror: string, body: unknown) => callRoute(unfenceRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/unfence`, params: { mirror }, body })
const fencesOf = async (mirror: string) => MirrorFencesResponse.parse((await callRoute(fencesRoute.GET, { path: `/api/v1/mirrors/${mirror}/fences`, params: { mirror } })).body)
const remove = (mirror: string) => callRoute(mirrorRoute.DELETE, { method: 'DELETE', path: `/api/v1/mirrors/${mirror}`, params: { mirror } })

describe('unfencing the old source of a planned switchover over HTTP', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-unfence-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1 })
    await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1 })
    await runtime.clusters.embedded('a').createTopic({ name: 'orders', partitions: 2 })
    await runtime.clusters.embedded('a').createTopic({ name: 'ledger', partitions: 1 })
    await runtime.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'ledger'] })
    await vi.waitFor(() => expect(runtime.engine.partitions('dr').every((p) => p.state === 'MIRRORING')).toBe(true), settle)
    const accepted = await callRoute(failoverRoute.POST, { method: 'POST', path: '/api/v1/mirrors/dr/failover', params: { mirror: 'dr' }, body: { type: 'planned', confirm: 'dr' } })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = (accepted.body as { operation: string }).operation
    await vi.waitFor(async () => expect(Operation.parse((await callRoute(operationRoute.GET, { path: `/api/v1/operations/${id}`, params: { id } })).body).status).toBe('succeeded'), settle)
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('refuses to delete a mirror whose fence is still on its source, naming the topics', async () => {
    expect(await remove('dr')).toMatchObject({ status: 409, body: { error: { code: 'INVALID_MIRROR_STATE', details: { fencedTopics: ['ledger', 'orders'], sourceCluster: 'a' } } } })
    expect(runtime.engine.listMirrors().map((mirror) => mirror.name)).toEqual(['dr'])
  })

  it('refuses a missing or wrong confirm, unknown keys and an unknown mirror with coded errors, lifting nothing', async () => {
    expect(await unfence('dr', {})).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    expect(await unfence('dr', { confirm: 'dr', everything: true })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    expect(await unfence('dr', { confirm: 'nope' })).toMatchObject({ body: { error: { code: 'CONFIRMATION_REQUIRED' } } })
    expect(await unfence('gone', { confirm: 'gone' })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    expect((await runtime.clusters.embedded('a').writeFences()).map((fence) => fence.topic).sort()).toEqual(['ledger', 'orders'])
  })

  it('lifts the fence of the topics named, then of the rest, audited, idempotent; then the mirror can be deleted', async () => {
    const a = runtime.clusters.embedded('a')
    expect(await fencesOf('dr')).toMatchObject({ mirror: 'dr', sourceCluster: 'a', fences: [{ topic: 'ledger' }, { topic: 'orders' }] })
    const first = await unfence('dr', { confirm: 'dr', topics: ['ledger'] })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(UnfenceResponse.parse(first.body)).toMatchObject({ mirror: 'dr', sourceCluster: 'a', unfenced: [{ topic: 'ledger' }] })
    await a.produce('ledger', { records: [{ value: 'writable again' }] })
    await expect(a.produce('orders', { records: [{ value: 'still fenced' }] })).rejects.toMatchObject({ code: 'TOPIC_WRITE_FENCED' })

    expect((await fencesOf('dr')).fences.map((fence) => fence.topic)).toEqual(['orders'])
    expect(UnfenceResponse.parse((await unfence('dr', { confirm: 'dr' })).body).unfenced.map((fence) => fence.topic)).toEqual(['orders'])
    expect((await fencesOf('dr')).fences).toEqual([])
    expect(UnfenceResponse.parse((await unfence('dr', { confirm: 'dr' })).body).unfenced).toEqual([])
    await a.produce('orders', { records: [{ value: 'writable again' }] })

    const audit = (await callRoute(auditRoute.GET, { path: '/api/v1/audit?action=mirror.unfence' })).body as { entries: Array<{ action: string; target: string; outcome: string; request: unknown; error: { code: string } | null }> }
    const entries = audit.entries.filter((entry) => entry.action === 'mirror.unfence' && entry.target === '/mirrors/dr/unfence')
    expect(entries.filter((entry) => entry.error === null).map((entry) => entry.request)).toEqual(
      expect.arrayContaining([{ confirm: 'dr', topics: ['ledger'] }, { confirm: 'dr' }]),
    )
    expect(entries.some((entry) => entry.error?.code === 'CONFIRMATION_REQUIRED')).toBe(true)
    expect(await remove('dr')).toMatchObject({ status: 204 })
  })
})
