// `npm run bench -- verify`: a verification's throughput (both sides' bytes compared per second, unthrottled)
// against a raw sequential read of the same segment files (both sides), measured in the same run; goal ≥ 0.5.
// Beside it, the event loop's longest stall during each verification (goal < 50 ms: it runs in time slices), in
// wall time and in the main thread's own CPU time (stall-meter.ts). And the same ratio per CPU second of the whole
// process (process.cpuUsage, every thread: the raw read's copies happen in libuv's pool): on a machine shared by
// many, wall-time throughput says as much of the others' load as of the code — the raw read sleeps between its
// 1 MiB reads and is woken ahead of busy threads, where the verifier's thread stays busy and waits its turn, so at
// load averages well above the core count the wall ratio falls below the CPU one. The goal (≥ 0.5) is read on both.
// Then the production mirror's lag while verifications run at their default throttle (64 MiB/s), against the same
// window without one (ratio, goal ≤ 1.5, as for a drill), with producers writing to the source: a probe record to
// each partition every 100 ms, timed from its acknowledgement at the source until the destination's high
// watermark covers it; and the event loop's longest stall meanwhile.
import { mkdtemp, open, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorEngine } from '@/server/engine/engine'
import { JsonRecordStore } from '@/server/util/json-record-store'
import { IDENTITY_MAPPING } from '@/server/verification/partition-comparison'
import { StoredVerification, Verifier } from '@/server/verification/verifier'
import { quantile } from '@/lib/drill/cadence'
import { median, type BenchResult } from './result'
import { withStalls, type Stalls } from './stall-meter'

const PARTITIONS = 8
/** MiB per partition on each side. */
const MIB_PER_PARTITION = Number(process.env.BENCH_VERIFY_MIB ?? 32)
const REPEAT = 3
/** Each window of the lag measurement (without, then with verifications running). */
const LAG_WINDOW_MS = Number(process.env.BENCH_VERIFY_LAG_MS ?? 10_000)

async function readAll(dirs: readonly string[]): Promise<number> {
  const buffer = Buffer.allocUnsafe(1 << 20)
  let bytes = 0
  for (const dir of dirs) {
    for (const name of (await readdir(dir)).filter((file) => file.endsWith('.log')).sort()) {
      const handle = await open(path.join(dir, name), 'r')
      try {
        for (let read = (await handle.read(buffer, 0, buffer.length)).bytesRead; read > 0; read = (await handle.read(buffer, 0, buffer.length)).bytesRead) bytes += read
      } finally {
        await handle.close()
      }
    }
  }
  return bytes
}

export async function benchVerify(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-verify-'))
  const clusters = new Map<string, EmbeddedCluster>()
  for (const name of ['a', 'b']) clusters.set(name, await EmbeddedCluster.open(path.join(root, name), { name, brokers: 1 }))
  const a = clusters.get('a')!
  const engine = new MirrorEngine({ clusters: { names: () => [...clusters.keys()], get: (name) => (clusters.has(name) ? { source: clusters.get(name)!, host: clusters.get(name)! } : undefined) } })
  try {
    await engine.start()
    await a.createTopic({ name: 'bulk', partitions: PARTITIONS, replicationFactor: 1 })
    const value = 'v'.repeat(1000)
    const records = Array.from({ length: 1000 }, (_, i) => ({ key: `k${i}`, value }))
    for (let partition = 0; partition < PARTITIONS; partition++) {
      for (let mib = 0; mib < MIB_PER_PARTITION; mib++) await a.produce('bulk', { partition, idempotent: false, records })
    }
    await engine.createMirror({ name: 'bulk', sourceCluster: 'a', destinationCluster: 'b', topics: ['bulk'] })
    const ends = (await a.describeTopic('bulk')).partitions.map((p) => p.logEndOffset)
    for (let round = 0; engine.partitions('bulk').some((p) => p.state !== 'MIRRORING' || p.destinationHighWatermark !== ends[p.partition]); round++) {
      if (round > 20_000) throw new Error('the mirror did not catch up')
      await engine.tick()
    }
    const dirs = (['a', 'b'] as const).flatMap((name) => Array.from({ length: PARTITIONS }, (_, partition) => clusters.get(name)!.replicaLog({ topic: 'bulk', partition }, 1)!.dir))
    const verifier = new Verifier(JsonRecordStore.inMemory<StoredVerification>(), {
      now: () => Date.now(),
      log: () => {},
      emit: () => {},
      mirror: (name) => ({ ...engine.getMirror(name), partitions: engine.partitions(name) }),
      reader: (name) => clusters.get(name)!,
      destination: () => ({ mode: 'bytes', mapping: () => IDENTITY_MAPPING }),
    }, { bytesPerSecond: Number.POSITIVE_INFINITY })
    await readAll(dirs)
    const raw: number[] = []
    const verified: number[] = []
    const stalls: Stalls[] = []
    const rawPerCpu: number[] = []
    const verifiedPerCpu: number[] = []
    const cpuSeconds = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since)
      return (used.user + used.system) / 1e6
    }
    let total = 0
    for (let run = 0; run < REPEAT; run++) {
      const started = performance.now()
      let cpu = process.cpuUsage()
      total = await readAll(dirs)
      rawPerCpu.push(total / cpuSeconds(cpu))
      raw.push(total / ((performance.now() - started) / 1000))
      cpu = process.cpuUsage()
      const measured = await withStalls(async () => verifier.settled((await verifier.start('bulk')).id))
      const verifyCpu = cpuSeconds(cpu)
      const done = measured.value
      const seconds = measured.ms / 1000
      stalls.push(measured.stalls)
      if (done.status !== 'passed') throw new Error(`verification ${done.status}`)
      // Both sides' bytes: the source's batches judged, and as many of the destination's.
      verified.push((2 * done.totals.bytes) / seconds)
      verifiedPerCpu.push((2 * done.totals.bytes) / verifyCpu)
    }
    await verifier.close()
    const lag = await productionLagDuringVerification(engine, clusters)
    const mb = (bytesPerSecond: number) => bytesPerSecond / 1e6
    const rawMedian = median(raw)
    const verifyMedian = median(verified)
    return [
      {
        name: `verify: ${PARTITIONS} partitions, ${((total / 2) / 1e6).toFixed(0)} MB a side, by wall time (median of ${REPEAT})`,
        value: mb(verifyMedian),
        unit: 'MB/s',
        baseline: { name: 'raw sequential read of the same segments', value: mb(rawMedian) },
        ratio: verifyMedian / rawMedian,
        goal: 'ratio ≥ 0.5',
      },
      {
        name: `verify: the same per CPU second of the process, every thread (median of ${REPEAT})`,
        value: mb(median(verifiedPerCpu)),
        unit: 'MB/CPU-s',
        baseline: { name: 'raw sequential read', value: mb(median(rawPerCpu)) },
        ratio: median(verifiedPerCpu) / median(rawPerCpu),
      },
      {
        name: `verify: production lag p99 while verifications run at the default throttle (${lag.during.length} probes, ${lag.verified} verifications)`,
        value: lag.p99During,
        unit: 'ms',
        baseline: { name: `p99 over ${(LAG_WINDOW_MS / 1000).toFixed(0)} s without one (${lag.without.length} probes)`, value: lag.p99Without },
        ratio: lag.p99Without === 0 ? Number.NaN : lag.p99During / lag.p99Without,
        goal: 'ratio ≤ 1.5',
      },
      { name: 'verify: longest event-loop stall while verifying under production, main-thread CPU', value: lag.stalls.cpuMs ?? Number.NaN, unit: 'ms', goal: '< 50 ms' },
      ...(['wall', 'cpu'] as const).map((kind) => {
        const longest = stalls.map((stall) => (kind === 'wall' ? stall.wallMs : (stall.cpuMs ?? Number.NaN)))
        return {
          name: `verify: longest event-loop stall, ${kind === 'wall' ? 'wall time' : 'main-thread CPU'} (median of each run's longest; longest of all ${Math.max(...longest).toFixed(0)} ms)`,
          value: median(longest),
          unit: 'ms',
          goal: '< 50 ms',
        }
      }),
    ]
  } finally {
    await engine.close()
    for (const cluster of clusters.values()) await cluster.close()
    await rm(root, { recursive: true, force: true })
  }
}

/**
 * The mirror running in the background with producers writing to the source (RATE records a second to random
 * partitions), probed end to end: LAG_WINDOW_MS without a verification, then as long with verifications at the
 * default throttle one after another.
 */
async function productionLagDuringVerification(engine: MirrorEngine, clusters: Map<string, EmbeddedCluster>): Promise<{ without: number[]; during: number[]; p99Without: number; p99During: number; verified: number; stalls: Stalls }> {
  const a = clusters.get('a')!
  const b = clusters.get('b')!
  const RATE = 1_000
  engine.startBackground(100)
  let producing = true
  const production = (async () => {
    while (producing) {
      const started = performance.now()
      await Promise.all(Array.from({ length: RATE / 20 }, () => a.produce('bulk', { partition: Math.floor(Math.random() * PARTITIONS), records: [{ key: 'load', value: 'x'.repeat(200) }] }).catch(() => undefined)))
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (performance.now() - started))))
    }
  })()
  const probe = async (partition: number): Promise<number> => {
    const { records } = await a.produce('bulk', { partition, records: [{ key: 'probe', value: 'probe' }] })
    const acknowledged = performance.now()
    const offset = records[0]!.offset
    while ((await b.describePartition({ topic: 'bulk', partition })).highWatermark <= offset) await new Promise((resolve) => setTimeout(resolve, 5))
    return performance.now() - acknowledged
  }
  const sample = async (ms: number): Promise<number[]> => {
    const lags: number[] = []
    const started = performance.now()
    while (performance.now() - started < ms) {
      const round = performance.now()
      lags.push(...(await Promise.all(Array.from({ length: PARTITIONS }, (_, partition) => probe(partition)))))
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (performance.now() - round))))
    }
    return lags
  }
  const verifier = new Verifier(JsonRecordStore.inMemory<StoredVerification>(), {
    now: () => Date.now(),
    log: () => {},
    emit: () => {},
    mirror: (name) => ({ ...engine.getMirror(name), partitions: engine.partitions(name) }),
    reader: (name) => clusters.get(name)!,
    destination: () => ({ mode: 'bytes', mapping: () => IDENTITY_MAPPING }),
  })
  try {
    await sample(2_000)
    const without = await sample(LAG_WINDOW_MS)
    let verifying = true
    let verified = 0
    const measured = await withStalls(async () => {
      let current: string | null = null
      const verifications = (async () => {
        while (verifying) {
          current = (await verifier.start('bulk')).id
          const done = await verifier.settled(current)
          if (done.status === 'cancelled') return
          if (done.status !== 'passed') throw new Error(`verification ${done.status}`)
          verified += 1
        }
      })()
      const lags = await sample(LAG_WINDOW_MS)
      verifying = false
      if (current !== null) await verifier.cancel(current).catch(() => undefined)
      await verifications
      return lags
    })
    const during = measured.value
    return { without, during, p99Without: quantile(without, 0.99) ?? 0, p99During: quantile(during, 0.99) ?? 0, verified, stalls: measured.stalls }
  } finally {
    producing = false
    await production
    await verifier.close()
  }
}
