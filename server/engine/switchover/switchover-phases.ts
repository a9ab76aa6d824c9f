import 'server-only'
import {
  drainReading,
  drainTimeoutReason,
  measureRecordsLost,
  sameLogEnds,
  STANDSTILL_MS,
  type DrainReading,
  type SourcePartitionEnds,
} from '@/lib/failover/switchover'
import type { SourceCluster, TopicDescription } from '@/server/cluster/ports'
import { withTimeout } from '@/server/util/with-timeout'
import { type ClusterAccess, type EngineClock, type EngineLog, type PartitionStore } from '../engine-context'
import { errorMessage } from '../failure-classification'
import type { PhaseHooks } from '../operations/operation-tracker'
import { syncGroupOffsets } from '../syncs/group-offset-sync'
import type { FailoverOperation } from '../types'

/**
 * A planned switchover's phases before its stops (issue #34, KIP-1279.md §9.2), run by the operation tracker
 * from the phase the operation's record holds, so a restart resumes where it was:
 *
 *   fenceSource  the source refuses client writes to the mirror's topics (its WriteFenceMethod); transactions
 *                open at the fence get `transactionGraceMs` to commit or abort, then the source's coordinator
 *                aborts them at the source, so STOPPING never aborts on the destination what the source
 *                committed;
 *   drain        every partition's destination log end equals the source's with nothing open there (read from
 *                both clusters, never the mirror's own lag figure), and, without a fence, the source's log
 *                ends stood still for STANDSTILL_MS; then one group offset sync, then `stopping`;
 *   rollingBack  the drain ran out of `drainTimeoutMs`, or the operator cancelled: the source is unfenced (retried
 *                until it answers), then `rolledBack`.
 *
 * Each look happens after an engine tick (`nextTick`), the same clock as mirroring itself, so a test with a manual
 * clock drives a switchover by ticking, and the drain sees what the tick's fetch round copied.
 */

/** A look at the clusters that does not answer in this time counts as "not drained yet". */
const READ_TIMEOUT_MS = 5_000
/** The loss at STOPPED is read up to this many times, each bounded by MEASURE_TIMEOUT_MS, before it is declared unknown. */
const MEASURE_ATTEMPTS = 4
const MEASURE_TIMEOUT_MS = 15_000

export interface SwitchoverContext extends ClusterAccess, EngineClock, EngineLog, PartitionStore {
  /** Resolves after the engine's next tick; false once the engine is closing (the phases stop where they are). */
  nextTick(): Promise<boolean>
  /** True once the engine is closing: no stop is sent then (the restart resumes from the phase on disk). */
  closing(): boolean
}

type Outcome = 'stop' | 'rolledBack' | 'interrupted'

function topicsOf(operation: FailoverOperation): string[] {
  return [...new Set(operation.partitions.map((entry) => entry.topic))]
}

function sourceEnds(topics: readonly TopicDescription[]): SourcePartitionEnds[] {
  return topics.flatMap((topic) =>
    topic.partitions.map((p) => ({
      topic: topic.name,
      partition: p.partition,
      logEndOffset: p.logEndOffset,
      highWatermark: p.highWatermark,
      lastStableOffset: p.lastStableOffset,
      logStartOffset: p.logStartOffset,
    })),
  )
}

export async function runSwitchoverPhases(ctx: SwitchoverContext, operation: FailoverOperation, hooks: PhaseHooks): Promise<Outcome> {
  const switchover = operation.switchover
  if (switchover === undefined) return 'stop'
  const definition = ctx.state.require(operation.mirror).definition
  const { source, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  const topics = topicsOf(operation)
  const selection = operation.partitions.map(({ topic, partition }) => ({ topic, partition }))
  const fence = { mirror: operation.mirror, operation: operation.id }

  const rollBack = async (reason: string): Promise<Outcome> => {
    if (switchover.phase !== 'rollingBack') {
      switchover.phase = 'rollingBack'
      switchover.reason = reason
      await hooks.save()
      hooks.progress()
      ctx.log('switchover rolling back', { operation: operation.id, mirror: operation.mirror, reason })
    }
    // The source must become writable again whatever it takes: a rollback that left it fenced would be an outage.
    for (;;) {
      try {
        if (switchover.fenceMethod !== 'none') await withTimeout(unfence(source, topics, operation.mirror), READ_TIMEOUT_MS)
        break
      } catch (error) {
        ctx.log('switchover unfence failed; retried at the next tick', { operation: operation.id, error: errorMessage(error) })
        if (!(await ctx.nextTick())) return 'interrupted'
      }
    }
    switchover.phase = 'rolledBack'
    switchover.rolledBackAt = ctx.now()
    return 'rolledBack'
  }

  if (switchover.phase === 'rolledBack') return 'rolledBack'
  if (switchover.phase === 'rollingBack') return rollBack(switchover.reason ?? 'rolled back')

  // FENCE
  if (switchover.phase === 'fenceSource') {
    const deadline = operation.startedAt + switchover.drainTimeoutMs
    while (switchover.fencedAt === null) {
      const cancelled = hooks.cancelRequest()
      if (cancelled !== null) return rollBack(cancelled)
      // Writes may be refused from the moment the fence is asked for (the broker applies it before it is durable):
      // the time writes were refused is counted from here, never understated.
      const asked = ctx.now()
      try {
        if (switchover.fenceMethod !== 'none') {
          if (source.fenceWrites === undefined) throw new Error(`cluster ${definition.sourceCluster} cannot fence writes`)
          await withTimeout(source.fenceWrites(topics, fence), READ_TIMEOUT_MS)
        }
        switchover.fencedAt = asked
        await hooks.save()
        hooks.progress()
      } catch (error) {
        ctx.log('switchover fence failed; retried at the next tick', { operation: operation.id, error: errorMessage(error) })
        if (ctx.now() >= deadline) return rollBack(`the source could not be fenced: ${errorMessage(error)}`)
        if (!(await ctx.nextTick())) return 'interrupted'
      }
    }
    // Transactions open at the fence may still commit or abort (their markers are not client writes).
    for (;;) {
      const cancelled = hooks.cancelRequest()
      if (cancelled !== null) return rollBack(cancelled)
      const ends = await readSource(source, topics)
      const open = ends === null ? null : ends.filter((p) => p.lastStableOffset < p.highWatermark).length
      if (open !== 0) ctx.log('switchover: waiting for transactions open on the source', { operation: operation.id, open, ends })
      if (open === 0) break
      if (open !== null && ctx.now() >= switchover.fencedAt + switchover.transactionGraceMs) {
        if (source.abortOpenTransactions !== undefined) {
          switchover.transactionsAbortedAtSource += await source.abortOpenTransactions(topics).catch((error: unknown) => {
            ctx.log('switchover: aborting open source transactions failed', { operation: operation.id, error: errorMessage(error) })
            return 0
          })
        }
        // A source that cannot abort them leaves them to the drain, which then waits (and rolls back in time).
        break
      }
      if (!(await ctx.nextTick())) return 'interrupted'
    }
    switchover.phase = 'drain'
    switchover.drainStartedAt = ctx.now()
    await hooks.save()
    hooks.progress()
  }

  // DRAIN
  if (switchover.phase === 'drain') {
    const deadline = (switchover.drainStartedAt ?? ctx.now()) + switchover.drainTimeoutMs
    let last: DrainReading | null = null
    let previousEnds: SourcePartitionEnds[] | null = null
    let standingSince: number | null = null
    for (;;) {
      const cancelled = hooks.cancelRequest()
      if (cancelled !== null) return rollBack(cancelled)
      const ends = await readSource(source, topics)
      const destination = await withTimeout(host.describeTopics(topics), READ_TIMEOUT_MS).catch(() => null)
      if (ends !== null && destination !== null) {
        last = drainReading(
          selection,
          ends,
          destination.flatMap((topic) => topic.partitions.map((p) => ({ topic: topic.name, partition: p.partition, logEndOffset: p.logEndOffset }))),
        )
        switchover.drain = { partitions: last.partitions, partitionsBehind: last.partitionsBehind, recordsBehind: last.recordsBehind, openTransactions: last.openTransactions, at: ctx.now() }
        hooks.progress()
        if (previousEnds === null || !sameLogEnds(previousEnds, ends)) standingSince = ctx.now()
        previousEnds = ends
        const stoodStill = switchover.fenceMethod !== 'none' || (standingSince !== null && ctx.now() - standingSince >= STANDSTILL_MS)
        if (last.drained && stoodStill) break
      }
      if (ctx.now() >= deadline) return rollBack(drainTimeoutReason(switchover.drainTimeoutMs, last))
      if (!(await ctx.nextTick())) return 'interrupted'
    }
    // Consumers on the source committed up to where they stopped: one sync carries that to the destination
    // before STOPPING ends the mirroring of offsets.
    const mirror = ctx.state.require(operation.mirror)
    await syncGroupOffsets(mirror, source, host).catch((error: unknown) => ctx.log('switchover: group offset sync failed', { operation: operation.id, error: errorMessage(error) }))
    const groups = await withTimeout(source.listGroupOffsets(), READ_TIMEOUT_MS).catch(() => [])
    const wanted = new Set(topics)
    switchover.groupsActiveOnSource = groups.filter((group) => group.hasActiveMembers && group.offsets.some((o) => wanted.has(o.topic))).map((group) => group.groupId)
    if (ctx.closing()) return 'interrupted'
    switchover.drainedAt = ctx.now()
    // The tracker writes `stopping` (with the partitions' epochs) before it sends the stops.
  }
  return 'stop'
}

async function unfence(source: SourceCluster, topics: readonly string[], mirror: string): Promise<void> {
  if (source.unfenceWrites === undefined) return
  await source.unfenceWrites(topics, mirror)
}

async function readSource(source: SourceCluster, topics: readonly string[], timeoutMs = READ_TIMEOUT_MS): Promise<SourcePartitionEnds[] | null> {
  try {
    return sourceEnds(await withTimeout(source.describeTopics([...topics]), timeoutMs))
  } catch {
    return null
  }
}

/**
 * What a switchover lost, measured once every partition settled: the fenced source's log ends against the
 * offsets STOPPING recorded as mirrored (each partition's last mirror position).
 */
export async function measureSwitchoverLoss(ctx: ClusterAccess & PartitionStore, operation: FailoverOperation): Promise<void> {
  const switchover = operation.switchover
  if (switchover === undefined) return
  const definition = ctx.state.require(operation.mirror).definition
  const { source, host } = ctx.clusters.cluster(definition.sourceCluster, definition.destinationCluster)
  // The measurement is the switchover's proof: a slow answer (a large source under load) is asked again
  // before the loss is declared unknown.
  let ends: SourcePartitionEnds[] | null = null
  for (let attempt = 0; attempt < MEASURE_ATTEMPTS && ends === null; attempt++) ends = await readSource(source, topicsOf(operation), MEASURE_TIMEOUT_MS)

  const partitions = await Promise.all(operation.partitions.map(async ({ topic, partition }) => {
    const value = ctx.state.partition(operation.mirror, topic, partition)?.value
    // Records mirrored below that position that the destination lost meanwhile (kafka-mirror-host.ts recordsLostSince).
    const lostBelow = host.recordsLostSince ? await host.recordsLostSince({ topic, partition }, operation.startedAt).catch(() => null) : 0
    const position = value?.lastMirrorPosition ?? null
    // A STOPPED partition without a last mirror position found its destination empty at STOPPING (lib/mirror/stopping.ts
    // captures { epoch: -1, offset: -1 }, which the state keeps as none).
    const empty = value?.state === 'STOPPED' && (position === null || (position.epoch === -1 && position.offset === -1))
    const mirroredOffset = empty ? ('empty' as const) : position !== null && position.offset >= 0 ? position.offset : null
    return { topic, partition, mirroredOffset, lostBelow }
  }))
  switchover.recordsLost = measureRecordsLost(partitions, ends ?? [])
}
