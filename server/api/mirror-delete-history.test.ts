import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import * as objectivesRoute from '@/app/api/v1/mirrors/[mirror]/objectives/route'
import type { MirrorObjectivesResponse } from '@/lib/api/objectives'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'

/**
 * Deleting a mirror removes its lag history and recovery points (<data dir>/lag/<mirror>.jsonl and lag/recovery-points/<mirror>.jsonl):
 * a new mirror of the same name starts with no compliance, not the old one's. The files are real, as the engine
 * writes them: an hour of minutes, each over the RPO objective, and a neighbour's files that must stay.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-delete-history-fallback-${process.pid}`)

const MINUTE = 60_000
let dataDir: string
let runtime: Runtime

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-delete-history-'))
  runtime = await openTestRuntime(dataDir, { demo: false })
  await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1 })
  await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1 })
}, 60_000)

afterAll(async () => {
  await runtime?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function createMirror(name = 'dr'): Promise<void> {
  const created = await callRoute(mirrorsRoute.POST, {
    method: 'POST',
    path: '/api/v1/mirrors',
    body: { name, sourceCluster: 'a', destinationCluster: 'b', topics: [], config: { objectives: { rpoRecords: 10 } } },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
}

async function compliance(name = 'dr'): Promise<NonNullable<MirrorObjectivesResponse['rpoCompliance']>> {
  const answer = await callRoute(objectivesRoute.GET, { path: `/api/v1/mirrors/${name}/objectives`, params: { mirror: name } })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return (answer.body as MirrorObjectivesResponse).rpoCompliance!
}

it('a deleted mirror takes its lag history and recovery points with it: a new mirror of its name inherits no compliance', async () => {
  await createMirror()
  const lagDir = path.join(dataDir, 'lag')
  const pointsDir = path.join(lagDir, 'recovery-points')
  mkdirSync(pointsDir, { recursive: true })
  const start = Math.floor(Date.now() / MINUTE) * MINUTE - 61 * MINUTE
  const minutes = Array.from({ length: 60 }, (_, index) => start + index * MINUTE)
  const lines = (make: (t: number) => object) => minutes.map((t) => `${JSON.stringify(make(t))}\n`).join('')
  writeFileSync(path.join(lagDir, 'dr.jsonl'), lines((t) => ({ t, p: [['orders', 0, 500, 90_000]] })))
  writeFileSync(path.join(pointsDir, 'dr.jsonl'), lines((t) => ({ t, r: 500, s: 90_000, k: true })))
  // Another mirror whose name starts the same: its files are its own.
  writeFileSync(path.join(lagDir, 'dr-eu.jsonl'), lines((t) => ({ t, p: [] })))
  writeFileSync(path.join(pointsDir, 'dr-eu.jsonl'), lines((t) => ({ t, r: 0, s: 0, k: true })))

  expect(readdirSync(lagDir).sort()).toEqual(['dr-eu.jsonl', 'dr.jsonl', 'recovery-points'])
  expect(readdirSync(pointsDir).sort()).toEqual(['dr-eu.jsonl', 'dr.jsonl'])
  const deleted = await callRoute(mirrorRoute.DELETE, { method: 'DELETE', path: '/api/v1/mirrors/dr', params: { mirror: 'dr' } })
  expect(deleted.status, JSON.stringify(deleted.body)).toBeLessThan(300)
  expect(existsSync(path.join(lagDir, 'dr.jsonl'))).toBe(false)
  expect(existsSync(path.join(pointsDir, 'dr.jsonl'))).toBe(false)
  expect(readdirSync(lagDir).sort()).toEqual(['dr-eu.jsonl', 'recovery-points'])
  expect(readdirSync(pointsDir).sort()).toEqual(['dr-eu.jsonl'])

  await createMirror()
  const fresh = await compliance()
  expect(fresh.last30d).toMatchObject({ met: 0, breached: 0, unknown: 0, metShare: null })
}, 60_000)

it("minutes archived before a mirror was created are not its compliance (another instance's leftovers of a deleted namesake)", async () => {
  const pointsDir = path.join(dataDir, 'lag', 'recovery-points')
  mkdirSync(pointsDir, { recursive: true })
  const start = Math.floor(Date.now() / MINUTE) * MINUTE - 61 * MINUTE
  const minutes = Array.from({ length: 60 }, (_, index) => start + index * MINUTE)
  writeFileSync(path.join(pointsDir, 'orders-dr.jsonl'), minutes.map((t) => `${JSON.stringify({ t, r: 500, s: 90_000, k: true })}\n`).join(''))
  await createMirror('orders-dr')
  expect((await compliance('orders-dr')).last30d).toMatchObject({ met: 0, breached: 0, unknown: 0, metShare: null })
}, 60_000)
