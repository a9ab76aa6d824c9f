import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as auditRoute from '@/app/api/v1/audit/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import * as cancelRoute from '@/app/api/v1/operations/[id]/cancel/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import { FailoverPlanResponse } from '@/lib/api/mirrors'
import { Operation } from '@/lib/api/operations'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

/**
 * Failover types, the RPO gate and objectives through the HTTP API (issue #34): real embedded clusters, the
 * routes as Next.js calls them, the audit log as written.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-switchover-fallback-${process.pid}`)

const settle = { timeout: 30_000, interval: 50 }
let dataDir: string
let runtime: Runtime

const failover = (mirror: string, body: unknown) => callRoute(failoverRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/failover`, params: { mirror }, body })
const patch = (mirror: string, body: unknown) => callRoute(mirrorRoute.PATCH, { method: 'PATCH', path: `/api/v1/mirrors/${mirror}`, params: { mirror }, body })
const operation = async (id: string) => Operation.parse((await callRoute(operationRoute.GET, { path: `/api/v1/operations/${id}`, params: { id } })).body)

describe('failover types, objectives and the RPO gate over HTTP', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-switchover-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1 })
    await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1 })
    await runtime.clusters.embedded('a').createTopic({ name: 'orders', partitions: 2 })
    await runtime.clusters.embedded('a').createTopic({ name: 'ledger', partitions: 1 })
    await runtime.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await runtime.engine.createMirror({ name: 'led', sourceCluster: 'a', destinationCluster: 'b', topics: ['ledger'] })
    await vi.waitFor(() => expect([...runtime.engine.partitions('dr'), ...runtime.engine.partitions('led')].every((p) => p.state === 'MIRRORING')).toBe(true), settle)
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('refuses objectives with bad values or unknown keys with VALIDATION_FAILED, changing nothing, and an unknown type', async () => {
    const before = (await callRoute(mirrorRoute.GET, { path: '/api/v1/mirrors/dr', params: { mirror: 'dr' } })).body as { config: object }
    for (const objectives of [{ rpoRecords: -1 }, { rpoSeconds: 'ten' }, { rpoRecords: 1.5 }, { rpo: 5 }, { drillIntervalDays: 0 }]) {
      const refused = await patch('dr', { config: { objectives } })
      expect(refused, JSON.stringify(objectives)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    }
    expect(((await callRoute(mirrorRoute.GET, { path: '/api/v1/mirrors/dr', params: { mirror: 'dr' } })).body as { config: object }).config).toEqual(before.config)
    expect(await failover('dr', { type: 'sideways', dryRun: true })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    expect(await failover('dr', { type: 'planned', drainTimeoutMs: -5, dryRun: true })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
  })

  it('refuses an unplanned failover over the RPO objective with RPO_OBJECTIVE_EXCEEDED, accepts it forced, and audits the figures', async () => {
    expect(await patch('led', { config: { objectives: { rpoRecords: 2, rtoSeconds: 60 } } })).toMatchObject({ status: 200, body: { config: { objectives: { rpoRecords: 2, rtoSeconds: 60 } } } })
    // Five records the mirror will not copy: it is paused.
    await runtime.engine.pauseTopics('led')
    await vi.waitFor(() => expect(runtime.engine.partitions('led').map((p) => p.state)).toEqual(['PAUSED']), settle)
    for (let i = 0; i < 5; i++) await runtime.clusters.embedded('a').produce('ledger', { records: [{ value: `entry ${i}` }] })

    const dry = await failover('led', { dryRun: true })
    const plan = FailoverPlanResponse.parse(dry.body).plan
    expect(plan).toMatchObject({ type: 'unplanned', rpo: { objective: { rpoRecords: 2 }, status: 'breached', known: true } })
    expect(plan.rpo!.records).toBeGreaterThan(2)
    expect(plan.gates.find((gate) => gate.name === 'rpo-objective')).toMatchObject({ ok: false, severity: 'warning' })

    const refused = await failover('led', { confirm: 'led' })
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'RPO_OBJECTIVE_EXCEEDED', details: { rpo: { status: 'breached' } } } } })
    expect((refused.body as { error: { message: string } }).error.message).toContain('force "rpo-objective"')
    expect(runtime.engine.partitions('led').map((p) => p.state)).toEqual(['PAUSED'])

    const accepted = await failover('led', { confirm: 'led', force: ['rpo-objective'] })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = (accepted.body as { operation: string }).operation
    await vi.waitFor(async () => expect(await operation(id)).toMatchObject({ status: 'succeeded', type: 'unplanned', forcedGates: ['lag-threshold', 'rpo-objective'] }), settle)
    const audit = (await callRoute(auditRoute.GET, { path: `/api/v1/audit?operation=${id}` })).body as { entries: Array<{ request: unknown; plan: unknown }> }
    expect(audit.entries).toHaveLength(1)
    expect(audit.entries[0]).toMatchObject({ request: { force: ['rpo-objective'] }, plan: { type: 'unplanned', rpo: { status: 'breached', objective: { rpoRecords: 2 } } } })
  })

  it('switches over with type planned: the plan says how the source is fenced, the operation drains and stops with 0 records lost', async () => {
    const a = runtime.clusters.embedded('a')
    for (let i = 0; i < 20; i++) await a.produce('orders', { records: [{ key: `k${i}`, value: `order ${i}` }] })
    const dry = await failover('dr', { type: 'planned', dryRun: true })
    expect(dry.status).toBe(200)
    expect(FailoverPlanResponse.parse(dry.body).plan).toMatchObject({ type: 'planned', switchover: { fenceMethod: 'broker', drainTimeoutMs: 120_000, transactionGraceMs: 30_000 } })
    expect(FailoverPlanResponse.parse(dry.body).plan.gates.map((gate) => gate.name)).not.toContain('lag-threshold')

    const accepted = await failover('dr', { type: 'planned', confirm: 'dr', drainTimeoutMs: 60_000 })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = (accepted.body as { operation: string }).operation
    const finished = await vi.waitFor(async () => {
      const current = await operation(id)
      expect(current.status).toBe('succeeded')
      return current
    }, settle)
    expect(finished).toMatchObject({ kind: 'switchover', type: 'planned', switchover: { phase: 'done', fenceMethod: 'broker', drainTimeoutMs: 60_000, recordsLost: { total: 0 } } })
    expect(finished.switchover!.stoppedAt! - finished.switchover!.fencedAt!).toBeGreaterThanOrEqual(0)
    const refused = await callRoute(cancelRoute.POST, { method: 'POST', path: `/api/v1/operations/${id}/cancel`, params: { id } })
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    // The old source refuses writes: the producers' answer is TOPIC_WRITE_FENCED.
    await expect(a.produce('orders', { records: [{ value: 'late' }] })).rejects.toMatchObject({ code: 'TOPIC_WRITE_FENCED' })

    // The measured RTO and the switchover's phases, as metrics; the duration is labelled planned.
    const exposition = await runtime.metrics.render()
    expect(exposition).toMatch(/^mirrorboard_failover_rto_seconds_count\{mirror="dr",type="planned"\} 1$/m)
    for (const phase of ['fence', 'drain', 'stop', 'writes_refused']) expect(exposition).toMatch(new RegExp(`^mirrorboard_switchover_phase_seconds_count\\{phase="${phase}",outcome="succeeded"\\} 1$`, 'm'))
    expect(exposition).toMatch(/^mirrorboard_operation_duration_seconds_count\{kind="switchover",type="planned",outcome="succeeded"\} 1$/m)
  })
})
