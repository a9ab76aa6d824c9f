/**
 * A server SIGKILLed while it mirrors Kafka a → Kafka b (a child process, so nothing is closed: open producers,
 * a produce in flight), then a new server over the same data dir: it resumes from the destination's state topic
 * (mirrorboard-mirror-state on b), keeps a batch the broker wrote whose answer the dead server never saw, and
 * ends with b's log equal to a's offset by offset: nothing lost, nothing twice. Real brokers
 * (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel, type Admin } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as mirrorPartitionsRoute from '@/app/api/v1/mirrors/[mirror]/partitions/route'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import type { Runtime } from '@/server/runtime'
import { RawFetcher } from '@/scripts/kafka/raw-fetch'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { STATE_TOPIC } from './kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-crash-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const TOPIC = `kc-flow-${RUN}`
const tp = { topic: TOPIC, partition: 0 }
const settle = { timeout: 45_000, interval: 200 }
const childScript = path.join(__dirname, '..', '..', 'testing', 'kafka-mirroring-child.ts')

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let dataDir: string
let runtime: Runtime | undefined
let child: ChildProcess | undefined
let destinationAdmin: Admin

/** Per batch its offsets and its records, read raw from the broker (producer ids left out: each broker has its own). */
async function brokerLog(bootstrap: string): Promise<Array<[number, number, string]>> {
  const raw = await RawFetcher.connect({ brokers: [bootstrap], clientId: `kc-raw-${RUN}` })
  try {
    const page = await raw.fetch({ ...tp, fetchOffset: 0n, isolationLevel: 'read_uncommitted', maxBytes: 8 << 20 })
    return page.batches.map((b) => [Number(b.baseOffset), Number(b.lastOffset), b.records.map((r) => `${r.key}=${r.value}`).join(',')])
  } finally {
    await raw.disconnect()
  }
}

function startChild(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const started = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', childScript, dataDir, brokers.a.bootstrap, brokers.b.bootstrap, TOPIC], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('mirroring\n')) resolve(started)
    }
    started.stdout!.on('data', collect)
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    started.on('error', reject)
    started.on('exit', (code, signal) => reject(new Error(`the mirroring child exited (${signal ?? code}) before it mirrored:\n${output}`)))
  })
}

describe('a server killed while mirroring into Kafka', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-crash-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-crash-b')
    await sourceClient.forget(['kc-'])
    await destinationClient.forget(['kc-', STATE_TOPIC])
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-crash-'))
    destinationAdmin = new Kafka({ clientId: `kc-admin-${RUN}`, brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await destinationAdmin.connect()
  })
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await runtime?.close()
    await destinationAdmin?.disconnect()
    await sourceClient?.close()
    await destinationClient?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('resumes in a new server from the destination state topic, with nothing lost or duplicated', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: 1 })
    let produced = 0
    const produceBatch = async () => {
      const n = produced
      produced += 2
      await sourceClient.produce(tp, [{ key: `k${n}`, value: `v${n}` }, { key: `k${n + 1}`, value: `v${n + 1}` }])
    }
    for (let i = 0; i < 5; i++) await produceBatch()

    child = await startChild()
    const brokerEnd = async () => Number((await destinationAdmin.fetchTopicOffsets(TOPIC).catch(() => [{ high: '0' }]))[0]?.high ?? 0)
    await vi.waitFor(async () => expect(await brokerEnd()).toBeGreaterThan(0), settle)
    // Records keep coming while the server dies: a produce to b is likely in flight at the kill.
    const flow = (async () => {
      for (let i = 0; i < 20; i++) {
        await produceBatch()
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    })()
    await vi.waitFor(async () => expect(await brokerEnd()).toBeGreaterThan(12), settle)
    child.kill('SIGKILL')
    await flow
    const atKill = await brokerEnd()
    expect(atKill).toBeLessThan(produced)

    runtime = await openTestRuntime(dataDir, { demo: false })
    await vi.waitFor(async () => {
      const { body } = await callRoute(mirrorPartitionsRoute.GET, { path: '/api/v1/mirrors/killed/partitions', params: { mirror: 'killed' } })
      expect((body as { partitions: Array<{ state: string; destinationLogEndOffset: number }> }).partitions.map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', produced]])
    }, settle)
    const expected = await brokerLog(brokers.a.bootstrap)
    expect(expected.at(-1)![1] + 1).toBe(produced)
    expect(await brokerLog(brokers.b.bootstrap)).toEqual(expected)
  })
})
