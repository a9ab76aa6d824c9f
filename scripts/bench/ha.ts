// `npm run bench -- ha` (issue #40): takeover time. Three instances (child processes, server/testing/ha-instance-child.ts)
// share two Kafka a → Kafka b mirrors through the control cluster (cluster a) with the default 10 s session timeout,
// while records flow into every source partition; the owner of the first mirror is SIGKILLed and a fresh instance
// started in its place, BENCH_HA_ROUNDS times (default 5). Per round: the time from the SIGKILL until another
// instance runs the mirror, and until the mirror's lag is back under 1 s (its destination holds every record the
// source held 1 s earlier). Medians; goal < 15 s. Then one instance's mirroring throughput against three's on 24
// partitions (ha-throughput.ts; BENCH_HA_THROUGHPUT=0 leaves it out, BENCH_HA_ROUNDS=0 the takeovers).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Admin } from 'kafkajs'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, TestClustersNotRunningError, type TestClusters } from '@/scripts/kafka/test-clusters'
import { client, deleteTopicsAndWait, load } from './kafka-measure'
import { median, type BenchResult } from './result'
import { throughputOneVsThree } from './ha-throughput'

const RUN = Date.now().toString(36)
const GROUP = `bench-ha-${RUN}`
const SECRET_KEY = 'bench-ha-secret-key-0123456789'
const SESSION_TIMEOUT_MS = 10_000
const PARTITIONS = 3
const MIRRORS = ['m1', 'm2'].map((name) => ({ name: `bench-ha-${name}-${RUN}`, topic: `bench-ha-${name}-${RUN}` }))
const childScript = path.join(process.cwd(), 'server', 'testing', 'ha-instance-child.ts')

interface Instance {
  id: string
  child: ChildProcess
  held: string[]
  /** Set at the SIGKILL: the exit is reported only later. */
  killed: boolean
}

const log = (message: string): void => console.log(`  ${message} (load ${load()})`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

export async function benchHa(): Promise<BenchResult[]> {
  let clusters: TestClusters
  try {
    clusters = getTestClusters()
  } catch (error) {
    if (!(error instanceof TestClustersNotRunningError)) throw error
    console.log('skipped: the Kafka test brokers are not running (`npx tsx scripts/kafka/clusters.ts start`)')
    return []
  }
  const rounds = Number(process.env.BENCH_HA_ROUNDS ?? 5)
  const results: BenchResult[] = []
  if (process.env.BENCH_HA_THROUGHPUT !== '0') {
    const { one, three, ratio } = await throughputOneVsThree(clusters)
    results.push({
      name: 'ha: mirroring throughput, three instances vs one (24 partitions)',
      value: Math.round(three),
      unit: 'records/s',
      baseline: { name: 'one instance', value: Math.round(one) },
      ratio,
      goal: 'ratio >= 1.0',
    })
  }
  if (rounds === 0) return results
  const dirs: string[] = []
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-bench-ha-'))
    dirs.push(dir)
    return dir
  }
  const kafkaA = client(clusters.a.bootstrap, 'bench-ha-a')
  const adminA = kafkaA.admin()
  const adminB = client(clusters.b.bootstrap, 'bench-ha-b').admin()
  const producer = kafkaA.producer({ idempotent: true, maxInFlightRequests: 1 })
  await Promise.all([adminA.connect(), adminB.connect(), producer.connect()])
  const instances: Instance[] = []
  const start = (id: string): Instance => {
    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', childScript, tempDir()], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, MIRRORBOARD_CONTROL_BOOTSTRAP: clusters.a.bootstrap, MIRRORBOARD_INSTANCE_ID: id, MIRRORBOARD_CONTROL_GROUP: GROUP, MIRRORBOARD_SECRET_KEY: SECRET_KEY, MIRRORBOARD_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) },
    })
    const instance: Instance = { id, child, held: [], killed: false }
    let pending = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) if (line.startsWith('held ')) instance.held = (JSON.parse(line.slice(5)) as { mirrors: string[] }).mirrors
    })
    instances.push(instance)
    return instance
  }
  const alive = () => instances.filter((i) => !i.killed && i.child.exitCode === null && i.child.signalCode === null)
  let flowing = true
  const takeovers: number[] = []
  const recoveries: number[] = []
  try {
    // A clean start: other suites' mirrors on the destinations would be shared out too.
    await deleteTopicsAndWait(adminA, [STATE_TOPIC])
    await deleteTopicsAndWait(adminB, [STATE_TOPIC])
    await adminA.createTopics({ waitForLeaders: true, topics: MIRRORS.map(({ topic }) => ({ topic, numPartitions: PARTITIONS })) })
    const setup = await openTestRuntime(tempDir(), { demo: false, ha: { bootstrap: [clusters.a.bootstrap], instanceId: 'bench-setup', secretKey: SECRET_KEY, group: GROUP, sessionTimeoutMs: SESSION_TIMEOUT_MS } })
    await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [clusters.a.bootstrap] })
    await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [clusters.b.bootstrap] })
    for (const { name, topic } of MIRRORS) await setup.engine.createMirror({ name, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [topic] })
    await until('the mirrors to run', () => (MIRRORS.every(({ name }) => setup.engine.partitions(name).every((p) => p.state === 'MIRRORING')) ? true : undefined))
    await until('the clusters on the control cluster', async () => ((await adminA.fetchTopicOffsets(`${GROUP}-clusters`).catch(() => []))[0]?.high === '3' ? true : undefined))
    await setup.close()

    // Records flow into every source partition, ~200 a second each, for the whole run.
    let sent = 0
    const flow = (async () => {
      while (flowing) {
        await producer.send({ topic: MIRRORS[0]!.topic, messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: `r${sent}` })) })
        await producer.send({ topic: MIRRORS[1]!.topic, messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: `r${sent}` })) })
        sent += 1
        await sleep(5)
      }
    })()
    const sourceSamples: Array<{ at: number; ends: number[] }> = []
    const ends = async (admin: Admin, topic: string) => (await admin.fetchTopicOffsets(topic)).sort((x, y) => x.partition - y.partition).map((o) => Number(o.high))
    for (let i = 1; i <= 3; i++) start(`bench-i${i}`)
    const victim = MIRRORS[0]!
    for (let round = 1; round <= rounds; round++) {
      const owner = await until('one owner of each mirror', () => {
        const runners = MIRRORS.map(({ name }) => alive().filter((i) => i.held.includes(name)))
        return alive().length === 3 && runners.every((r) => r.length === 1) ? runners[0]![0] : undefined
      })
      await sleep(1_000)
      owner.child.kill('SIGKILL')
      owner.killed = true
      const killedAt = performance.now()
      const takenBy = await until('the takeover', () => alive().find((i) => i.held.includes(victim.name)))
      takeovers.push(performance.now() - killedAt)
      sourceSamples.length = 0
      // Lag under 1 s: the destination holds every record the source held 1 s before.
      await until(
        'the lag back under 1 s',
        async () => {
          const now = performance.now()
          sourceSamples.push({ at: now, ends: await ends(adminA, victim.topic) })
          const before = sourceSamples.filter((s) => s.at <= now - 1_000).at(-1)
          if (!before || before.at < killedAt) return undefined
          const destination = await ends(adminB, victim.topic)
          return destination.every((end, p) => end >= before.ends[p]!) ? true : undefined
        },
        180_000,
      )
      recoveries.push(performance.now() - killedAt)
      log(`round ${round}: ${owner.id} killed, ${takenBy.id} took over after ${Math.round(takeovers.at(-1)!)} ms, lag under 1 s after ${Math.round(recoveries.at(-1)!)} ms`)
      start(`bench-r${round}`)
    }
    flowing = false
    await flow
  } finally {
    flowing = false
    for (const instance of alive()) instance.child.kill('SIGKILL')
    await deleteTopicsAndWait(adminA, MIRRORS.map(({ topic }) => topic)).catch(() => undefined)
    await deleteTopicsAndWait(adminB, [...MIRRORS.map(({ topic }) => topic), STATE_TOPIC]).catch(() => undefined)
    await producer.disconnect()
    await adminA.disconnect()
    await adminB.disconnect()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
  return [
    ...results,
    { name: 'ha: SIGKILL → another instance runs the mirror (median)', value: median(takeovers) / 1000, unit: 's', goal: `< ${SESSION_TIMEOUT_MS / 1000} s session timeout + rebalance` },
    { name: 'ha: SIGKILL → lag back under 1 s (median)', value: median(recoveries) / 1000, unit: 's', goal: '< 15 s with a 10 s session timeout' },
  ]
}
