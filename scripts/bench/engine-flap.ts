// Engine benchmark without storage (issue #18): one engine over the port fakes, a wide mirror, and a link
// flap — half its partitions FAILED at once, then all back to MIRRORING. Measures the time to converge and
// the event loop's longest stall over the whole flap, in wall time and in the main thread's own CPU (stall-meter.ts:
// on a shared machine the wall figure includes the time the OS gave other processes; BENCH_STALL_LOG=<ms> prints
// every turn over it, to lay over a `node --cpu-prof` profile).
import { performance } from 'node:perf_hooks'
import { createFakeEngine } from '@/server/engine/testing/fake-engine'
import type { BenchResult } from './result'
import { withStalls } from './stall-meter'

const TOPICS = 10
const DEFAULT_PARTITIONS = 100_000
/** A tick every 100 ms of the manual clock, as startBackground runs them. */
const TICK_MS = 100

function partitionsByState(summary: { partitionsByState: Partial<Record<string, number>> }): string {
  return JSON.stringify(summary.partitionsByState)
}

export async function linkFlapOnce(partitions = Number(process.env.BENCH_FLAP_PARTITIONS ?? DEFAULT_PARTITIONS)): Promise<{ setupMs: number; convergeMs: number; ticks: number; maxStallMs: number; maxStallCpuMs: number | null }> {
  const fake = await createFakeEngine(['a', 'b'])
  const perTopic = Math.ceil(partitions / TOPICS)
  const topics = Array.from({ length: TOPICS }, (_, i) => `flap-${i}`)
  for (const topic of topics) fake.source('a').createTopic(topic, perTopic)
  try {
    const setupStarted = performance.now()
    await fake.engine.createMirror({ name: 'flap', sourceCluster: 'a', destinationCluster: 'b', topics })
    await fake.engine.settle()
    for (let i = 0; fake.engine.mirrorSummary('flap').partitionsByState.MIRRORING !== perTopic * TOPICS; i++) {
      if (i > 50) throw new Error(`not mirroring after setup: ${partitionsByState(fake.engine.mirrorSummary('flap'))}`)
      await fake.step(TICK_MS)
    }
    await fake.step(TICK_MS)
    const setupMs = performance.now() - setupStarted

    const measured = await withStalls(async () => {
      // Half the partitions' next fetch answers an error: they go FAILED in one round, then retry.
      for (const [index, topic] of topics.entries()) {
        if (index % 2 === 0) for (let partition = 0; partition < perTopic; partition++) fake.source('a').failNextFetch({ topic, partition }, 'NOT_LEADER_OR_FOLLOWER')
      }
      await fake.step(TICK_MS)
      const failed = fake.engine.mirrorSummary('flap').partitionsByState.FAILED ?? 0
      if (failed !== (perTopic * TOPICS) / 2) throw new Error(`expected half the partitions FAILED, got ${partitionsByState(fake.engine.mirrorSummary('flap'))}`)
      let ticks = 1
      while (fake.engine.mirrorSummary('flap').partitionsByState.MIRRORING !== perTopic * TOPICS || fake.engine.partitions('flap', { state: 'MIRRORING' }).some((p) => p.retryAttempt !== 0)) {
        if (ticks > 200) throw new Error(`no convergence: ${partitionsByState(fake.engine.mirrorSummary('flap'))}`)
        await fake.step(TICK_MS)
        ticks += 1
      }
      return ticks
    })
    return { setupMs, convergeMs: measured.ms, ticks: measured.value, maxStallMs: measured.stalls.wallMs, maxStallCpuMs: measured.stalls.cpuMs }
  } finally {
    await fake.engine.close()
  }
}

export async function benchEngineFlap(): Promise<BenchResult[]> {
  const run = await linkFlapOnce()
  const partitions = Number(process.env.BENCH_FLAP_PARTITIONS ?? DEFAULT_PARTITIONS).toLocaleString('en-US')
  return [
    { name: `fakes: create+start ${partitions} partitions`, value: run.setupMs, unit: 'ms' },
    { name: `fakes: link flap of ${partitions} (half FAILED), converge`, value: run.convergeMs, unit: `ms (${run.ticks} ticks)` },
    { name: `fakes: link flap, longest event-loop stall, wall time`, value: run.maxStallMs, unit: 'ms', goal: '< 100 ms' },
    { name: `fakes: link flap, longest event-loop stall, main-thread CPU`, value: run.maxStallCpuMs ?? Number.NaN, unit: 'ms', goal: '< 100 ms' },
  ]
}
