import 'server-only'
import { LagHistory, offsetLag as computeOffsetLag, timeLagMs as computeTimeLag } from '@/lib/mirror/lag'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { TimeSlice } from '@/server/util/cooperative'
import type { EngineContext } from '../engine-context'
import { errorMessage } from '../failure-classification'
import type { EngineMirror } from '../state/engine-mirror'
import { changePartition } from '../state/partition-changes'
import type { PartitionRuntime } from '../types'

const LAG_SAMPLE_INTERVAL_MS = 1_000
const LAG_ARCHIVE_RELOAD_MS = 24 * 60 * 60 * 1000

/**
 * Once a second per mirror: each MIRRORING partition's lag goes into its history and the minute's worst
 * (for the archive), and one `lag` event carries the figures and the partitions whose lag changed.
 */
export async function sampleLag(ctx: EngineContext, mirror: EngineMirror): Promise<void> {
  const now = ctx.now()
  if (now - mirror.lastLagSampleAt < LAG_SAMPLE_INTERVAL_MS) return
  mirror.lastLagSampleAt = now
  const minuteStart = Math.floor(now / 60_000) * 60_000
  if (mirror.lagMinute.t !== minuteStart) {
    const finished = mirror.lagMinute
    mirror.lagMinute = { t: minuteStart, worst: new TopicPartitionMap() }
    if (finished.t > 0) archiveLagMinute(ctx, mirror.definition.name, finished)
  }
  const partitions: Array<{ topic: string; partition: number; offsetLag: number | null; timeLagMs: number | null }> = []
  let sampled = 0
  let maxOffsetLag = 0
  let totalOffsetLag = 0
  let maxTimeLagMs = 0
  // 100,000 partitions take tens of milliseconds: the loop gives the event loop turns as it goes.
  const slice = new TimeSlice()
  for (const runtime of mirror.partitions.values()) {
    const turn = slice.maybeYield()
    if (turn) await turn
    if (runtime.value.state !== 'MIRRORING' || runtime.sourceHighWatermark === null) {
      if (runtime.lastLagEvent !== null) changePartition(runtime, { lastLagEvent: null })
      continue
    }
    const { offsetLag, timeLagMs } = lagOf(runtime, now)
    if (offsetLag === null) continue
    let history = mirror.lagHistory.get(runtime)
    if (!history) mirror.lagHistory.set(runtime, (history = new LagHistory()))
    history.record(now, offsetLag, timeLagMs)
    if (offsetLag > 0 || (timeLagMs ?? 0) > 0) {
      const worst = mirror.lagMinute.worst.get(runtime)
      mirror.lagMinute.worst.set(runtime, [
        runtime.topic,
        runtime.partition,
        Math.max(worst?.[2] ?? 0, offsetLag),
        timeLagMs === null ? (worst?.[3] ?? null) : Math.max(worst?.[3] ?? 0, timeLagMs),
      ])
    }
    maxOffsetLag = Math.max(maxOffsetLag, offsetLag)
    totalOffsetLag += offsetLag
    maxTimeLagMs = Math.max(maxTimeLagMs, timeLagMs ?? 0)
    sampled += 1
    // Only what changed since the last event: a 10,000-partition mirror that is caught up would
    // otherwise send every viewer a megabyte of zeros each second. Pages seed from GET .../partitions.
    const previous = runtime.lastLagEvent
    if (previous && previous[0] === offsetLag && previous[1] === timeLagMs) continue
    changePartition(runtime, { lastLagEvent: [offsetLag, timeLagMs] })
    partitions.push({ topic: runtime.topic, partition: runtime.partition, offsetLag, timeLagMs })
  }
  if (sampled > 0) ctx.state.emit({ type: 'lag', mirror: mirror.definition.name, at: now, sampledPartitions: sampled, maxOffsetLag, totalOffsetLag, maxTimeLagMs, partitions })
}

function archiveLagMinute(ctx: EngineContext, mirror: string, minute: EngineMirror['lagMinute']): void {
  if (!ctx.lagArchive) return
  ctx.lagArchive.append(mirror, { t: minute.t, p: [...minute.worst.values()] }).catch((error: unknown) => ctx.log('lag archive append failed', { mirror, error: errorMessage(error) }))
}

/** Puts the archived minutes of the last day back into each partition's history after a restart. */
export async function loadLagArchive(ctx: EngineContext, mirror: EngineMirror): Promise<void> {
  if (!ctx.lagArchive) return
  const now = ctx.now()
  for (const minute of await ctx.lagArchive.load(mirror.definition.name, now, now - LAG_ARCHIVE_RELOAD_MS)) {
    for (const [topic, partition, offsetLag, timeLagMs] of minute.p) {
      let history = mirror.lagHistory.get({ topic, partition })
      if (!history) mirror.lagHistory.set({ topic, partition }, (history = new LagHistory()))
      history.record(minute.t, offsetLag, timeLagMs)
    }
  }
}

/** A partition's offset lag and time lag as of `now` (null while the source high watermark is unknown). */
export function lagOf(runtime: PartitionRuntime, now: number): { offsetLag: number | null; timeLagMs: number | null } {
  if (runtime.sourceHighWatermark === null) return { offsetLag: null, timeLagMs: null }
  return {
    offsetLag: computeOffsetLag(runtime.sourceHighWatermark, runtime.destinationHighWatermark),
    timeLagMs: computeTimeLag({
      now,
      sourceHighWatermark: runtime.sourceHighWatermark,
      destinationHighWatermark: runtime.destinationHighWatermark,
      oldestUnmirroredTimestamp: runtime.oldestUnmirroredTimestamp,
    }),
  }
}
