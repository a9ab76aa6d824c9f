import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as auditRoute from '@/app/api/v1/audit/route'
import * as historyRoute from '@/app/api/v1/mirrors/[mirror]/partitions/[topic]/[partition]/history/route'
import * as recoverRoute from '@/app/api/v1/mirrors/[mirror]/topics/recover/route'
import { PartitionHistory, RecoverTopicsResponse } from '@/lib/api/mirrors'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

/**
 * A row's "Retry now" through the HTTP API (issue #33): POST /mirrors/{m}/topics/recover with `partitions` retries
 * exactly the named FAILED partitions, leaving the topic's other FAILED partitions alone; a named partition that
 * is not FAILED or not mirrored is refused with a code, and a malformed body with VALIDATION_FAILED, changing
 * nothing; every request is audited with the partitions it named. The `topics` form keeps working.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-recover-fallback-${process.pid}`)

const settle = { timeout: 30_000, interval: 50 }
let dataDir: string
let runtime: Runtime

const recover = (body: unknown, mirror = 'dr') => callRoute(recoverRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/topics/recover`, params: { mirror }, body })
const stateOf = (topic: string, partition: number) => runtime.engine.partitions('dr').find((p) => p.topic === topic && p.partition === partition)?.state
/** How often the partition has been asked to recover, as its history tells. */
async function recoveriesOf(topic: string, partition: number): Promise<number> {
  const answer = await callRoute(historyRoute.GET, { path: `/api/v1/mirrors/dr/partitions/${topic}/${partition}/history`, params: { mirror: 'dr', topic, partition: String(partition) } })
  return PartitionHistory.parse(answer.body).transitions.filter((transition) => transition.from === 'FAILED' && transition.to !== 'FAILED').length
}

describe('recovering single partitions over HTTP', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-recover-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1 })
    await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1 })
    await runtime.clusters.embedded('a').createTopic({ name: 'orders', partitions: 3 })
    await runtime.clusters.embedded('a').createTopic({ name: 'ledger', partitions: 1 })
    await runtime.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders', 'ledger'], config: { 'mirror.metadata.refresh.interval.ms': 1_000 } })
    await vi.waitFor(() => expect(runtime.engine.partitions('dr').every((p) => p.state === 'MIRRORING')).toBe(true), settle)
    // A deleted source topic fails its partitions for good (no automatic retry): only an operator recovers them.
    await runtime.clusters.embedded('a').deleteTopic('orders')
    await vi.waitFor(() => expect([0, 1, 2].map((partition) => stateOf('orders', partition))).toEqual(['FAILED', 'FAILED', 'FAILED']), settle)
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('refuses malformed bodies, unknown partitions and partitions that are not FAILED with codes, retrying nothing', async () => {
    for (const body of [{ partitions: [] }, { partitions: [{ topic: 'orders' }] }, { partitions: [{ topic: 'orders', partition: -1 }] }, { partitions: [{ topic: 'orders', partition: 0, extra: 1 }] }, { topics: ['orders'], partitions: [{ topic: 'orders', partition: 0 }] }]) {
      expect(await recover(body), JSON.stringify(body)).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    }
    expect(await recover({ partitions: [{ topic: 'orders', partition: 7 }] })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND', message: expect.stringContaining('orders-7') } } })
    const refused = await recover({ partitions: [{ topic: 'orders', partition: 0 }, { topic: 'ledger', partition: 0 }] })
    expect(refused).toMatchObject({
      status: 409,
      body: { error: { code: 'INVALID_MIRROR_STATE', message: expect.stringContaining('ledger-0 is MIRRORING'), details: { command: 'recover', allowedStates: ['FAILED'], partitions: [{ topic: 'ledger', partition: 0, state: 'MIRRORING' }] } } },
    })
    expect(await recoveriesOf('orders', 0)).toBe(0)
    expect([0, 1, 2].map((partition) => stateOf('orders', partition))).toEqual(['FAILED', 'FAILED', 'FAILED'])
  })

  it('retries exactly the named FAILED partition, audited with what it named; the topic form still retries the rest', async () => {
    const answer = await recover({ partitions: [{ topic: 'orders', partition: 1 }] })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(RecoverTopicsResponse.parse(answer.body)).toEqual({ topics: ['orders'], partitions: [{ topic: 'orders', partition: 1 }] })
    expect(await recoveriesOf('orders', 1)).toBe(1)
    expect(await recoveriesOf('orders', 0)).toBe(0)
    expect(await recoveriesOf('orders', 2)).toBe(0)

    const audit = (await callRoute(auditRoute.GET, { path: '/api/v1/audit?action=mirror.topics.recover' })).body as { entries: Array<{ action: string; target: string; outcome: string; request: unknown; error: { code: string } | null }> }
    const entries = audit.entries.filter((entry) => entry.target === '/mirrors/dr/topics/recover')
    expect(entries.find((entry) => entry.outcome === 'ok')).toMatchObject({ request: { partitions: [{ topic: 'orders', partition: 1 }] }, error: null })
    expect(entries.filter((entry) => entry.error?.code === 'INVALID_MIRROR_STATE')).toHaveLength(1)

    // Partition 1 fails again (its source topic is still gone); the topic form retries every FAILED one.
    await vi.waitFor(() => expect(stateOf('orders', 1)).toBe('FAILED'), settle)
    const all = await recover({ topics: ['orders'] })
    expect(all.status, JSON.stringify(all.body)).toBe(200)
    expect(RecoverTopicsResponse.parse(all.body)).toEqual({ topics: ['orders'] })
    expect(await recoveriesOf('orders', 0)).toBe(1)
    expect(await recoveriesOf('orders', 2)).toBe(1)
  })
})
