import 'server-only'
import { TimeSlice } from '@/server/util/cooperative'
import type { EngineContext } from '../engine-context'
import type { MirrorRuntime } from '../state/mirror-runtime'
import { changePartition } from '../state/partition-changes'
import type { PartitionRuntime } from '../types'

/**
 * The tick's first phases: the partitions that asked for a later tick (retries, restores, convergence
 * checks), not a sweep over every partition. A mirror of 100,000 partitions with 50,000 retrying visits those
 * 50,000, yielding to the event loop as it goes; each keeps its place until none of the three is pending.
 */
async function attentionSweep(mirror: MirrorRuntime, work: (runtime: PartitionRuntime) => Promise<void>): Promise<void> {
  const slice = new TimeSlice()
  for (const runtime of [...mirror.attention]) {
    await work(runtime)
    if (!needsAttention(runtime)) mirror.attention.delete(runtime)
    const turn = slice.maybeYield()
    if (turn) await turn
  }
}

/** A retry scheduled, a restore after a failed state write, or a replica convergence still to check. */
function needsAttention(runtime: PartitionRuntime): boolean {
  return runtime.retryAt !== null || runtime.needsRestore || (runtime.awaitingConvergence && runtime.value.state === 'ULE_LOG_TRUNCATION')
}

/** Partitions whose state write failed: their effects are re-run from the last durable state. */
export async function runPendingRestores(ctx: EngineContext, mirror: MirrorRuntime): Promise<void> {
  await attentionSweep(mirror, async (runtime) => {
    if (!runtime.needsRestore) return
    changePartition(runtime, { needsRestore: false })
    await ctx.runner.withLock(runtime, () => ctx.runner.restore(mirror.definition, runtime))
  })
}

export async function runDueRetries(ctx: EngineContext, mirror: MirrorRuntime): Promise<void> {
  const now = ctx.now()
  await attentionSweep(mirror, async (runtime) => {
    if (runtime.retryAt === null || runtime.retryAt > now) return
    const expectedStateEpoch = runtime.retryStateEpoch ?? undefined
    changePartition(runtime, { retryAt: null })
    await ctx.runner.withLock(runtime, () =>
      ctx.runner.dispatch(mirror.definition, runtime, { type: 'retryDue', expectedStateEpoch }, `retry attempt ${runtime.value.retryAttempt}`),
    )
  })
}

export async function runConvergenceChecks(ctx: EngineContext, mirror: MirrorRuntime): Promise<void> {
  await attentionSweep(mirror, async (runtime) => {
    if (!runtime.awaitingConvergence || runtime.value.state !== 'ULE_LOG_TRUNCATION') return
    await ctx.runner.withLock(runtime, () => ctx.runner.resume(mirror.definition, runtime, [{ kind: 'awaitReplicaConvergence', then: 'replicasConverged' }]))
  })
}
