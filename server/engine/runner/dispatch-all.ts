import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import { forEachConcurrently } from '@/server/util/cooperative'
import { PARTITION_CONCURRENCY, type PartitionDispatch } from '../engine-context'
import type { EngineMirror } from '../state/engine-mirror'
import type { PartitionRuntime } from '../types'

/** One event to many partitions of a mirror, each under its lock, a bounded number at once. */
export async function dispatchAll(ctx: PartitionDispatch, mirror: EngineMirror, runtimes: PartitionRuntime[], event: MirrorEvent): Promise<void> {
  await forEachConcurrently(runtimes, PARTITION_CONCURRENCY, (runtime) => ctx.runner.withLock(runtime, () => ctx.runner.dispatch(mirror.definition, runtime, event)))
}
