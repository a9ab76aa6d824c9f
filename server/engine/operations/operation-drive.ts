import 'server-only'
import { forEachConcurrently } from '@/server/util/cooperative'
import { type EngineLog, type PartitionDispatch, type PartitionStore } from '../engine-context'
import { errorMessage } from '../failure-classification'
import type { PartitionRuntime } from '../types'
import { OPERATION_KIND_RULES, type OperationKind } from './operation-kinds'

/** Partitions an operation sends its event to at once (a failover's stops). */
const OPERATION_CONCURRENCY = 256

/**
 * Sends an operation's event to each of its partitions, a bounded number at once, each under its lock; one
 * partition's failure never stops the rest. The workers share a time slice (server/util/cooperative.ts): when
 * many of them resume after one fsync of `__mirror_state`, they give the event loop back between partitions
 * instead of running on for a stall.
 */
export async function driveOperation(ctx: EngineLog & PartitionDispatch & PartitionStore, kind: OperationKind, mirrorName: string, runtimes: PartitionRuntime[], onEach: (runtime: PartitionRuntime) => void): Promise<void> {
  const rules = OPERATION_KIND_RULES[kind]
  const mirror = ctx.state.get(mirrorName)
  if (!mirror) return
  await forEachConcurrently(runtimes, OPERATION_CONCURRENCY, async (runtime) => {
    // The mirror went to another instance meanwhile (issue #40): its new owner resumes the operation.
    if (ctx.state.get(mirrorName) !== mirror) return
    await ctx.runner
      .withLock(runtime, () => ctx.runner.dispatch(mirror.definition, runtime, rules.event, rules.reason))
      .catch((error: unknown) => ctx.log(`${kind} of a partition failed`, { topic: runtime.topic, partition: runtime.partition, error: errorMessage(error) }))
    onEach(runtime)
  })
}
