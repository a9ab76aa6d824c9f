import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import * as attentionRoute from '@/app/api/v1/attention/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import { AttentionResponse } from '@/lib/api/attention'
import { MirrorList } from '@/lib/api/mirrors'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { embeddedMirrors } from '@/server/testing/embedded-mirrors'

/**
 * GET /attention lists the mirrors over their RPO objective (issue #34), from the same figures as the summaries'
 * `objectives`, so the overview's "Needs attention" (which reads it) and its edges agree with the API. Real
 * embedded clusters: a mirror held behind by its throttle, beside one within its objective.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-attention-rpo-fallback-${process.pid}`)

const settle = { timeout: 30_000, interval: 50 }
let dataDir: string
let runtime: Runtime

const patch = (mirror: string, body: unknown) => callRoute(mirrorRoute.PATCH, { method: 'PATCH', path: `/api/v1/mirrors/${mirror}`, params: { mirror }, body })

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-attention-rpo-'))
  runtime = await openTestRuntime(dataDir, { demo: false })
  await embeddedMirrors(runtime, { source: 'a', destination: 'b', mirrors: { led: 'ledger', ord: 'orders' } })
}, 60_000)

afterAll(async () => {
  await runtime?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

it('GET /attention lists the mirror over its RPO objective with its figures, as the summaries say, and not the one within it', async () => {
  // Held behind by a 20 B/s replication throttle (a one-record batch is about 80 bytes): every fetch still reads the
  // source, so the lag stays known while the records at risk stay over 2.
  expect((await patch('led', { config: { 'mirror.replication.throttled.rate': 20, objectives: { rpoRecords: 2 } } })).status).toBe(200)
  expect((await patch('ord', { config: { objectives: { rpoRecords: 1_000 } } })).status).toBe(200)
  for (let i = 0; i < 100; i++) await runtime.clusters.embedded('a').produce('ledger', { records: [{ value: `entry ${i}` }] })
  await runtime.clusters.embedded('a').produce('orders', { records: [{ value: 'one' }] })

  await vi.waitFor(async () => {
    const answer = await callRoute(attentionRoute.GET, { path: '/api/v1/attention' })
    expect(answer.status).toBe(200)
    const attention = AttentionResponse.parse(answer.body)
    expect(attention.rpoBreaches).toMatchObject([{ mirror: 'led', known: true, rpoRecords: 2, rpoSeconds: null }])
    expect(attention.rpoBreaches[0]!.records).toBeGreaterThan(2)
  }, settle)

  const summaries = MirrorList.parse((await callRoute(mirrorsRoute.GET, { path: '/api/v1/mirrors' })).body).mirrors
  const breachedInList = summaries.filter((mirror) => mirror.objectives?.status === 'breached').map((mirror) => mirror.name)
  const attention = AttentionResponse.parse((await callRoute(attentionRoute.GET, { path: '/api/v1/attention?limit=1' })).body)
  expect(attention.rpoBreaches.map((breach) => breach.mirror)).toEqual(breachedInList)
  expect(summaries.find((mirror) => mirror.name === 'ord')?.objectives?.status).toBe('met')
}, 60_000)
