// Over 400 lines on purpose: every fault, workload and scenario of the live demo against one runtime started once
// (a dozen embedded clusters take seconds to open); split, each file would start its own.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as demoRoute from '@/app/api/v1/demo/route'
import * as sessionRoute from '@/app/api/v1/demo/session/route'
import * as faultRoute from '@/app/api/v1/demo/faults/[id]/route'
import * as faultsRoute from '@/app/api/v1/demo/faults/route'
import * as runRoute from '@/app/api/v1/demo/runs/[id]/route'
import * as runScenarioRoute from '@/app/api/v1/demo/scenarios/[name]/run/route'
import * as scenariosRoute from '@/app/api/v1/demo/scenarios/route'
import * as workloadRoute from '@/app/api/v1/demo/workloads/[name]/route'
import * as pauseRoute from '@/app/api/v1/demo/workloads/[name]/pause/route'
import * as resumeRoute from '@/app/api/v1/demo/workloads/[name]/resume/route'
import * as workloadsRoute from '@/app/api/v1/demo/workloads/route'
import * as verifyRoute from '@/app/api/v1/mirrors/[mirror]/verify/route'
import * as verificationRoute from '@/app/api/v1/verifications/[id]/route'
import type { Fault, Run, Scenario, Workload } from '@/lib/api/demo'
import type { Verification } from '@/lib/api/verifications'
import { DemoEvent } from '@/lib/api/events'
import { partitionAtRisk } from '@/lib/mirror/at-risk'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { partitionSnapshot } from '@/server/api/partition-snapshot'
import type { Runtime } from '@/server/runtime'
import { LIVE, LIVE_MIRROR_CONFIG } from './live-topology'
import { WORKED_EXAMPLE_DESTINATION, WORKED_EXAMPLE_SOURCE } from './scenarios/kip-worked-example'
import { logTable } from './scenarios/scenario'
import { callRoute, openTestRuntime, TEST_TOKENS } from '@/server/testing/test-runtime'

/**
 * The demo environment over real embedded clusters and the real engine in a temp dir, driven through its
 * route handlers: the live setup and its workloads, every fault kind with its effect and its heal, every
 * scenario to `succeeded`, a restart in the middle of a scenario, and the 404s outside demo mode.
 */

// Route handlers fall back to starting the real runtime when none is installed; never over ./data.
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-demo-fallback-${process.pid}`)

let dataDir: string
let runtime: Runtime
let banner = ''

const demo = () => runtime.demo!
const source = () => runtime.clusters.embedded(LIVE.sourceCluster)

async function sumLogEnd(cluster: string, topic: string): Promise<number> {
  return (await runtime.clusters.embedded(cluster).describeTopic(topic)).partitions.reduce((sum, p) => sum + p.logEndOffset, 0)
}

const waitLong = { timeout: 30_000, interval: 100 }

function injectFault(body: Record<string, unknown>) {
  return callRoute(faultsRoute.POST, { method: 'POST', path: '/api/v1/demo/faults', body })
}

describe('the live demo', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-demo-'))
    runtime = await openTestRuntime(dataDir, { demo: true, print: (text) => (banner += text) })
  }, 60_000)
  // Closing flushes every replica log of a dozen clusters: seconds on a busy disk.
  afterAll(async () => {
    await runtime?.close()
  }, 60_000)

  it('sets up us-east → eu-west over orders, payments and clickstream and prints the URL and both tokens', async () => {
    expect(runtime.clusters.names()).toEqual(['us-east', 'eu-west'])
    const topics = await source().describeTopics()
    expect(Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]))).toEqual({ orders: 6, payments: 3, clickstream: 12 })
    expect(runtime.engine.getMirror(LIVE.mirror)).toMatchObject({ sourceCluster: 'us-east', destinationCluster: 'eu-west' })
    expect(banner).toContain('http://127.0.0.1:3000')
    expect(banner).toContain(TEST_TOKENS.operator)
    expect(banner).toContain(TEST_TOKENS.viewer)
    const status = await callRoute(demoRoute.GET, { path: '/api/v1/demo', headers: { authorization: `Bearer ${TEST_TOKENS.viewer}` } })
    expect(status).toMatchObject({ status: 200, body: { status: 'ready', mirror: LIVE.mirror, error: null } })
  })

  it('keeps lag alive: every topic is written, mirrored, and read by a group that commits at the source', async () => {
    await vi.waitFor(async () => {
      for (const topic of ['orders', 'payments', 'clickstream']) expect(await sumLogEnd('eu-west', topic)).toBeGreaterThan(0)
      const groups = await source().describeGroups()
      for (const groupId of ['billing', 'fraud-check', 'analytics']) expect(groups.find((g) => g.groupId === groupId)?.offsets.length ?? 0).toBeGreaterThan(0)
      for (const workload of demo().workloads.list()) expect(workload.recordsTotal, workload.name).toBeGreaterThan(0)
    }, waitLong)
    expect(runtime.engine.partitions(LIVE.mirror)).toHaveLength(21)
    await vi.waitFor(() => expect(new Set(runtime.engine.partitions(LIVE.mirror).map((p) => p.state))).toEqual(new Set(['MIRRORING'])), waitLong)
    const { body } = await callRoute(workloadsRoute.GET, { path: '/api/v1/demo/workloads' })
    const workloads = (body as { workloads: Workload[] }).workloads
    expect(workloads.map((w) => [w.name, w.topic, w.kind])).toEqual([
      ['orders-transactions', 'orders', 'transactional'],
      ['payments-idempotent', 'payments', 'idempotent'],
      ['clickstream-plain', 'clickstream', 'plain'],
      ['billing-consumer', 'orders', 'consumer'],
      ['fraud-check-consumer', 'payments', 'consumer'],
      ['analytics-consumer', 'clickstream', 'consumer'],
    ])
    for (const workload of workloads) expect(workload.recordsTotal, workload.name).toBeGreaterThan(0)
    // Producers follow their traffic around the set rate; consumer groups read at theirs and say how far behind they are.
    for (const workload of workloads.filter((w) => w.kind !== 'consumer')) {
      expect(workload.currentRatePerSecond, workload.name).toBeGreaterThanOrEqual(Math.floor(workload.ratePerSecond * 0.5))
      expect(workload.currentRatePerSecond, workload.name).toBeLessThanOrEqual(Math.ceil(workload.ratePerSecond * 1.5 * 3))
      expect(workload.behindRecords, workload.name).toBeNull()
    }
    for (const workload of workloads.filter((w) => w.kind === 'consumer')) {
      expect(workload.currentRatePerSecond, workload.name).toBe(workload.ratePerSecond)
      expect(workload.behindRecords, workload.name).toBeGreaterThanOrEqual(0)
    }
    // The throttled, thin link of the live mirror: a burst outruns it, and the engine's own lag samples show it
    // (with Kafka's default fetch sizes and no throttle every sample read 0).
    expect(runtime.engine.getMirror(LIVE.mirror).config).toMatchObject(LIVE_MIRROR_CONFIG)
    // In the quiet hours of the demo's day a burst fits through the throttle: a visitor's rate outruns it at once.
    const clickRate = demo().workloads.get('clickstream-plain').ratePerSecond
    await demo().workloads.setRate('clickstream-plain', 1_000)
    await vi.waitFor(() => expect(runtime.engine.lagSeries(LIVE.mirror).some((series) => series.points.some(([, offsetLag]) => offsetLag > 0))).toBe(true), waitLong)
    await demo().workloads.setRate('clickstream-plain', clickRate)
    // Transactional and idempotent records carry producer ids; clickstream's do not.
    const destination = runtime.clusters.embedded('eu-west')
    const orders = (await Promise.all([0, 1, 2, 3, 4, 5].map((p) => destination.readRecords('orders', p, { limit: 50 })))).flatMap((page) => page.records)
    expect(orders.some((r) => r.type === 'DATA' && r.transactional && r.producerId !== null)).toBe(true)
    const clicks = await destination.readRecords('clickstream', 0, { limit: 5 })
    expect(clicks.records.every((r) => r.producerId === null)).toBe(true)
  })

  it('pauses, resumes and re-rates a workload; unknown names and bad rates are refused', async () => {
    const params = { name: 'clickstream-plain' }
    const paused = await callRoute(pauseRoute.POST, { method: 'POST', path: '/api/v1/demo/workloads/clickstream-plain/pause', params })
    expect(paused).toMatchObject({ status: 200, body: { workload: { name: 'clickstream-plain', paused: true } } })
    const end = await sumLogEnd('us-east', 'clickstream')
    await new Promise((resolve) => setTimeout(resolve, 800))
    expect(await sumLogEnd('us-east', 'clickstream')).toBe(end)
    const resumed = await callRoute(resumeRoute.POST, { method: 'POST', path: '/api/v1/demo/workloads/clickstream-plain/resume', params })
    expect(resumed).toMatchObject({ status: 200, body: { workload: { paused: false } } })
    await vi.waitFor(async () => expect(await sumLogEnd('us-east', 'clickstream')).toBeGreaterThan(end), waitLong)

    const patched = await callRoute(workloadRoute.PATCH, { method: 'PATCH', path: '/api/v1/demo/workloads/clickstream-plain', params, body: { ratePerSecond: 60 } })
    expect(patched).toMatchObject({ status: 200, body: { workload: { ratePerSecond: 60 } } })
    const tooFast = await callRoute(workloadRoute.PATCH, { method: 'PATCH', path: '/x', params, body: { ratePerSecond: 1_000_000 } })
    expect(tooFast).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    const unknown = await callRoute(pauseRoute.POST, { method: 'POST', path: '/x', params: { name: 'nope' } })
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    expect(demo().workloads.get('clickstream-plain')).toMatchObject({ ratePerSecond: 60, paused: false })
  })

  it('stop-broker moves leaders and mirroring carries on; the last broker is refused; start-broker and DELETE heal', async () => {
    const faultEvents: Fault[] = []
    const unsubscribe = runtime.events.subscribe((event) => {
      const data = event.type === 'demo' ? DemoEvent.parse(event.data) : null
      if (data?.change === 'faultChanged') faultEvents.push(data.fault)
    })
    const stopped = await injectFault({ kind: 'stop-broker', cluster: 'us-east', broker: 1 })
    expect(stopped).toMatchObject({ status: 202, body: { fault: { kind: 'stop-broker', broker: 1, status: 'active' } } })
    const fault = (stopped.body as { fault: Fault }).fault
    expect(source().brokers().find((b) => b.id === 1)?.alive).toBe(false)
    for (const topic of await source().describeTopics()) for (const p of topic.partitions) expect(p.leader).not.toBe(1)
    const before = await sumLogEnd('eu-west', 'clickstream')
    await vi.waitFor(async () => expect(await sumLogEnd('eu-west', 'clickstream')).toBeGreaterThan(before), waitLong)
    await vi.waitFor(() => expect(runtime.engine.partitions(LIVE.mirror).every((p) => p.state === 'MIRRORING')).toBe(true), waitLong)

    expect(await injectFault({ kind: 'stop-broker', cluster: 'us-east', broker: 2 })).toMatchObject({ status: 202 })
    const last = await injectFault({ kind: 'stop-broker', cluster: 'us-east', broker: 3 })
    expect(last).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    expect(source().brokers().find((b) => b.id === 3)?.alive).toBe(true)
    expect(await injectFault({ kind: 'stop-broker', cluster: 'us-east', broker: 2 })).toMatchObject({ status: 409 })
    expect(await injectFault({ kind: 'stop-broker', cluster: 'us-east', broker: 9 })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    expect(await injectFault({ kind: 'stop-broker', cluster: 'us-east' })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } })
    expect(await injectFault({ kind: 'stop-broker', cluster: 'nowhere', broker: 1 })).toMatchObject({ status: 404 })
    expect(await injectFault({ kind: 'melt-datacenter', cluster: 'us-east' })).toMatchObject({ status: 400 })

    const started = await injectFault({ kind: 'start-broker', cluster: 'us-east', broker: 2 })
    expect(started).toMatchObject({ status: 202, body: { fault: { kind: 'stop-broker', broker: 2, status: 'healed' } } })
    expect(await injectFault({ kind: 'start-broker', cluster: 'us-east', broker: 2 })).toMatchObject({ status: 409 })
    const listed = await callRoute(faultsRoute.GET, { path: '/api/v1/demo/faults' })
    expect((listed.body as { faults: Fault[] }).faults.map((f) => f.id)).toEqual([fault.id])
    const healed = await callRoute(faultRoute.DELETE, { method: 'DELETE', path: '/x', params: { id: fault.id } })
    expect(healed).toMatchObject({ status: 200, body: { fault: { id: fault.id, status: 'healed' } } })
    expect(await callRoute(faultRoute.DELETE, { method: 'DELETE', path: '/x', params: { id: fault.id } })).toMatchObject({ status: 409 })
    expect(await callRoute(faultRoute.DELETE, { method: 'DELETE', path: '/x', params: { id: 'f-unknown' } })).toMatchObject({ status: 404 })
    expect(source().brokers().every((b) => b.alive)).toBe(true)
    unsubscribe()
    expect(faultEvents.filter((f) => f.id === fault.id).map((f) => f.status)).toEqual(['active', 'healed'])
    // The restarted brokers catch up and rejoin the ISR.
    await vi.waitFor(async () => {
      for (const topic of await source().describeTopics()) for (const p of topic.partitions) expect(p.isr).toHaveLength(3)
    }, waitLong)
  })

  it('cut-link fails the mirror partitions, which retry with backoff; heal-link recovers them', async () => {
    // A mirror that ran before its link was cut (one cut before any fetch has no figure to bound: unknown).
    await vi.waitFor(() => expect(runtime.engine.partitions(LIVE.mirror).every((p) => p.lastFetchAt !== null)).toBe(true), waitLong)
    const cut = await injectFault({ kind: 'cut-link', cluster: 'us-east' })
    expect(cut).toMatchObject({ status: 202, body: { fault: { kind: 'cut-link', status: 'active' } } })
    expect(await injectFault({ kind: 'cut-link', cluster: 'us-east' })).toMatchObject({ status: 409 })
    await vi.waitFor(() => expect(runtime.engine.partitions(LIVE.mirror).every((p) => p.state === 'FAILED' && p.retryAttempt >= 1)).toBe(true), waitLong)
    const [failed] = runtime.engine.partitions(LIVE.mirror)
    expect(failed!.error).toContain('link of us-east is cut')
    // The source keeps taking writes meanwhile: lag builds up behind the cut.
    const behind = await sumLogEnd('eu-west', 'clickstream')
    await vi.waitFor(async () => expect(await sumLogEnd('us-east', 'clickstream')).toBeGreaterThan(behind + 20), waitLong)
    expect(await sumLogEnd('eu-west', 'clickstream')).toBe(behind)

    // One answer to "what would I lose" (issue #33): the mirror's rows, the partition page's snapshot and the
    // failover plan count the same records at risk. The link is cut but Mirrorboard still reads us-east itself;
    // the engine keeps the silent source's high watermarks from that view, so its lower bounds count what was
    // written after the cut. Every workload is held so that the three readings see one source.
    const workloads = demo().workloads.list().filter((workload) => !workload.paused)
    for (const workload of workloads) await demo().workloads.pause(workload.name)
    try {
      const sourceEnd = new Map((await source().describeTopic('clickstream')).partitions.map((p) => [p.partition, p.highWatermark]))
      await vi.waitFor(() => {
        for (const row of runtime.engine.partitions(LIVE.mirror, { topic: 'clickstream' })) expect(row.sourceHighWatermark, `clickstream-${row.partition}`).toBe(sourceEnd.get(row.partition))
      }, waitLong)
      const rows = mirrorApiOf(runtime).partitions(LIVE.mirror, { topic: 'clickstream' })
      const plan = await runtime.engine.failoverPlan(LIVE.mirror, ['clickstream'])
      expect(plan.gates.find((gate) => gate.name === 'source-reachable')).toMatchObject({ ok: false, detail: expect.stringContaining('Mirrorboard reads it directly') })
      let total = 0
      for (const row of rows) {
        const fromRow = partitionAtRisk(row, Date.now())
        const snapshot = await partitionSnapshot(runtime, LIVE.mirror, 'clickstream', row.partition)
        const planned = plan.partitions.find((entry) => entry.partition === row.partition)!
        expect(fromRow?.known, 'the mirror cannot fetch: a lower bound').toBe(false)
        expect([fromRow?.records, snapshot.atRisk?.records], `clickstream-${row.partition}`).toEqual([planned.recordsAtRisk, planned.recordsAtRisk])
        total += planned.recordsAtRisk ?? 0
      }
      // Written after the cut, and counted (the last fetch alone saw none of it).
      expect(total).toBe([...sourceEnd.values()].reduce((sum, end) => sum + end, 0) - behind)
      expect(total).toBeGreaterThan(20)
    } finally {
      for (const workload of workloads) await demo().workloads.resume(workload.name)
    }

    expect(await injectFault({ kind: 'heal-link', cluster: 'us-east' })).toMatchObject({ status: 202, body: { fault: { status: 'healed' } } })
    expect(await injectFault({ kind: 'heal-link', cluster: 'us-east' })).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    await vi.waitFor(() => expect(runtime.engine.partitions(LIVE.mirror).every((p) => p.state === 'MIRRORING')).toBe(true), waitLong)
    await vi.waitFor(async () => expect(await sumLogEnd('eu-west', 'clickstream')).toBeGreaterThan(behind), waitLong)
  })

  it('a hanging transaction holds the last stable offset until healed', async () => {
    const hanging = await injectFault({ kind: 'hanging-transaction', cluster: 'us-east', topic: 'payments', partition: 1 })
    expect(hanging).toMatchObject({ status: 202, body: { fault: { kind: 'hanging-transaction', topic: 'payments', partition: 1, status: 'active' } } })
    const fault = (hanging.body as { fault: Fault }).fault
    const at = Number(/offset (\d+)/.exec(fault.detail)![1])
    const lastStable = async () => (await source().describeTopic('payments')).partitions[1]!.lastStableOffset
    // Idempotent payments keep arriving behind it, but no reader past the open transaction sees them.
    await vi.waitFor(async () => expect((await source().describeTopic('payments')).partitions[1]!.logEndOffset).toBeGreaterThan(at + 2), waitLong)
    expect(await lastStable()).toBe(at)
    expect(await callRoute(faultRoute.DELETE, { method: 'DELETE', path: '/x', params: { id: fault.id } })).toMatchObject({ status: 200, body: { fault: { status: 'healed' } } })
    await vi.waitFor(async () => expect(await lastStable()).toBeGreaterThan(at), waitLong)
    expect(await injectFault({ kind: 'hanging-transaction', cluster: 'us-east' })).toMatchObject({ status: 400 })
  })

  it('bit rot on the destination is named by a verification at its offset; healed, the mirror verifies identical', async () => {
    await vi.waitFor(async () => expect((await runtime.clusters.embedded('eu-west').describeTopic('payments')).partitions[2]!.highWatermark).toBeGreaterThan(3), waitLong)
    const injected = await injectFault({ kind: 'bit-rot', cluster: 'eu-west', topic: 'payments', partition: 2 })
    expect(injected).toMatchObject({ status: 202, body: { fault: { kind: 'bit-rot', topic: 'payments', partition: 2, status: 'active' } } })
    const fault = (injected.body as { fault: Fault }).fault
    expect(fault.offset).toEqual(expect.any(Number))
    const verify = async () => {
      const accepted = await callRoute(verifyRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${LIVE.mirror}/verify`, params: { mirror: LIVE.mirror }, body: { topics: ['payments'] } })
      expect(accepted.status).toBe(202)
      const id = (accepted.body as { verification: string }).verification
      return vi.waitFor(async () => {
        const read = await callRoute(verificationRoute.GET, { path: `/api/v1/verifications/${id}`, params: { id } })
        const verification = read.body as Verification
        expect(verification.status).not.toBe('running')
        return verification
      }, waitLong)
    }
    const found = await verify()
    expect(found.status).toBe('mismatched')
    const rotten = found.partitions.find((p) => p.partition === 2)!
    expect(rotten.mismatches.map((m) => m.kind)).toEqual(['crc', 'bytes'])
    expect(rotten.mismatches[1]!.offset).toBe(fault.offset)
    expect(found.partitions.filter((p) => p.partition !== 2).map((p) => p.status)).toEqual(['identical', 'identical'])
    expect(await callRoute(faultRoute.DELETE, { method: 'DELETE', path: '/x', params: { id: fault.id } })).toMatchObject({ status: 200, body: { fault: { status: 'healed' } } })
    expect((await verify()).status).toBe('passed')
  })

  it('an unclean election at the source is detected by the mirror (ULE truncation on clickstream); it is refused on a mirror topic', async () => {
    // Divergence needs mirrored records the source then loses: with clickstream paused, the throttled mirror
    // catches up on partition 0 first (a mirror still behind the cut has nothing to truncate).
    const params = { name: 'clickstream-plain' }
    await callRoute(pauseRoute.POST, { method: 'POST', path: '/api/v1/demo/workloads/clickstream-plain/pause', params })
    const endOf = async (cluster: string) => (await runtime.clusters.embedded(cluster).describeTopic('clickstream')).partitions[0]!.logEndOffset
    await vi.waitFor(async () => expect(await endOf('eu-west')).toBe(await endOf('us-east')), waitLong)
    const applied = await injectFault({ kind: 'unclean-election', cluster: 'us-east', topic: 'clickstream', partition: 0 })
    await callRoute(resumeRoute.POST, { method: 'POST', path: '/api/v1/demo/workloads/clickstream-plain/resume', params })
    expect(applied).toMatchObject({ status: 202, body: { fault: { kind: 'unclean-election', status: 'applied' } } })
    await vi.waitFor(() => {
      expect(runtime.engine.partitionHistory(LIVE.mirror, 'clickstream', 0).map((t) => `${t.to} ${t.reason}`).join(' | ')).toContain('ULE_LOG_TRUNCATION')
      expect(runtime.engine.partitions(LIVE.mirror, { topic: 'clickstream' })[0]!.state).toBe('MIRRORING')
    }, waitLong)
    const fault = (applied.body as { fault: Fault }).fault
    expect(await callRoute(faultRoute.DELETE, { method: 'DELETE', path: '/x', params: { id: fault.id } })).toMatchObject({ status: 409 })
    expect(await injectFault({ kind: 'unclean-election', cluster: 'eu-west', topic: 'clickstream' })).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    expect(await injectFault({ kind: 'unclean-election', cluster: 'us-east', topic: 'no-such-topic' })).toMatchObject({ status: 404 })
  })

  it('after a crash mid-scenario the run is failed with the reason, nothing is duplicated, and the next run succeeds', async () => {
    const started = await callRoute(runScenarioRoute.POST, { method: 'POST', path: '/x', params: { name: 'planned-switchover' } })
    const run = (started.body as { run: Run }).run
    const runsFile = path.join(dataDir, 'demo', 'runs.json')
    const stored = () => (JSON.parse(readFileSync(runsFile, 'utf8')) as { runs: Run[] }).runs.find((r) => r.id === run.id)
    await vi.waitFor(() => expect(stored()?.steps[0]!.status).toBe('running'), waitLong)
    // What the file holds at this instant is what a process killed now leaves behind.
    copyFileSync(runsFile, `${runsFile}.crash`)
    const clusterCount = runtime.clusters.names().length
    // A data dir from before the throttle (its rate at the engine's default), with a fetch size an operator chose.
    await runtime.engine.updateMirrorConfig(LIVE.mirror, { 'mirror.replication.throttled.rate': 0, 'fetch.max.bytes': 2048 })
    await runtime.close()
    copyFileSync(`${runsFile}.crash`, runsFile)
    expect(stored()?.status).toBe('running')

    runtime = await openTestRuntime(dataDir, { demo: true })
    const failed = demo().runs.get(run.id)
    expect(failed.status).toBe('failed')
    expect(failed.error).toContain('the server stopped in step 1')
    expect(failed.steps[0]!.status).toBe('failed')
    expect(runtime.clusters.names().filter((name) => name === 'us-east' || name === 'eu-west')).toEqual(['us-east', 'eu-west'])
    expect(runtime.clusters.names().length).toBeLessThanOrEqual(clusterCount + 2)
    expect(runtime.engine.listMirrors().filter((m) => m.name === LIVE.mirror)).toHaveLength(1)
    expect(Object.fromEntries((await source().describeTopics()).map((t) => [t.name, t.partitions.length]))).toEqual({ orders: 6, payments: 3, clickstream: 12 })
    expect(demo().workloads.get('clickstream-plain').ratePerSecond).toBe(60)
    // The setting it lacked is added; the one the operator changed stays theirs.
    expect(runtime.engine.getMirror(LIVE.mirror).config).toMatchObject({ 'mirror.replication.throttled.rate': LIVE_MIRROR_CONFIG['mirror.replication.throttled.rate'], 'fetch.max.bytes': 2048 })

    const next = await callRoute(runScenarioRoute.POST, { method: 'POST', path: '/x', params: { name: 'planned-switchover' } })
    expect(next.status).toBe(202)
    const finished = await demo().runs.settled((next.body as { run: Run }).run.id)
    expect(finished.status, finished.error ?? '').toBe('succeeded')
  })

  it('runs every scenario to succeeded on clusters of its own; the worked example reproduces the excerpt', async () => {
    const published: DemoEvent[] = []
    const unsubscribe = runtime.events.subscribe((event) => {
      if (event.type === 'demo') published.push(DemoEvent.parse(event.data))
    })
    const catalog = await callRoute(scenariosRoute.GET, { path: '/api/v1/demo/scenarios' })
    const scenarios = (catalog.body as { scenarios: Scenario[] }).scenarios
    expect(scenarios.map((s) => s.name)).toEqual(['kip-worked-example', 'source-lost', 'planned-switchover', 'unclean-election', 'rehearse-before-you-need-it'])
    const runs: Run[] = []
    for (const { name } of scenarios) {
      const started = await callRoute(runScenarioRoute.POST, { method: 'POST', path: `/api/v1/demo/scenarios/${name}/run`, params: { name } })
      expect(started.status, JSON.stringify(started.body)).toBe(202)
      runs.push((started.body as { run: Run }).run)
    }
    const again = await callRoute(runScenarioRoute.POST, { method: 'POST', path: '/x', params: { name: 'kip-worked-example' } })
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    expect(await callRoute(runScenarioRoute.POST, { method: 'POST', path: '/x', params: { name: 'no-such-scenario' } })).toMatchObject({ status: 404 })

    for (const run of runs) {
      const finished = await demo().runs.settled(run.id)
      expect(finished.error, `${run.scenario}: ${JSON.stringify(finished.steps.map((step) => [step.status, step.narration]))}`).toBeNull()
      expect(finished.status).toBe('succeeded')
      expect(finished.steps.every((step) => step.status === 'succeeded' && step.at !== null)).toBe(true)
      const read = await callRoute(runRoute.GET, { path: '/x', params: { id: run.id } })
      expect(read).toMatchObject({ status: 200, body: { run: { id: run.id, status: 'succeeded' } } })
    }
    unsubscribe()
    // The live stream carried each run from pending through every step to succeeded.
    const statuses = published.flatMap((event) => (event.change === 'runUpdated' && event.run.id === runs[0]!.id ? [event.run.steps.filter((step) => step.status === 'succeeded').length] : []))
    expect(statuses[0]).toBe(0)
    expect(statuses.at(-1)).toBe(8)
    expect(new Set(statuses).size).toBe(9)
    const worked = runs[0]!.context
    expect(worked.sourceCluster).not.toBe(LIVE.sourceCluster)
    // After the failback both sides hold the destination table of the excerpt; the source's own table is checked mid-run.
    expect(await logTable(runtime, worked.destinationCluster, 'orders', 0)).toEqual(WORKED_EXAMPLE_DESTINATION)
    expect(await logTable(runtime, worked.sourceCluster, 'orders', 0)).toEqual(WORKED_EXAMPLE_DESTINATION)
    expect(WORKED_EXAMPLE_SOURCE.map(([offset]) => offset)).toEqual([0, 1, 2, 3, 4, 5])
    // The live demo kept running meanwhile.
    expect(runtime.engine.partitions(LIVE.mirror, { topic: 'payments' }).every((p) => p.state === 'MIRRORING')).toBe(true)
  })

  it('signs in as operator with one click only from loopback to a loopback host', async () => {
    const offered = (headers: Record<string, string>) => callRoute(sessionRoute.GET, { path: '/api/v1/demo/session', headers: { authorization: '', ...headers } })
    expect(await offered({ 'x-mirrorboard-peer-address': '127.0.0.1', host: 'localhost:3000' })).toMatchObject({ status: 200, body: { oneClickSignIn: true } })
    expect(await offered({ 'x-mirrorboard-peer-address': '192.168.1.20', host: 'localhost:3000' })).toMatchObject({ status: 404 })
    const post = (headers: Record<string, string>) => callRoute(sessionRoute.POST, { method: 'POST', path: '/api/v1/demo/session', headers: { authorization: '', ...headers } })
    const fromLoopback = await post({ 'x-mirrorboard-peer-address': '127.0.0.1', host: '127.0.0.1:3000' })
    expect(fromLoopback).toMatchObject({ status: 200, body: { role: 'operator', via: 'cookie' } })
    expect(fromLoopback.headers.get('set-cookie')).toMatch(/^mirrorboard_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/)
    expect(await post({ 'x-mirrorboard-peer-address': '::1', host: 'localhost:3000' })).toMatchObject({ status: 200 })
    expect(await post({ 'x-mirrorboard-peer-address': '10.0.0.7', host: '127.0.0.1:3000' })).toMatchObject({ status: 404 })
    expect(await post({ host: '127.0.0.1:3000' })).toMatchObject({ status: 404 })
    // DNS rebinding: another site's name pointed at 127.0.0.1.
    expect(await post({ 'x-mirrorboard-peer-address': '127.0.0.1', host: 'evil.example:3000' })).toMatchObject({ status: 404 })
  })
})

describe('outside demo mode', () => {
  let plain: Runtime
  let plainDir: string
  beforeAll(async () => {
    plainDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-nodemo-'))
    plain = await openTestRuntime(plainDir, { demo: false })
  })
  afterAll(async () => {
    await plain?.close()
    rmSync(plainDir, { recursive: true, force: true })
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers 404 on every /demo endpoint and creates nothing', async () => {
    const answers = await Promise.all([
      callRoute(demoRoute.GET, { path: '/api/v1/demo' }),
      callRoute(workloadsRoute.GET, { path: '/api/v1/demo/workloads' }),
      callRoute(faultsRoute.GET, { path: '/api/v1/demo/faults' }),
      callRoute(faultsRoute.POST, { method: 'POST', path: '/api/v1/demo/faults', body: { kind: 'cut-link', cluster: 'us-east' } }),
      callRoute(scenariosRoute.GET, { path: '/api/v1/demo/scenarios' }),
      callRoute(runScenarioRoute.POST, { method: 'POST', path: '/x', params: { name: 'kip-worked-example' } }),
      callRoute(runRoute.GET, { path: '/x', params: { id: 'worked-1-abc' } }),
      callRoute(sessionRoute.POST, { method: 'POST', path: '/api/v1/demo/session', headers: { authorization: '', 'x-mirrorboard-peer-address': '127.0.0.1', host: '127.0.0.1:3000' } }),
      callRoute(sessionRoute.GET, { path: '/api/v1/demo/session', headers: { authorization: '', 'x-mirrorboard-peer-address': '127.0.0.1', host: '127.0.0.1:3000' } }),
    ])
    for (const answer of answers) expect(answer).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    expect(plain.clusters.names()).toEqual([])
  })
})
