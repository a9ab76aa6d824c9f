import 'server-only'
import { splitBatches } from '@/lib/log/record-batch'
import { needsProactiveEpochBump } from '@/lib/mirror/guards'
import type { FetchPartitionResult, MirrorHost, TopicPartition } from '@/server/cluster/ports'
import { type ClusterAccess, type EngineClock, type EngineLog, type PartitionDispatch } from '../engine-context'
import { classifyFetchError } from '../failure-classification'
import type { EngineMirror } from '../state/engine-mirror'
import type { PartitionRuntime } from '../types'
import { changePartition } from '../state/partition-changes'
import { retrySiblingsSoon } from '../runner/early-retries'
import { delayUnknownTopic, isResponseCurrent, recordSourcePosition, type FetchEntry } from './fetch-state'

/**
 * One partition's answer in a fetch round, with the partition's lock held: an error, a divergence, a batch
 * above the destination epoch, or records to append (then the log start synced and the source position
 * recorded).
 */
export async function applyFetchResult(ctx: ClusterAccess & EngineClock & EngineLog & PartitionDispatch, mirror: EngineMirror, entry: FetchEntry, result: FetchPartitionResult): Promise<void> {
  const { definition } = mirror
  const { runtime, request } = entry
  if (!isResponseCurrent(entry)) return
  const host = ctx.clusters.cluster(definition.destinationCluster).host
  const tp = { topic: runtime.topic, partition: runtime.partition }
  const now = ctx.now()
  if (!result.ok) {
    const verdict = classifyFetchError(result, request.fetchOffset)
    if (verdict.kind === 'restartAtLogStart') {
      await host.truncateFullyAndStartAt(tp, verdict.logStartOffset)
      ctx.log('fetch offset below source log start; restarted', { mirror: definition.name, ...tp, logStartOffset: verdict.logStartOffset })
      return
    }
    if (verdict.kind === 'delay') {
      delayUnknownTopic(mirror, runtime, now)
      ctx.log('source does not know the partition; fetch delayed until the metadata decides', { mirror: definition.name, ...tp, error: verdict.error })
      return
    }
    await ctx.runner.dispatch(definition, runtime, { type: 'failed', code: verdict.code, error: verdict.error, retryable: verdict.retryable }, 'fetch failed')
    return
  }
  if (request.fetchOffset !== runtime.destinationLogEndOffset) return
  if (result.divergingEpoch) {
    const local = await host.endOffsetForEpoch(tp, result.divergingEpoch.leaderEpoch)
    const [description] = await host.describeTopics([runtime.topic])
    if (description) ctx.clusters.rememberDestinationTopics(definition.destinationCluster, [description])
    const partition = await host.describePartition(tp)
    await ctx.runner.dispatch(
      definition,
      runtime,
      {
        type: 'divergenceDetected',
        divergingEpoch: { epoch: result.divergingEpoch.leaderEpoch, offset: result.divergingEpoch.endOffset },
        localEndOffsetForEpoch: { epoch: local.leaderEpoch, offset: local.endOffset },
        logStartOffset: partition.logStartOffset,
        logEndOffset: partition.logEndOffset,
      },
      `source history diverges at epoch ${result.divergingEpoch.leaderEpoch} offset ${result.divergingEpoch.endOffset}`,
    )
    return
  }
  if (result.records.byteLength > 0) {
    const batches = splitBatches(result.records)
    const highestBatchEpoch = batches.reduce((max, { header }) => Math.max(max, header.partitionLeaderEpoch), -1)
    const leaderEpoch = runtime.destinationLeaderEpoch
    if (highestBatchEpoch > leaderEpoch) {
      // Never append a batch above the destination epoch (DLE ≥ SLE); fence, bump, refetch.
      await ctx.runner.dispatch(
        definition,
        runtime,
        { type: 'batchEpochExceeded', batchEpoch: highestBatchEpoch, leaderEpoch, sourceLeaderEpoch: result.leaderEpoch },
        `batch epoch ${highestBatchEpoch} above destination leader epoch ${leaderEpoch}`,
      )
      return
    }
    const observedEpoch = Math.max(highestBatchEpoch, result.leaderEpoch)
    if (needsProactiveEpochBump(observedEpoch, leaderEpoch)) {
      await ctx.runner.dispatch(definition, runtime, { type: 'epochBumpThresholdReached', observedEpoch, leaderEpoch }, `epoch ${observedEpoch} near destination epoch ${leaderEpoch}`)
      if (runtime.value.state !== 'MIRRORING' || !runtime.fetching) return
    }
    const firstBaseOffset = batches[0]!.header.baseOffset
    if (firstBaseOffset < request.fetchOffset) {
      // The source's log start is inside this batch, and so is our (empty) log's end. Like Kafka's
      // follower on UnexpectedAppendOffsetException, restart the empty log at the batch's base offset;
      // the log-start sync below moves our log start back up to the source's.
      const current = await host.describePartition(tp)
      if (current.logStartOffset !== current.logEndOffset) return
      await host.truncateFullyAndStartAt(tp, firstBaseOffset)
      destinationLogStartSeen.delete(runtime)
    }
    const appended = await host.appendMirroredBatches(tp, result.records)
    changePartition(runtime, { destinationLogEndOffset: appended.logEndOffset, destinationHighWatermark: appended.highWatermark })
    mirror.mirroredBytes += result.records.byteLength
    mirror.mirroredRecords += batches.reduce((sum, { header }) => sum + header.lastOffset - header.baseOffset + 1, 0)
  }
  await followSourceLogStart(host, tp, runtime, result.logStartOffset)
  recordSourcePosition(runtime, result, now)
  if (runtime.value.error !== null || runtime.value.retryAttempt !== 0) {
    const failedOn = runtime.failureCode
    await ctx.runner.dispatch(definition, runtime, { type: 'fetchSucceeded' }, 'fetch succeeded')
    retrySiblingsSoon(ctx, mirror, runtime, failedOn)
  }
}

/**
 * The destination's log start as this instance last read or set it, and its log end then: its log start only grows
 * while its log end has not gone back (a truncation), so a source log start at or below it needs no look.
 */
const destinationLogStartSeen = new WeakMap<PartitionRuntime, { logStartOffset: number; logEndOffset: number }>()

/**
 * The destination's log start follows the source's (records the source's retention removed go at the destination
 * too). Read from the destination only when the source's log start passed what was last seen there: a Metadata and a
 * ListOffsets request after every fetch with records cost a mirroring instance a tenth of its CPU.
 */
async function followSourceLogStart(host: MirrorHost, tp: TopicPartition, runtime: PartitionRuntime, sourceLogStart: number): Promise<void> {
  const seen = destinationLogStartSeen.get(runtime)
  if (seen !== undefined && runtime.destinationLogEndOffset >= seen.logEndOffset && sourceLogStart <= seen.logStartOffset) return
  const destinationPartition = await host.describePartition(tp)
  let logStartOffset = destinationPartition.logStartOffset
  if (sourceLogStart > logStartOffset) {
    logStartOffset = Math.min(sourceLogStart, destinationPartition.logEndOffset)
    await host.deleteRecordsBefore(tp, logStartOffset, { bypassReadOnly: true })
  }
  destinationLogStartSeen.set(runtime, { logStartOffset, logEndOffset: destinationPartition.logEndOffset })
}
