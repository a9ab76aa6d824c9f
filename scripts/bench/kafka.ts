// `npm run bench -- kafka` (issue #15): mirroring a → b between the two local Kafka test brokers
// (`npx tsx scripts/kafka/clusters.ts start`), this engine (KafkaCluster source + destination emulation, run as
// the server runs it) against Apache Kafka's MirrorMaker 2 (dedicated mode, same Kafka release), on the same
// brokers and the same source topic in one run: records/s of the backlog, end-to-end lag of bursts produced to
// the running mirror, the ratio engine/MM2 (goal ≥ 1.0×); and the adapter's raw-fetch rate against a plain
// kafkajs consumer of the same topic. The contestants run one after the other, never side by side (two cores).
//
// BENCH_KAFKA_RECORDS sets the count (default the issue's 1,000,000: 1 GiB through two brokers, several
// minutes here); BENCH_KAFKA_LAG_ROUNDS the bursts per contestant (default 5); BENCH_KAFKA_ONLY=engine runs the
// engine alone (for `node --cpu-prof`: no MirrorMaker, no read comparison in the profile); the engine's destination
// writes are fenced (transactional ids, as with several instances) unless BENCH_KAFKA_FENCED=0, and, fenced, each append
// commits with its emulation record in one transaction (atomic appends, issue #40; the servers' default with several
// instances) unless BENCH_KAFKA_ATOMIC=0. Every result's name says which mode it measured. Every topic the run created —
// the source topic, the engine's destination topic and state topic, MirrorMaker's replicated and internal
// topics — is deleted at the end, so a second run starts clean.
import { performance } from 'node:perf_hooks'
import type { Admin, Producer } from 'kafkajs'
import { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { MirrorEngine } from '@/server/engine/engine'
import { MirrorMaker, removeMirrorMakerTopics, replicatedTopic } from '@/scripts/kafka/mm2/mirror-maker'
import { getTestClusters, TestClustersNotRunningError, type TestClusters } from '@/scripts/kafka/test-clusters'
import { burstLags, client, committedRecords, deleteTopicsAndWait, highWatermarkSum, kafkajsConsumerRate, load, PARTITIONS, rawFetchRate, seedSource, watchDrain, type Drain } from './kafka-measure'
import { median, type BenchResult } from './result'

/** The server's engine settings (server/runtime.ts): ticks every 100 ms, fetches held up to 500 ms at the source. */
const TICK_INTERVAL_MS = 100
const FETCH_MAX_WAIT_MS = 500
const DRAIN_TIMEOUT_MS = 30 * 60_000

export async function benchKafka(): Promise<BenchResult[]> {
  let clusters
  try {
    clusters = getTestClusters()
  } catch (error) {
    if (!(error instanceof TestClustersNotRunningError)) throw error
    console.log('skipped: the Kafka test brokers are not running (`npx tsx scripts/kafka/clusters.ts start`)')
    return []
  }
  return benchKafkaOn(clusters)
}

interface Contestant {
  drain: Drain
  lagsMs: number[]
}

const log = (message: string): void => console.log(`  ${message} (load ${load()})`)

async function benchKafkaOn({ a, b, lib }: TestClusters): Promise<BenchResult[]> {
  const total = Number(process.env.BENCH_KAFKA_RECORDS ?? 1_000_000)
  const lagRounds = Number(process.env.BENCH_KAFKA_LAG_ROUNDS ?? 5)
  const repeats = Number(process.env.BENCH_KAFKA_REPEAT ?? 1)
  const topic = `bench-kafka-${Date.now().toString(36)}`
  const kafkaA = client(a.bootstrap, 'bench-kafka-a')
  const kafkaB = client(b.bootstrap, 'bench-kafka-b')
  const adminA = kafkaA.admin()
  const adminB = kafkaB.admin()
  const producer = kafkaA.producer({ idempotent: true, maxInFlightRequests: 1 })
  const mode = engineMode()
  await Promise.all([adminA.connect(), adminB.connect(), producer.connect()])
  const benchStarted = performance.now()
  try {
    // A run killed half-way left MirrorMaker's topics behind: they would hand it old offsets.
    await removeMirrorMakerTopics(adminA, 'source')
    await removeMirrorMakerTopics(adminB, 'target')
    const seededRate = await seedSource(adminA, lib, a.bootstrap, topic, total)
    log(`seeded ${topic}: ${total.toLocaleString('en-US')} records, ProducerPerformance ${Math.round(seededRate).toLocaleString('en-US')} records/s`)

    const engines: Contestant[] = []
    const mm2s: Contestant[] = []
    // Alternating, so a change in the shared machine's load falls on both contestants.
    for (let run = 1; run <= repeats; run++) {
      const engine = await raceEngine(adminA, adminB, producer, a.bootstrap, b.bootstrap, topic, lagRounds, mode)
      log(`engine, run ${run}: ${summary(engine)}`)
      engines.push(engine)
      if (process.env.BENCH_KAFKA_ONLY === 'engine') continue
      const mm2 = await raceMirrorMaker(adminA, adminB, producer, a.bootstrap, b.bootstrap, topic, lagRounds)
      log(`MirrorMaker 2, run ${run}: ${summary(mm2)}`)
      mm2s.push(mm2)
    }
    const label = `(${PARTITIONS} partitions, 1 KiB, ${total.toLocaleString('en-US')}${repeats > 1 ? `, median of ${repeats}` : ''}; engine ${mode.label})`
    const engineRate = median(engines.map((c) => c.drain.recordsPerSecond))
    if (process.env.BENCH_KAFKA_ONLY === 'engine') return [{ name: `engine mirroring a → b, backlog ${label}`, value: engineRate, unit: 'records/s' }]

    const reads = await compareReads(a.bootstrap, kafkaA, adminA, topic)
    log(`reads of ${topic}: adapter raw fetch ${reads.raw.map(round).join(', ')}; kafkajs consumer ${reads.consumer.map(round).join(', ')} records/s`)
    log(`the whole suite took ${Math.round((performance.now() - benchStarted) / 1000)} s`)

    const mm2Rate = median(mm2s.map((c) => c.drain.recordsPerSecond))
    // Each run mirrors the whole source topic, which grows by the bursts of the runs before it.
    const engineWallRate = median(engines.map((c) => c.drain.target / (c.drain.wallMs / 1000)))
    const mm2WallRate = median(mm2s.map((c) => c.drain.target / (c.drain.wallMs / 1000)))
    const engineLag = median(engines.flatMap((c) => c.lagsMs))
    const mm2Lag = median(mm2s.flatMap((c) => c.lagsMs))
    const bursts = engines.flatMap((c) => c.lagsMs).length
    return [
      { name: `mirroring a → b, backlog ${label}`, value: engineRate, unit: 'records/s', baseline: { name: 'MirrorMaker 2', value: mm2Rate }, ratio: engineRate / mm2Rate, goal: '≥ 1.0' },
      { name: `mirroring a → b, start to last record ${label}`, value: engineWallRate, unit: 'records/s', baseline: { name: 'MirrorMaker 2', value: mm2WallRate }, ratio: engineWallRate / mm2WallRate, goal: '≥ 1.0' },
      // Lower is better: the ratio is MM2's lag over the engine's, so ≥ 1.0 means the engine's is shorter.
      { name: `end-to-end lag, median of ${bursts} bursts of 800 records`, value: engineLag, unit: 'ms', baseline: { name: 'MirrorMaker 2', value: mm2Lag }, ratio: mm2Lag / engineLag, goal: '≥ 1.0 (MM2 lag / engine lag)' },
      { name: `adapter raw fetch, source topic 0 → end, median of ${reads.raw.length}`, value: median(reads.raw), unit: 'records/s', baseline: { name: 'kafkajs consumer', value: median(reads.consumer) }, ratio: median(reads.raw) / median(reads.consumer) },
    ]
  } finally {
    await adminA.deleteTopics({ topics: [topic], timeout: 30_000 }).catch(() => undefined)
    await deleteTopicsAndWait(adminB, [topic, STATE_TOPIC]).catch(() => undefined)
    await removeMirrorMakerTopics(adminA, 'source').catch(() => [])
    await removeMirrorMakerTopics(adminB, 'target').catch(() => [])
    await Promise.allSettled([producer.disconnect(), adminA.disconnect(), adminB.disconnect()])
  }
}

function round(value: number): string {
  return Math.round(value).toLocaleString('en-US')
}

function summary({ drain, lagsMs }: Contestant): string {
  return `backlog ${round(drain.recordsPerSecond)} records/s (first record after ${round(drain.startupMs)} ms, all ${round(drain.target)} after ${(drain.wallMs / 1000).toFixed(1)} s, destination held ${round(drain.records)}); burst lags ${lagsMs.map(round).join(', ')} ms`
}

/** The engine as the server runs it: background ticks, held fetches; the destination topic keeps the source's name. */
async function raceEngine(adminA: Admin, adminB: Admin, producer: Producer, sourceBootstrap: string, destinationBootstrap: string, topic: string, lagRounds: number, { fencedWrites, atomicAppends }: EngineMode): Promise<Contestant> {
  // A clean destination for each run: no destination topic, no state topic (the engine would resume from it).
  await deleteTopicsAndWait(adminB, [topic, STATE_TOPIC])
  const source = await KafkaCluster.open('bench-a', { bootstrapServers: [sourceBootstrap] })
  console.log(`  engine: fenced writes ${fencedWrites ? 'on' : 'off'}, atomic appends ${atomicAppends ? 'on' : 'off'}`)
  const destination = await KafkaCluster.open('bench-b', { bootstrapServers: [destinationBootstrap] }, { fencedWrites, atomicAppends })
  const pair = new Map([
    ['bench-a', source],
    ['bench-b', destination],
  ])
  const engine = new MirrorEngine({
    clusters: { names: () => [...pair.keys()], get: (name) => (pair.has(name) ? { source: pair.get(name)!.source, host: pair.get(name)!.host } : undefined) },
    fetchMaxWaitMs: FETCH_MAX_WAIT_MS,
  })
  try {
    await engine.start()
    engine.startBackground(TICK_INTERVAL_MS)
    const total = await highWatermarkSum(adminA, topic)
    const started = performance.now()
    await engine.createMirror({ name: topic, sourceCluster: 'bench-a', destinationCluster: 'bench-b', topics: [topic] })
    // A FAILED partition retries on its own (transient causes); it is reported, and the drain's timeout ends a stuck run.
    const reported = new Set<string>()
    const failed = () => {
      for (const p of engine.partitions(topic).filter((p) => p.state === 'FAILED' && !reported.has(`${p.partition}:${p.error}`))) {
        reported.add(`${p.partition}:${p.error}`)
        log(`engine: ${topic}-${p.partition} FAILED (attempt ${p.retryAttempt}): ${p.error ?? 'no reason'}`)
      }
      return null
    }
    // Atomic appends: each append's COMMIT marker takes an offset, so the high watermarks run ahead of the records;
    // progress is the emulation's log end (source offsets), and what the destination holds is counted from its batches.
    const mirrored = async () => (await destination.host.describeTopics([topic]))[0]?.partitions.reduce((sum, p) => sum + p.highWatermark, 0) ?? 0
    const drain = await watchDrain(adminB, topic, total, started, failed, DRAIN_TIMEOUT_MS, atomicAppends ? mirrored : undefined)
    const held = await committedRecords(destination.source, topic)
    log(`engine: the destination holds ${held.toLocaleString('en-US')} records read_committed (high watermark sum ${(await highWatermarkSum(adminB, topic)).toLocaleString('en-US')})`)
    const { lagsMs } = await burstLags(producer, topic, adminB, topic, lagRounds, atomicAppends ? PARTITIONS : 0)
    return { drain: { ...drain, records: held }, lagsMs }
  } finally {
    await engine.close()
    await source.close()
    await destination.close()
  }
}

interface EngineMode {
  fencedWrites: boolean
  atomicAppends: boolean
  label: string
}

/**
 * Fenced writes as several instances write (a transactional id per destination partition, server/runtime.ts turns
 * them on with MIRRORBOARD_CONTROL_BOOTSTRAP): the figure to beat MirrorMaker 2 with. BENCH_KAFKA_FENCED=0: unfenced.
 * Fenced, atomic appends as the servers run them by default (issue #40); BENCH_KAFKA_ATOMIC=0: without.
 */
function engineMode(): EngineMode {
  const fencedWrites = process.env.BENCH_KAFKA_FENCED !== '0'
  const atomicAppends = fencedWrites && process.env.BENCH_KAFKA_ATOMIC !== '0'
  return { fencedWrites, atomicAppends, label: !fencedWrites ? 'unfenced' : atomicAppends ? 'fenced, atomic appends' : 'fenced, no atomic appends' }
}

/** MirrorMaker 2, one task per partition, until `a.<topic>` on b holds everything the source topic does. */
async function raceMirrorMaker(adminA: Admin, adminB: Admin, producer: Producer, sourceBootstrap: string, destinationBootstrap: string, topic: string, lagRounds: number): Promise<Contestant> {
  const total = await highWatermarkSum(adminA, topic)
  const started = performance.now()
  const mm2 = MirrorMaker.start({ sourceBootstrap, targetBootstrap: destinationBootstrap, topics: [topic], tasks: PARTITIONS })
  try {
    const failed = () => {
      const exit = mm2.exited()
      return exit === null ? null : `MirrorMaker exited (${exit}); log tail:\n${mm2.logTail()}`
    }
    const drain = await watchDrain(adminB, replicatedTopic(topic), total, started, failed, DRAIN_TIMEOUT_MS)
    const { lagsMs } = await burstLags(producer, topic, adminB, replicatedTopic(topic), lagRounds)
    return { drain, lagsMs }
  } finally {
    await mm2.stop()
    const removed = [...(await removeMirrorMakerTopics(adminA, 'source')), ...(await removeMirrorMakerTopics(adminB, 'target'))]
    log(`MirrorMaker 2 stopped; removed its topics: ${removed.join(', ') || 'none'}`)
  }
}

/** Three alternating reads of the whole source topic by each reader. */
async function compareReads(bootstrap: string, kafka: ReturnType<typeof client>, admin: Admin, topic: string): Promise<{ raw: number[]; consumer: number[] }> {
  const raw: number[] = []
  const consumer: number[] = []
  const source = await KafkaCluster.open('bench-read', { bootstrapServers: [bootstrap] })
  try {
    for (let i = 0; i < 3; i++) {
      raw.push(await rawFetchRate(source.source, topic))
      consumer.push(await kafkajsConsumerRate(kafka, admin, topic))
    }
  } finally {
    await source.close()
  }
  return { raw, consumer }
}
