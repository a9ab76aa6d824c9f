/**
 * Issue #40: three instances share three Kafka a → Kafka b mirrors through the control cluster's group coordinator
 * (cluster a is also the control cluster). The clusters are added on a first instance only (a through its TLS
 * listener with a client certificate, so there is a private key to keep secret); the others take them, sealed, from the control cluster. Each
 * instance is a child process; the owner of one mirror is SIGKILLed while records keep coming: another instance
 * takes the mirror over once the session timeout expires it, and afterwards each destination topic equals its
 * source offset by offset (no gap, no duplicate) through the persisted offset translation (atomic appends, on with
 * several instances, give each append a COMMIT marker on the destination). An instance with another secret key is refused at start and
 * writes nothing. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel, type Admin } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openTestRuntime } from '@/server/testing/test-runtime'
import type { HaConfig } from './ha-config'
import { brokerBatches } from '@/scripts/kafka/broker-log'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import { mirroredLog, sourceLog } from '@/server/cluster/kafka/testing/mirrored-log'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const GROUP = `ha-takeover-${RUN}`
const MIRRORS = ['m1', 'm2', 'm3'].map((name) => ({ name: `ha-${name}-${RUN}`, topic: `ha-${name}-${RUN}` }))
const PARTITIONS = 2
const SESSION_TIMEOUT_MS = 6_000
const settle = { timeout: 60_000, interval: 200 }
const childScript = path.join(__dirname, '..', 'testing', 'ha-instance-child.ts')
const SECRET_KEY = 'ha-takeover-test-secret-key'
const CLUSTERS_TOPIC = `${GROUP}-clusters`

interface Instance {
  id: string
  process: ChildProcess
  held: string[]
  /** What GET /api/v1/instances answers on this instance (id, alive, mirrors of each). */
  instances: Array<{ id: string; alive: boolean; mirrors: string[] }>
  output: string
}

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let sourceAdmin: Admin
let destinationAdmin: Admin
const dirs: string[] = []
const instances: Instance[] = []

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-ha-'))
  dirs.push(dir)
  return dir
}

function startInstance(id: string, secretKey = SECRET_KEY): Instance {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', childScript, tempDir()], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      MIRRORBOARD_CONTROL_BOOTSTRAP: brokers.a.bootstrap,
      MIRRORBOARD_INSTANCE_ID: id,
      MIRRORBOARD_CONTROL_GROUP: GROUP,
      MIRRORBOARD_SECRET_KEY: secretKey,
      MIRRORBOARD_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    },
  })
  const instance: Instance = { id, process: child, held: [], instances: [], output: '' }
  let pending = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    instance.output += chunk.toString()
    pending += chunk.toString()
    const lines = pending.split('\n')
    pending = lines.pop()!
    for (const line of lines) {
      if (line.startsWith('held ')) instance.held = (JSON.parse(line.slice(5)) as { mirrors: string[] }).mirrors
      if (line.startsWith('instances ')) instance.instances = JSON.parse(line.slice(10)) as Instance['instances']
    }
  })
  child.stderr!.on('data', (chunk: Buffer) => (instance.output += chunk.toString()))
  instances.push(instance)
  return instance
}

const alive = () => instances.filter((instance) => instance.process.exitCode === null && instance.process.signalCode === null)

/** Mirror → the live instances that run it. */
function runners(): Map<string, string[]> {
  const map = new Map<string, string[]>(MIRRORS.map((mirror) => [mirror.name, []]))
  for (const instance of alive()) for (const name of instance.held) map.get(name)?.push(instance.id)
  return map
}

async function highWatermarks(admin: Admin, topic: string): Promise<number[]> {
  const offsets = await admin.fetchTopicOffsets(topic).catch(() => [])
  return offsets.sort((a, b) => a.partition - b.partition).map((offset) => Number(offset.high))
}

function brokerLog(bootstrap: string, topic: string, partition: number): Promise<Array<[number, number, string]>> {
  return brokerBatches(bootstrap, topic, partition, `ha-raw-${RUN}`)
}

describe('instances sharing mirrors through the control cluster', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'ha-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'ha-b')
    // Other suites' mirrors (into b, or back into a) would be shared out too: start from empty state topics.
    await sourceClient.forget(['ha-', STATE_TOPIC])
    await destinationClient.forget(['ha-', STATE_TOPIC])
    sourceAdmin = new Kafka({ clientId: `ha-admin-a-${RUN}`, brokers: [brokers.a.bootstrap], logLevel: logLevel.NOTHING }).admin()
    destinationAdmin = new Kafka({ clientId: `ha-admin-b-${RUN}`, brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await sourceAdmin.connect()
    await destinationAdmin.connect()
  })
  afterAll(async () => {
    for (const instance of alive()) instance.process.kill('SIGCONT')
    for (const instance of alive()) instance.process.kill('SIGKILL')
    // The suites after this one must not find these mirrors on b's state topic (nor the control topics on a).
    await sourceClient?.forget(['ha-']).catch(() => undefined)
    await destinationClient?.forget(['ha-', STATE_TOPIC]).catch(() => undefined)
    await sourceAdmin?.disconnect()
    await destinationAdmin?.disconnect()
    await sourceClient?.close()
    await destinationClient?.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  let produced = 0
  /**
   * Each destination partition, read read_committed and taken back to source offsets through the emulation's persisted
   * translation, equals its source offset by offset (no gap, no duplicate) once it has caught up: with atomic appends
   * the raw offsets differ by the COMMIT markers, so raw high watermarks are no measure of equality.
   */
  const everyMirrorEqualsItsSource = async () => {
    for (const { topic } of MIRRORS) {
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const source = await sourceLog(brokers.a.bootstrap, topic, partition)
        expect(source.at(-1)![0] + 1).toBe(produced)
        expect(source.map(([offset]) => offset)).toEqual(Array.from({ length: produced }, (_, i) => i))
        await vi.waitFor(async () => expect(await mirroredLog(brokers.b.bootstrap, topic, partition), `${topic}-${partition}; ${alive().map((i) => `${i.id}: ${i.output.slice(-2500)}`).join('\n---\n')}`).toEqual(source), settle)
      }
    }
  }
  const produceRound = async () => {
    const n = produced++
    for (const { topic } of MIRRORS) {
      for (let partition = 0; partition < PARTITIONS; partition++) await sourceClient.produce({ topic, partition }, [{ key: `k${n}`, value: `${topic}-${partition}-${n}` }])
    }
  }

  it('spreads the mirrors over instances that take their clusters (sealed) from the control cluster, refuses a wrong secret key and a second instance under a live one’s id, and hands a SIGKILLed owner’s mirror over with nothing lost or twice', async () => {
    for (const { topic } of MIRRORS) await sourceClient.createTopic(topic, { partitions: PARTITIONS })
    for (let i = 0; i < 5; i++) await produceRound()

    // A first instance adds the clusters and creates the mirrors (their state lands on b's state topic), then leaves.
    const tls = brokers.a.tls!
    const keyBody = tls.clientKey.split('\n').filter((line) => line !== '' && !line.startsWith('-----')).join('').slice(0, 64)
    const setupConfig: HaConfig = { bootstrap: [brokers.a.bootstrap], instanceId: 'ha-setup', secretKey: SECRET_KEY, group: GROUP, sessionTimeoutMs: SESSION_TIMEOUT_MS }
    const setup = await openTestRuntime(tempDir(), { demo: false, ha: setupConfig })
    await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [tls.bootstrap], ssl: { ca: tls.ca, cert: tls.clientCert, key: tls.clientKey } })
    await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [brokers.b.bootstrap] })
    for (const { name, topic } of MIRRORS) await setup.engine.createMirror({ name, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [topic] })
    await vi.waitFor(() => {
      for (const { name } of MIRRORS) expect(setup.engine.partitions(name).map((p) => p.state)).toEqual(Array(PARTITIONS).fill('MIRRORING'))
    }, settle)
    // The key check and both clusters are on the control cluster, the private key only sealed.
    await vi.waitFor(async () => expect(await highWatermarks(sourceAdmin, CLUSTERS_TOPIC)).toEqual([3]), settle)
    const sharedLog = (await brokerLog(brokers.a.bootstrap, CLUSTERS_TOPIC, 0)).map(([, , records]) => records).join('\n')
    expect(sharedLog).toContain('cluster/kafka-a')
    expect(sharedLog).not.toContain(keyBody)
    await setup.close()

    for (const id of ['ha-i1', 'ha-i2', 'ha-i3']) startInstance(id)
    // Spread: every mirror runs on exactly one instance, one mirror each (equal partition counts).
    await vi.waitFor(() => {
      expect([...runners().values()].map((ids) => ids.length), instances.map((i) => i.output.slice(-2000)).join('\n---\n')).toEqual([1, 1, 1])
      expect(alive().map((instance) => instance.held.length), JSON.stringify(alive().map((instance) => [instance.id, instance.held]))).toEqual([1, 1, 1])
    }, { timeout: 120_000, interval: 200 })

    // Another secret key: refused at start with a clear message, and nothing written to the control cluster.
    const stranger = startInstance('ha-wrong-key', 'not-the-key-the-others-use')
    const exitCode = await new Promise<number | null>((resolve) => stranger.process.once('exit', (code) => resolve(code)))
    expect(exitCode).toBe(2)
    expect(stranger.output).toContain('MIRRORBOARD_SECRET_KEY does not open the cluster secrets')
    expect(stranger.held).toEqual([])
    expect(await highWatermarks(sourceAdmin, CLUSTERS_TOPIC)).toEqual([3])
    // A second instance under a live one's id: refused at start, nothing written.
    const twin = startInstance('ha-i1')
    expect(await new Promise<number | null>((resolve) => twin.process.once('exit', (code) => resolve(code)))).toBe(2)
    expect(twin.output).toContain('MIRRORBOARD_INSTANCE_ID=ha-i1 is already running')
    expect(await highWatermarks(sourceAdmin, CLUSTERS_TOPIC)).toEqual([3])

    const victim = MIRRORS[0]!
    const owner = instances.find((instance) => instance.held.includes(victim.name))!
    // Records keep coming while the owner dies.
    const flow = (async () => {
      for (let i = 0; i < 20; i++) {
        await produceRound()
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    })()
    await vi.waitFor(async () => expect(Math.min(...(await highWatermarks(destinationAdmin, victim.topic)))).toBeGreaterThan(6), settle)
    owner.process.kill('SIGKILL')
    const killedAt = Date.now()
    await flow

    await vi.waitFor(() => {
      const taken = runners().get(victim.name)!
      expect(taken).toHaveLength(1)
      expect(taken[0]).not.toBe(owner.id)
    }, { timeout: SESSION_TIMEOUT_MS * 5, interval: 100 })
    console.log(`takeover of ${victim.name} by ${runners().get(victim.name)![0]} ${Date.now() - killedAt} ms after the SIGKILL of ${owner.id}`)
    for (let i = 0; i < 5; i++) await produceRound()

    // Every mirror (the taken-over one and the two that never moved) catches up and equals its source.
    await everyMirrorEqualsItsSource()
    // Atomic appends are on with several instances (issue #40): each append's COMMIT marker took a destination offset,
    // so the raw high watermarks run ahead of the source's, and the persisted translation is what maps them.
    for (const { topic } of MIRRORS) {
      const sum = (ends: number[]) => ends.reduce((total, end) => total + end, 0)
      expect(sum(await highWatermarks(destinationAdmin, topic))).toBeGreaterThan(sum(await highWatermarks(sourceAdmin, topic)))
    }
    await vi.waitFor(() => expect([...runners().values()].map((ids) => ids.length)).toEqual([1, 1, 1]), settle)

    // Every survivor's GET /api/v1/instances shows the dead one not alive and who runs what now.
    const expected = instances
      .filter((instance) => instance !== stranger && instance !== twin)
      .map((instance) => ({ id: instance.id, alive: instance !== owner, mirrors: instance === owner ? owner.held : instance.held }))
    for (const survivor of alive()) await vi.waitFor(() => expect(survivor.instances).toEqual(expected), settle)
  })

  it('takes a mirror from an instance that stops heart-beating (SIGSTOP); woken, it gives the mirror up and writes nothing twice', async () => {
    const victim = MIRRORS.find(({ name }) => alive().some((instance) => instance.held.includes(name)))!
    const paused = alive().find((instance) => instance.held.includes(victim.name))!
    const mirrorRunsElsewhere = () => alive().some((instance) => instance !== paused && instance.held.includes(victim.name))
    paused.process.kill('SIGSTOP')
    await vi.waitFor(() => expect(mirrorRunsElsewhere()).toBe(true), { timeout: SESSION_TIMEOUT_MS * 5, interval: 100 })
    for (let i = 0; i < 5; i++) await produceRound()
    // The new owner has written with its epoch before the old one wakes up.
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const source = await sourceLog(brokers.a.bootstrap, victim.topic, partition)
      await vi.waitFor(async () => expect(await mirroredLog(brokers.b.bootstrap, victim.topic, partition)).toEqual(source), settle)
    }
    const outputBeforeWaking = paused.output.length
    paused.process.kill('SIGCONT')
    // Woken past its session timeout, it gives every mirror up by itself before it runs anything again: at its watchdog's
    // next tick, or, when kafkajs rejoins first, before that join's assignment is carried out. The assignment may hand
    // the mirror back (sticky, balanced), to be adopted afresh from its destination, so what it holds a moment later
    // is not the evidence: its log is.
    await vi.waitFor(() => expect(paused.output.slice(outputBeforeWaking)).toMatch(/giving (up )?every mirror( up)?/), settle)
    for (let i = 0; i < 5; i++) await produceRound()
    await everyMirrorEqualsItsSource()
    // Rejoined with nothing, it may be given a mirror again by the balancing rebalance (the victim itself too,
    // under a new producer epoch): what must hold is that every mirror runs on exactly one instance once the
    // rebalance settles (mid-move a mirror is released by one before the other adopts it).
    await vi.waitFor(() => expect([...runners().values()].map((ids) => ids.length)).toEqual([1, 1, 1]), settle)
  })
})
