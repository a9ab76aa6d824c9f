import 'server-only'
import { TimeSlice } from '@/server/util/cooperative'
import type { EngineClock, PartitionDispatch } from '../engine-context'
import type { EngineMirror } from '../state/engine-mirror'
import { changePartition } from '../state/partition-changes'
import type { PartitionRuntime } from '../types'
import type { WakeUpReason } from './partition-timer'

/**
 * The tick's first phase: the partitions whose wake-up is due (runner/partition-timer.ts), not a sweep over
 * every partition, nor over every partition waiting. Restores first, then retries, then convergence checks,
 * as the three phases ran before; each wake-up checks that its reason still holds.
 */
export async function runDueWakeUps(ctx: EngineClock & PartitionDispatch, mirror: EngineMirror): Promise<void> {
  const now = ctx.now()
  const due = mirror.timer.takeDue(now)
  if (due.length === 0) return
  const slice = new TimeSlice()
  for (const reason of ['persist', 'restore', 'retry', 'convergence'] as const satisfies readonly WakeUpReason[]) {
    for (const wakeUp of due) {
      if (wakeUp.reason !== reason) continue
      await WAKE_UPS[reason](ctx, mirror, wakeUp.runtime, now)
      const turn = slice.maybeYield()
      if (turn) await turn
    }
  }
}

const WAKE_UPS: Record<WakeUpReason, (ctx: PartitionDispatch, mirror: EngineMirror, runtime: PartitionRuntime, now: number) => Promise<void>> = {
  /** A FAILED shown before `__mirror_state` took it: written now if the store answers (saved meanwhile: nothing to do). */
  async persist(ctx, mirror, runtime) {
    await ctx.runner.withLock(runtime, () => ctx.runner.persistUnsavedState(mirror.definition, runtime))
  },
  /** The state write failed: the effects of the last durable state run again. */
  async restore(ctx, mirror, runtime) {
    if (!runtime.needsRestore) return
    changePartition(runtime, { needsRestore: false })
    await ctx.runner.withLock(runtime, () => ctx.runner.restore(mirror.definition, runtime))
  },
  async retry(ctx, mirror, runtime, now) {
    // Rescheduled later (its own wake-up comes then) or cancelled meanwhile.
    if (runtime.retryAt === null || runtime.retryAt > now) return
    const expectedStateEpoch = runtime.retryStateEpoch ?? undefined
    changePartition(runtime, { retryAt: null })
    await ctx.runner.withLock(runtime, () =>
      ctx.runner.dispatch(mirror.definition, runtime, { type: 'retryDue', expectedStateEpoch }, `retry attempt ${runtime.value.retryAttempt}`),
    )
  },
  /** A replica did not hold the truncated log yet (down, behind, or not truncated): asked again until every replica does. */
  async convergence(ctx, mirror, runtime) {
    if (!runtime.awaitingConvergence || runtime.value.state !== 'ULE_LOG_TRUNCATION') return
    await ctx.runner.withLock(runtime, () => ctx.runner.resume(mirror.definition, runtime, [{ kind: 'awaitReplicaConvergence', then: 'replicasConverged' }]))
  },
}
