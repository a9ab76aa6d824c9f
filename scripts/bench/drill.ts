// `npm run bench -- drill`: a drill of a 2,000-partition mirror while producers keep writing to its source.
// Figures: the drill's RTO (start → copy writable, goal < 10 s), the production mirror's lag p99 during the
// drill against the same figure over the same time just after it (ratio, goal ≤ 1.5), and the event loop's
// longest stall during the drill (goal < 100 ms) in wall time and in the main thread's own CPU time
// (stall-meter.ts: on a shared machine the wall figure includes the time the OS gave other processes), with the
// main thread's CPU over the whole drill beside the drill's wall time; both stall figures also over the window
// without a drill, where the bench's producers and the mirror's appends alone make turns of 36–91 ms of CPU
// (server/drills/README.md, session 27). Production lag is measured end to end: a probe record
// written to one partition of each topic every 100 ms, timed from its acknowledgement at the source until the
// destination's high watermark covers it.
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import { performance } from 'node:perf_hooks'
import { quantile } from '@/lib/drill/cadence'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { Drills } from '@/server/drills/drills'
import { MirrorEngine } from '@/server/engine/engine'
import { fitScavengesToCores } from '@/server/util/scavenge'
import type { BenchResult } from './result'
import { withStalls } from './stall-meter'

const PARTITIONS = Number(process.env.BENCH_DRILL_PARTITIONS ?? 2_000)
const TOPICS = 20
/** Records per second the producers write to random partitions of the source (in batches every 50 ms). */
const RATE = Number(process.env.BENCH_DRILL_RATE ?? 2_000)
const OPEN_TRANSACTIONS = Math.round(PARTITIONS / 10)

/** The drill's log of where its time went (drill-runner.ts). */
interface StepLog {
  phase: string
  rtoMs?: number
  sandboxProcess?: { pid: number; spare: boolean }
  server: Array<[string, number]>
  sandbox: Array<{ step: string; ms: number; endedAt: number; pausedMs: number; nice: number }>
}

const topics = () => Array.from({ length: TOPICS }, (_, i) => `drilled-${i}`)

/**
 * The sandbox's process as a production server forks it: the build (`dist/sandbox/`, made by `npm run build`),
 * rebuilt here so it is this checkout's. From the source through tsx (what `npm run dev` and the tests fork) its
 * modules load in 1.6–1.8 s against 0.4–0.8 s built (load 11–12, session 21), and the drill waits for them after
 * its copy. BENCH_DRILL_SANDBOX=source measures the tsx entry instead.
 */
function forkBuiltSandbox(): () => void {
  if (process.env.BENCH_DRILL_SANDBOX === 'source') {
    console.log('sandbox process: from the source through tsx (BENCH_DRILL_SANDBOX=source)')
    return () => {}
  }
  execFileSync(process.execPath, ['cli/build.mjs', 'tsconfig.sandbox.json'], { stdio: 'inherit' })
  console.log('sandbox process: the build (dist/sandbox/, as npm run build ships it)')
  const before = process.env.MIRRORBOARD_SANDBOX_COMPILED
  process.env.MIRRORBOARD_SANDBOX_COMPILED = '1'
  return () => {
    if (before === undefined) delete process.env.MIRRORBOARD_SANDBOX_COMPILED
    else process.env.MIRRORBOARD_SANDBOX_COMPILED = before
  }
}

/**
 * BENCH_DRILL_V8_FLAGS (e.g. `--single-threaded-gc`): the drill runs in a child node started with those V8 flags and
 * this entry's own, its figures handed back in a file — flags only node's command line can set (V8 11.3 aborts at
 * the next mark-compact when `--single-threaded-gc` is set at run time), to measure a server started with them.
 */
const V8_FLAGS = (process.env.BENCH_DRILL_V8_FLAGS ?? '').split(/\s+/).filter(Boolean)

async function inChildWithFlags(): Promise<BenchResult[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-drill-results-'))
  const file = path.join(dir, 'results.json')
  try {
    console.log(`the drill in a child node started with ${V8_FLAGS.join(' ')}`)
    execFileSync(process.execPath, [...V8_FLAGS, ...process.execArgv, process.argv[1]!, 'drill of a 2,000'], { stdio: 'inherit', env: { ...process.env, BENCH_DRILL_RESULTS: file } })
    // JSON writes NaN as null.
    return (JSON.parse(await readFile(file, 'utf8')) as BenchResult[]).map((result) => ({ ...result, value: result.value ?? Number.NaN, ...(result.ratio === undefined ? {} : { ratio: result.ratio ?? Number.NaN }), ...(result.baseline === undefined ? {} : { baseline: { ...result.baseline, value: result.baseline.value ?? Number.NaN } }) }))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export async function benchDrill(): Promise<BenchResult[]> {
  if (!V8_FLAGS.every((flag) => process.execArgv.includes(flag))) return inChildWithFlags()
  const results = await drill()
  if (process.env.BENCH_DRILL_RESULTS === undefined) return results
  await writeFile(process.env.BENCH_DRILL_RESULTS, JSON.stringify(results))
  return []
}

async function drill(): Promise<BenchResult[]> {
  const restoreSandboxEntry = forkBuiltSandbox()
  if (V8_FLAGS.length > 0) console.log(`V8 flags: ${V8_FLAGS.join(' ')} (BENCH_DRILL_V8_FLAGS)`)
  // What the production server does as it starts (server/main.ts): this process is the server here.
  // BENCH_DRILL_PARALLEL_SCAVENGE=1 keeps V8's default, to measure without it.
  const scavengesAlone = process.env.BENCH_DRILL_PARALLEL_SCAVENGE !== '1' && fitScavengesToCores()
  console.log(`parallel scavenges: ${scavengesAlone ? 'off (server/util/scavenge.ts)' : 'on'}`)
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-drill-'))
  const clusters = new Map<string, EmbeddedCluster>()
  for (const name of ['a', 'b']) clusters.set(name, await EmbeddedCluster.open(path.join(root, name), { name, brokers: 1, config: { tickIntervalMs: 100 } }))
  const a = clusters.get('a')!
  const b = clusters.get('b')!
  const engine = new MirrorEngine({
    clusters: { names: () => [...clusters.keys()], get: (name) => (clusters.has(name) ? { source: clusters.get(name)!, host: clusters.get(name)! } : undefined) },
    fetchMaxWaitMs: 500,
  })
  let producing = true
  let production: Promise<void> = Promise.resolve()
  try {
    await engine.start()
    const perTopic = PARTITIONS / TOPICS
    for (const name of topics()) await a.createTopic({ name, partitions: perTopic, replicationFactor: 1 })
    for (let partition = 0; partition < PARTITIONS; partition++) {
      await a.produce(`drilled-${Math.floor(partition / perTopic)}`, { partition: partition % perTopic, records: [{ key: 'k', value: `first ${partition}` }, { key: 'k', value: `second ${partition}` }] })
    }
    for (let i = 0; i < OPEN_TRANSACTIONS; i++) {
      const producer = await a.createTransactionalProducer(`open-${i}`, { transactionTimeoutMs: 15 * 60_000 })
      const at = i * 10
      await producer.send(`drilled-${Math.floor(at / perTopic)}`, { partition: at % perTopic, records: [{ value: 'in flight' }] })
    }
    engine.startBackground(100)
    await engine.createMirror({ name: 'wide', sourceCluster: 'a', destinationCluster: 'b', topics: topics() })
    for (let waited = 0; engine.mirrorSummary('wide').partitionsByState.MIRRORING !== PARTITIONS; waited += 100) {
      if (waited > 120_000) throw new Error(`not mirroring: ${JSON.stringify(engine.mirrorSummary('wide').partitionsByState)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }

    // The workload: RATE records a second to random partitions, in batches every 50 ms.
    production = (async () => {
      while (producing) {
        const started = performance.now()
        const batch = Math.max(1, Math.round(RATE / 20))
        await Promise.all(
          Array.from({ length: batch }, () => {
            const partition = Math.floor(Math.random() * PARTITIONS)
            return a.produce(`drilled-${Math.floor(partition / perTopic)}`, { partition: partition % perTopic, records: [{ key: 'load', value: 'x'.repeat(200) }] }).catch(() => undefined)
          }),
        )
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (performance.now() - started))))
      }
    })()
    // One probe at a time per topic's partition 0: acknowledged at the source, then watched on the destination.
    const probe = async (topic: string): Promise<number> => {
      const { records } = await a.produce(topic, { partition: 0, records: [{ key: 'probe', value: 'probe' }] })
      const acknowledged = performance.now()
      const offset = records[0]!.offset
      const tp = { topic, partition: 0 }
      while ((await b.describePartition(tp)).highWatermark <= offset) await new Promise((resolve) => setTimeout(resolve, 5))
      return performance.now() - acknowledged
    }
    // Each probe's lag with when its round started, to attribute the lag during the drill to its phases (and the
    // same start in epoch ms, for the sandbox process's steps).
    const probedAt: Array<[number, number]> = []
    const probedAtEpoch: Array<[number, number]> = []
    const stepLogs: StepLog[] = []
    const sample = async (ms: number, until?: () => boolean) => {
      const lags: number[] = []
      const started = performance.now()
      while (until ? !until() : performance.now() - started < ms) {
        const round = performance.now()
        const roundEpoch = Date.now()
        const answered = await Promise.all(topics().map(probe))
        for (const lag of answered) probedAt.push([round, lag])
        for (const lag of answered) probedAtEpoch.push([roundEpoch, lag])
        lags.push(...answered)
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (performance.now() - round))))
      }
      return lags
    }
    // As a server starts: the drills, whose spare sandbox process (sandbox-spare.ts) is forked during the warm-up.
    const drills = await Drills.open(path.join(root, 'drills'), {
      now: () => Date.now(),
      // Where the drill's time went, step by step (drill-runner.ts, sandbox-child.ts): printed after the drill.
      log: (message, fields) => {
        if (message === 'drill steps') stepLogs.push(fields as unknown as StepLog)
      },
      emit: () => {},
      engine,
      destination: () => ({ kind: 'embedded', cluster: b, reader: b }),
      source: () => a,
      intervalDays: () => null,
      runningOperation: (mirror, names) => engine.runningOperation(mirror, names),
    }, { atPhase: (_drill, phase) => void phases.push([phase, performance.now()]) })
    // Warm up, then the drill.
    await sample(5_000)
    const spare = await drills.spare?.forked()
    console.log(spare ? `spare sandbox process forked before the drill: pid ${spare.pid}` : 'no spare sandbox process')
    const phases: Array<[string, number]> = []
    let done = false
    let during: Promise<number[]> = Promise.resolve([])
    const measured = await withStalls(async () => {
      const drill = await drills.start('wide', { requestedBy: null })
      during = sample(0, () => done)
      const settled = await drills.settled(drill.id)
      done = true
      return settled
    })
    const finished = measured.value
    const drillMs = measured.ms
    // Where the drill's time went: each phase until the next began, the last until the drill settled (its cleanup
    // included: the runner enters cleaningUp without the atPhase hook).
    const ended = phases[0]![1] + drillMs
    console.log(`phases: ${phases.map(([phase, at], i) => `${phase} ${(((phases[i + 1]?.[1] ?? ended) - at) / 1000).toFixed(1)} s`).join(', ')}`)
    const duringLags = await during
    // Where the lag was: p99 of the probes sent in each phase.
    console.log(
      `lag p99 by phase: ${phases
        .map(([phase, at], i) => {
          const until = phases[i + 1]?.[1] ?? ended
          const lags = probedAt.filter(([when]) => when >= at && when < until).map(([, lag]) => lag)
          return `${phase} ${Math.round(quantile(lags, 0.99) ?? 0)} ms (${lags.length})`
        })
        .join(', ')}`,
    )
    for (const log of stepLogs) {
      const sandboxSteps = log.sandbox
        .map(({ step, ms, endedAt, pausedMs, nice }) => {
          const lags = probedAtEpoch.filter(([when]) => when >= endedAt - ms && when < endedAt).map(([, lag]) => lag)
          return `${step} ${ms} ms (nice ${nice})${pausedMs > 0 ? ` (paused ${pausedMs})` : ''} lag p99 ${Math.round(quantile(lags, 0.99) ?? 0)} ms (${lags.length})`
        })
        .join(', ')
      if (log.sandboxProcess) console.log(`the drill's sandbox process: pid ${log.sandboxProcess.pid}, ${log.sandboxProcess.spare ? 'the spare forked before it' : 'forked as it started'}`)
      console.log(`${log.phase}: server ${log.server.map(([step, ms]) => `${step} ${ms} ms`).join(', ')}; sandbox ${sandboxSteps}${log.rtoMs === undefined ? '' : `; RTO ${log.rtoMs} ms`}`)
    }
    // The next spare would be forked 2 s after the drill, in the window without one: a server forks it then, but the
    // window is production without a drill's work, and a fork is a drill's (its blocked turn).
    await drills.spare?.close()
    // The same stall meter over the window without a drill: production's own longest turns (the bench's producers
    // and probes, the mirror's appends and fetches, their scavenges), against which the drill's are read.
    console.log('the window without a drill (stall meter):')
    const without = await withStalls(() => sample(drillMs))
    const baselineLags = without.value
    await drills.close()
    if (finished.status !== 'succeeded') throw new Error(`drill ${finished.status}: ${finished.error ?? finished.checks.filter((c) => !c.ok).map((c) => c.detail).join('; ')}`)
    const p99During = quantile(duringLags, 0.99) ?? 0
    const p99Without = quantile(baselineLags, 0.99) ?? 0
    const size = PARTITIONS.toLocaleString('en-US')
    return [
      { name: `drill of ${size} partitions: RTO (start → copy writable)`, value: finished.rtoMs ?? Number.NaN, unit: 'ms', goal: '< 10000 ms' },
      { name: `drill: whole drill (copy, failover, checks, cleanup)`, value: drillMs, unit: 'ms' },
      {
        name: `drill: production lag p99 during the drill (${duringLags.length} probes)`,
        value: p99During,
        unit: 'ms',
        baseline: { name: `p99 over ${(drillMs / 1000).toFixed(1)} s without a drill (${baselineLags.length} probes)`, value: p99Without },
        ratio: p99Without === 0 ? Number.NaN : p99During / p99Without,
        goal: 'ratio ≤ 1.5',
      },
      { name: `drill: longest event-loop stall during the drill, wall time`, value: measured.stalls.wallMs, unit: 'ms', baseline: { name: 'without a drill', value: without.stalls.wallMs }, goal: '< 100 ms' },
      { name: `drill: longest event-loop stall during the drill, main-thread CPU`, value: measured.stalls.cpuMs ?? Number.NaN, unit: 'ms', baseline: { name: 'without a drill', value: without.stalls.cpuMs ?? Number.NaN }, goal: '< 100 ms' },
      { name: `drill: main-thread CPU over the whole drill (wall ${(drillMs / 1000).toFixed(1)} s; the producers and probes included)`, value: measured.stalls.cpuTotalMs ?? Number.NaN, unit: 'ms' },
    ]
  } finally {
    producing = false
    await production
    await engine.close()
    for (const cluster of clusters.values()) await cluster.close()
    await rm(root, { recursive: true, force: true })
    restoreSandboxEntry()
    // The suites after this one measure V8's default, as before.
    if (scavengesAlone) v8.setFlagsFromString('--parallel-scavenge')
  }
}
