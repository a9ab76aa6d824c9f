import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as reportRoute from '@/app/api/v1/operations/[id]/report/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import type { OperationReport } from '@/lib/api/operation-report'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

/**
 * The incident report of a real failover (the KIP's worked example through the API): the verification that
 * starts by itself when the failover finishes, the JSON report with its timeline and where the consumer group
 * resumes, and the Markdown post-mortem.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-incident-fallback-${process.pid}`)

const settle = { timeout: 30_000, interval: 100 }
let dataDir: string
let runtime: Runtime

describe('the incident report of a failover', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-incident-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('verifies the failover by itself and reports timeline, markers, "identical up to offset 3" and where the group resumes', async () => {
    await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1, firstProducerId: 4001 })
    await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1, firstProducerId: 9001 })
    const a = runtime.clusters.embedded('a')
    await a.createTopic({ name: 'orders', partitions: 1 })
    const p4001 = await a.createTransactionalProducer('tx-4001')
    const p4002 = await a.createTransactionalProducer('tx-4002')
    await p4001.send('orders', { partition: 0, records: [{ key: 'A', value: '1' }] })
    await p4001.send('orders', { partition: 0, records: [{ key: 'B', value: '2' }] })
    await p4002.send('orders', { partition: 0, records: [{ key: 'X', value: '9' }] })
    await a.commitOffsets('billing', [{ topic: 'orders', partition: 0, offset: 2 }])
    // Group offsets are synced with the metadata: every 500 ms here, so the group reaches b before the failover.
    await runtime.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config: { 'mirror.metadata.refresh.interval.ms': 500 } })
    await vi.waitFor(async () => {
      expect(runtime.engine.partitions('dr').map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 3]])
      const groups = await runtime.clusters.embedded('b').listGroupOffsets()
      expect(groups.find((group) => group.groupId === 'billing')?.offsets.map((o) => o.offset)).toEqual([2])
    }, settle)

    const accepted = await callRoute(failoverRoute.POST, { method: 'POST', path: '/api/v1/mirrors/dr/failover', params: { mirror: 'dr' }, body: { confirm: 'dr' } })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = (accepted.body as { operation: string }).operation
    await vi.waitFor(async () => expect((await callRoute(operationRoute.GET, { path: `/api/v1/operations/${id}`, params: { id } })).body).toMatchObject({ status: 'succeeded' }), settle)
    const verification = await vi.waitFor(() => {
      const found = runtime.verifier.ofOperation(id)
      expect(found?.status).toBe('passed')
      return found!
    }, settle)
    expect(verification.partitions).toMatchObject([{ topic: 'orders', partition: 0, fromOffset: 0, toOffset: 3, summary: 'identical up to offset 3' }])

    const json = await callRoute(reportRoute.GET, { path: `/api/v1/operations/${id}/report`, params: { id } })
    expect(json.status).toBe(200)
    const report = json.body as OperationReport
    expect(report.verification).toMatchObject({ id: verification.id, status: 'passed', partitions: [{ summary: 'identical up to offset 3', mismatchCount: 0 }] })
    expect(report.objectives).toBeNull()
    expect(report.objectiveResults).toEqual([])
    expect(report.consumerGroups).toEqual([{ groupId: 'billing', topic: 'orders', partition: 0, resumeAt: 2, committedAtSource: null, offsetsToReprocess: null }])
    expect(report.measured.rtoMs).toEqual(expect.any(Number))
    expect(report.measured.rpo).toEqual({ records: 0, seconds: 0 })
    expect(report.timeline.map((entry) => entry.event)).toEqual(expect.arrayContaining(['confirmed', 'gate', 'transition', 'finished', 'verified']))
    expect(report.timeline.find((entry) => entry.event === 'transition' && entry.detail.includes('→ STOPPING'))?.detail).toBe('orders-0: MIRRORING → STOPPING (failover requested)')
    expect(report.timeline.map((entry) => entry.at)).toEqual([...report.timeline.map((entry) => entry.at)].sort((x, y) => x - y))

    const md = await callRoute(reportRoute.GET, { path: `/api/v1/operations/${id}/report?format=md`, params: { id } })
    expect(md.status).toBe(200)
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(md.headers.get('content-disposition')).toBe(`attachment; filename="failover-report-${id}.md"`)
    const text = String(md.body)
    expect(text).toMatch(/^# Failover of dr: post-mortem\n/)
    expect(text).toContain('None set for this mirror')
    expect(text).toContain('| orders-0 | STOPPED | epoch 0, offset 3 | 3 (producer 4001, epoch 0); 4 (producer 4002, epoch 0) | 5 |')
    expect(text).toContain('| orders-0 | identical | identical up to offset 3 | 0 |')
    expect(text).toContain('| billing | orders-0 | 2 |')
    expect(text).toContain('## Timeline')

    const bad = await callRoute(reportRoute.GET, { path: `/api/v1/operations/${id}/report?format=pdf`, params: { id } })
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
  })
})
