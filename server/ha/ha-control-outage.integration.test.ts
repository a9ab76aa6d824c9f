/**
 * Issue #40, the control cluster as a dependency that can fail: an instance runs a Kafka a → Kafka b mirror under a
 * live workload, its control cluster a broker of its own reached through a TCP proxy (scripts/kafka/control-broker.ts)
 * that the test cuts. Cut off for longer than the session timeout, the instance keeps mirroring (the destination keeps
 * growing after it has logged that it keeps its mirrors), refuses a change with 503 CONTROL_CLUSTER_UNAVAILABLE (the
 * mirror stays as it was) and still answers reads; GET /health and GET /instances say the control cluster is unreachable,
 * since its last answer, with the last error and a view of the shared state at least a session timeout old. Once the
 * link is back, the same change is accepted, and both say it is reachable again, with the outage that ended. The instance is
 * a child process serving the API on loopback (scripts/testing/ha-api-child.ts). Real brokers
 * (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel, type Admin } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openTestRuntime, TEST_TOKENS } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { startControlBroker, type ControlBroker } from '@/scripts/kafka/control-broker'
import { freePort } from '@/scripts/testing/production-server'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import type { HaConfig } from './ha-config'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-outage-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const GROUP = `co-group-${RUN}`
const MIRROR = `co-m-${RUN}`
const TOPIC = `co-t-${RUN}`
const SESSION_TIMEOUT_MS = 6_000
const SECRET_KEY = 'ha-control-outage-secret-key'
const settle = { timeout: 90_000, interval: 250 }
const childScript = path.join(__dirname, '..', '..', 'scripts', 'testing', 'ha-api-child.ts')

let brokers: TestClusters
let control: ControlBroker
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let destinationAdmin: Admin
let sourceAdmin: Admin
let child: ChildProcess | null = null
let output = ''
let producing = true
const dirs: string[] = []

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-ha-co-'))
  dirs.push(dir)
  return dir
}

async function call(url: string, pathname: string, options: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${url}/api/v1${pathname}`, {
    method: options.method ?? 'GET',
    headers: { authorization: `Bearer ${TEST_TOKENS.operator}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  const text = await response.text()
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as Record<string, unknown> & { error?: { code: string; message: string; details?: Record<string, unknown> } } }
}

interface ControlView {
  bootstrap: string[]
  group: string
  reachable: boolean
  since: number
  lastAnsweredAt: number
  lastError: string | null
  lastOutage: { from: number; to: number; lastError: string | null } | null
  viewAgeMs: number | null
  topics: Array<{ topic: string; readAt: number | null; ageMs: number | null }>
}

async function healthOf(url: string): Promise<{ status: string; control?: { reachable: boolean; since: number; viewAgeMs: number | null } }> {
  const response = await fetch(`${url}/api/v1/health`)
  expect(response.status).toBe(200)
  return (await response.json()) as { status: string; control?: { reachable: boolean; since: number; viewAgeMs: number | null } }
}

async function controlOf(url: string): Promise<ControlView> {
  const answer = await call(url, '/instances')
  expect(answer.status).toBe(200)
  return answer.body.control as unknown as ControlView
}

const CONTROL_TOPICS = ['clusters', 'operations', 'identity', 'audit', 'instances'].map((name) => `${GROUP}-${name}`)

async function destinationEnd(): Promise<number> {
  const offsets = await destinationAdmin.fetchTopicOffsets(TOPIC).catch(() => [])
  return offsets.reduce((sum, offset) => sum + Number(offset.high), 0)
}

describe('the control cluster unreachable later', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    control = await startControlBroker()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'ha-co-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'ha-co-b')
    destinationAdmin = new Kafka({ clientId: 'ha-co-b-admin', brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await destinationAdmin.connect()
    sourceAdmin = new Kafka({ clientId: 'ha-co-a-admin', brokers: [brokers.a.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await sourceAdmin.connect()
    // Other suites' mirrors into b would be shared out too: start from empty state topics.
    await sourceClient.forget(['co-', STATE_TOPIC])
    await destinationClient.forget(['co-', STATE_TOPIC])
  })
  afterAll(async () => {
    producing = false
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await control?.stop()
    await sourceClient?.forget(['co-']).catch(() => undefined)
    await destinationClient?.forget(['co-', STATE_TOPIC]).catch(() => undefined)
    await sourceClient?.close()
    await destinationClient?.close()
    await destinationAdmin?.disconnect()
    await sourceAdmin?.disconnect()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('keeps mirroring, refuses changes with CONTROL_CLUSTER_UNAVAILABLE and answers reads while cut off, and accepts changes once it answers again', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: 1 })
    const setupConfig: HaConfig = { bootstrap: [control.bootstrap], instanceId: 'co-setup', secretKey: SECRET_KEY, group: GROUP, sessionTimeoutMs: SESSION_TIMEOUT_MS }
    const setup = await openTestRuntime(tempDir(), { demo: false, ha: setupConfig })
    await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [brokers.a.bootstrap] })
    await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [brokers.b.bootstrap] })
    await setup.engine.createMirror({ name: MIRROR, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [TOPIC] })
    await vi.waitFor(() => expect(setup.engine.partitions(MIRROR).map((p) => p.state)).toEqual(['MIRRORING']), settle)
    await setup.close()

    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', childScript, tempDir(), String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        MIRRORBOARD_CONTROL_BOOTSTRAP: control.bootstrap,
        MIRRORBOARD_INSTANCE_ID: 'co-i1',
        MIRRORBOARD_CONTROL_GROUP: GROUP,
        MIRRORBOARD_SECRET_KEY: SECRET_KEY,
        MIRRORBOARD_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
        MIRRORBOARD_ADVERTISED_URL: url,
        // Every answer checked against its schema (a mismatch is a 500), as CI's schemathesis run does.
        MIRRORBOARD_CHECK_RESPONSES: '1',
      },
    })
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    // A steady workload on the source, for the whole test.
    void (async () => {
      for (let i = 0; producing; i++) {
        await sourceClient.produce({ topic: TOPIC, partition: 0 }, [{ key: `k${i}`, value: `v${i}` }]).catch(() => undefined)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })()
    await vi.waitFor(async () => {
      const read = await call(url, `/mirrors/${MIRROR}/partitions`).catch(() => null)
      expect(read?.status, output.slice(-2000)).toBe(200)
      expect((read!.body.partitions as Array<{ state: string }>).map((p) => p.state)).toEqual(['MIRRORING'])
    }, { timeout: 120_000, interval: 500 })
    const before = await destinationEnd()
    await vi.waitFor(async () => expect(await destinationEnd()).toBeGreaterThan(before), settle)
    // Reachable: every control topic read, none of them ever unreachable.
    const reachable = await vi.waitFor(async () => {
      const view = await controlOf(url)
      expect(view.topics.map((topic) => topic.topic).sort()).toEqual([...CONTROL_TOPICS].sort())
      expect(view.viewAgeMs).not.toBeNull()
      return view
    }, settle)
    expect(reachable).toMatchObject({ bootstrap: [control.bootstrap], group: GROUP, reachable: true, lastError: null, lastOutage: null })
    expect((await healthOf(url)).control).toMatchObject({ reachable: true, since: reachable.since })

    // The link to the control cluster is cut.
    control.cut()
    // Until nothing has answered for a session timeout (6 s here) changes are still taken: a change that touches nothing (the
    // removal of a cluster that does not exist: 404 while taken) shows when the refusal begins.
    await vi.waitFor(async () => expect((await call(url, '/clusters/co-no-such-cluster', { method: 'DELETE' })).status).toBe(503), settle)
    const refused = await call(url, `/mirrors/${MIRROR}/topics/pause`, { method: 'POST', body: {} })
    expect(refused.status).toBe(503)
    expect(refused.body.error?.code).toBe('CONTROL_CLUSTER_UNAVAILABLE')
    // lastError: the last failure the client saw, null when the control cluster merely went silent (no answer, no error yet).
    expect(refused.body.error?.details).toEqual({ since: expect.any(Number), lastError: expect.toSatisfy((value: unknown) => value === null || typeof value === 'string') })
    expect(refused.body.error?.message).toMatch(/the control cluster has not answered instance co-i1 since \d{4}-/)
    // A cluster's removal is refused too; signing in is not a change of shared state and stays open.
    expect((await call(url, '/clusters/kafka-a', { method: 'DELETE' })).body.error?.code).toBe('CONTROL_CLUSTER_UNAVAILABLE')

    // GET /health and GET /instances say so: unreachable since the last answer (the 503's `since`), its copies of the
    // control topics read no later than that (a read is an answer), so the view is at least a session timeout old.
    const since = refused.body.error!.details!.since as number
    const health = await healthOf(url)
    expect(health.status).toBe('ok')
    expect(health.control).toEqual({ reachable: false, since, viewAgeMs: expect.any(Number) })
    expect(health.control!.viewAgeMs).toBeGreaterThanOrEqual(SESSION_TIMEOUT_MS)
    const cut = await controlOf(url)
    expect(cut).toMatchObject({ reachable: false, since, lastAnsweredAt: since, lastOutage: null })
    expect(cut.viewAgeMs).toBeGreaterThanOrEqual(SESSION_TIMEOUT_MS)
    for (const topic of cut.topics) expect(topic.readAt).toBeLessThanOrEqual(since)
    // The last error is the client's (it names the host, so GET /health, which is public, does not carry it).
    await vi.waitFor(async () => expect((await controlOf(url)).lastError).toEqual(expect.any(String)), settle)
    expect(health.control).not.toHaveProperty('lastError')

    // Past the session timeout the instance keeps its mirror (it used to give it up): the destination keeps growing.
    await vi.waitFor(() => expect(output).toContain('the control cluster does not answer: keeping the mirrors running here'), settle)
    const cutOff = await destinationEnd()
    await vi.waitFor(async () => {
      const states = await call(url, `/mirrors/${MIRROR}/partitions`).catch((error: unknown) => String(error))
      const sourceEnd = (await sourceAdmin.fetchTopicOffsets(TOPIC)).map((offset) => offset.high)
      expect(await destinationEnd(), JSON.stringify({ states, sourceEnd })).toBeGreaterThan(cutOff + 20)
    }, settle)
    // Reads still answer, and the refused pause changed nothing.
    const read = await call(url, `/mirrors/${MIRROR}/partitions`)
    expect(read.status).toBe(200)
    expect((read.body.partitions as Array<{ state: string }>).map((p) => p.state)).toEqual(['MIRRORING'])
    expect((await call(url, `/mirrors/${MIRROR}`)).status).toBe(200)

    // The link comes back: the same change is accepted.
    control.restore()
    const accepted = await vi.waitFor(async () => {
      const answer = await call(url, `/mirrors/${MIRROR}/topics/pause`, { method: 'POST', body: {} })
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      return answer
    }, { timeout: 120_000, interval: 1000 })
    expect(accepted.status).toBe(200)
    await vi.waitFor(async () => {
      const after = await call(url, `/mirrors/${MIRROR}/partitions`)
      expect((after.body.partitions as Array<{ state: string }>).map((p) => p.state)).toEqual(['PAUSED'])
    }, settle)

    // Reachable again since the outage ended, which is remembered; every control topic read again since.
    const recovered = await controlOf(url)
    expect(recovered).toMatchObject({ reachable: true, lastError: null, lastOutage: { from: since, to: recovered.since, lastError: expect.toSatisfy((value: unknown) => value === null || typeof value === 'string') } })
    expect(recovered.since).toBeGreaterThan(since)
    expect((await healthOf(url)).control).toMatchObject({ reachable: true, since: recovered.since })
    await vi.waitFor(async () => {
      for (const topic of (await controlOf(url)).topics) expect(topic.readAt).toBeGreaterThanOrEqual(recovered.since)
    }, settle)
  })
})
