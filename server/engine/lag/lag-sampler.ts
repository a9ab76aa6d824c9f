import 'server-only'
import { LagHistory } from '@/lib/mirror/lag'
import { mirrorLag, partitionLag, type LagRow, type PartitionLag } from '@/lib/mirror/partition-lag'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { TimeSlice } from '@/server/util/cooperative'
import { type EngineClock, type EngineLog, type FetchSettings, type LagArchiveAccess, type PartitionStore } from '../engine-context'
import { errorMessage } from '../failure-classification'
import type { EngineMirror } from '../state/engine-mirror'
import { minuteOf } from './lag-archive'
import { changePartition } from '../state/partition-changes'
import type { EngineEvent, PartitionRuntime } from '../types'

const LAG_SAMPLE_INTERVAL_MS = 1_000
const LAG_ARCHIVE_RELOAD_MS = 24 * 60 * 60 * 1000

/** How long the spans of unknown lag are kept: as far back as the chart reaches. */
const LAG_UNKNOWN_KEPT_MS = 24 * 60 * 60 * 1000

/**
 * Once a second per mirror: each partition's lag (exact, or the lower bound of one whose source is silent:
 * lib/mirror/partition-lag.ts) goes into its history and the minute's worst (for the archive), the mirror's
 * spans of unknown lag are extended or closed, and one `lag` event carries the figures and the partitions whose
 * lag changed. A lower bound's time lag grows every second; it is sent again only when its basis moves (its
 * offset lag, or where its time lag grows from), and screens keep it growing from `timeLagFrom`.
 */
export async function sampleLag(ctx: EngineClock & EngineLog & FetchSettings & LagArchiveAccess & PartitionStore, mirror: EngineMirror): Promise<void> {
  const now = ctx.now()
  if (now - mirror.lastLagSampleAt < LAG_SAMPLE_INTERVAL_MS) return
  mirror.lastLagSampleAt = now
  const minuteStart = Math.floor(now / 60_000) * 60_000
  if (mirror.lagMinute.t !== minuteStart) {
    const finished = mirror.lagMinute
    mirror.lagMinute = { t: minuteStart, worst: new TopicPartitionMap(), sampled: false, unknown: false }
    if (finished.t > 0) archiveLagMinute(ctx, mirror.definition.name, finished)
  }
  mirror.throughput.sample(now, { records: mirror.mirroredRecords, bytes: mirror.mirroredBytes, throttledBytes: ctx.throttles.throttledBytes(mirror.definition.name) })
  const partitions: LagEventPartition[] = []
  const rows: LagRow[] = []
  let sampled = 0
  let unknownSince: number | null = null
  // 100,000 partitions take tens of milliseconds: the loop gives the event loop turns as it goes.
  const slice = new TimeSlice()
  for (const runtime of mirror.partitions.values()) {
    const turn = slice.maybeYield()
    if (turn) await turn
    const lag = lagOf(runtime, now)
    if (lag.basis === 'none') {
      if (runtime.lastLagEvent !== null) changePartition(runtime, { lastLagEvent: null })
      continue
    }
    rows.push(lagRow(runtime.value.state, lag))
    if (lag.basis !== 'known') unknownSince = Math.min(unknownSince ?? now, lag.asOf ?? now)
    if (lag.offsetLag === null) continue
    const { offsetLag, timeLagMs } = lag
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
    sampled += 1
    // Only what changed since the last event: a 10,000-partition mirror that is caught up would
    // otherwise send every viewer a megabyte of zeros each second. Pages seed from GET .../partitions.
    const sent: readonly [number, number | null, number | null] = lag.basis === 'known' ? [offsetLag, timeLagMs, null] : [offsetLag, null, lag.timeLagFrom]
    const previous = runtime.lastLagEvent
    if (previous && previous[0] === sent[0] && previous[1] === sent[1] && previous[2] === sent[2]) continue
    changePartition(runtime, { lastLagEvent: sent })
    partitions.push(
      lag.basis === 'known'
        ? { topic: runtime.topic, partition: runtime.partition, offsetLag, timeLagMs }
        : { topic: runtime.topic, partition: runtime.partition, offsetLag, timeLagMs, lagKnown: false, lagAsOf: lag.asOf, timeLagFrom: lag.timeLagFrom },
    )
  }
  noteUnknownLag(mirror, now, unknownSince)
  if (rows.length === 0) return
  mirror.lagMinute.sampled = true
  if (unknownSince !== null) mirror.lagMinute.unknown = true
  const figures = mirrorLag(rows, now)
  ctx.state.emit({
    type: 'lag',
    mirror: mirror.definition.name,
    at: now,
    sampledPartitions: sampled,
    maxOffsetLag: figures.maxOffsetLag ?? 0,
    totalOffsetLag: figures.totalOffsetLag ?? 0,
    maxTimeLagMs: figures.maxTimeLagMs ?? 0,
    lagKnown: figures.known,
    lagAsOf: figures.asOf,
    partitions,
  })
}

type LagEventPartition = Extract<EngineEvent, { type: 'lag' }>['partitions'][number]

function lagRow(state: LagRow['state'], lag: PartitionLag): LagRow {
  return { state, offsetLag: lag.offsetLag, timeLagMs: lag.timeLagMs, lagKnown: lag.basis === 'known', lagAsOf: lag.asOf, timeLagFrom: lag.timeLagFrom }
}

/**
 * Keeps the mirror's spans of time when some partition's lag was not known (the chart hatches them): one is
 * opened at the oldest reading still in use, and closed when every partition's lag is known again.
 */
function noteUnknownLag(mirror: EngineMirror, now: number, unknownSince: number | null): void {
  const spans = mirror.lagUnknown
  const open = spans.at(-1)
  if (unknownSince !== null) {
    if (open === undefined || open.to !== null) spans.push({ from: unknownSince, to: null })
  } else if (open !== undefined && open.to === null) {
    open.to = now
  }
  while (spans.length > 0 && spans[0]!.to !== null && spans[0]!.to < now - LAG_UNKNOWN_KEPT_MS) spans.shift()
}

function archiveLagMinute(ctx: EngineLog & LagArchiveAccess, mirror: string, minute: EngineMirror['lagMinute']): void {
  if (!ctx.lagArchive) return
  const worst = [...minute.worst.values()]
  ctx.lagArchive.append(mirror, { t: minute.t, p: worst }).catch((error: unknown) => ctx.log('lag archive append failed', { mirror, error: errorMessage(error) }))
  if (!minute.sampled) return
  let records = 0
  let oldestMs: number | null = null
  for (const [, , offsetLag, timeLagMs] of worst) {
    records += offsetLag
    if (timeLagMs !== null) oldestMs = Math.max(oldestMs ?? 0, timeLagMs)
  }
  // A minute that sampled lag and found none is a recovery point of 0 records, 0 s.
  const point = { t: minute.t, r: records, s: oldestMs ?? (worst.length === 0 ? 0 : null), k: !minute.unknown }
  ctx.lagArchive.appendRecoveryPoint(mirror, point).catch((error: unknown) => ctx.log('recovery point append failed', { mirror, error: errorMessage(error) }))
}

/** Puts the archived minutes of the last day back into each partition's history after a restart. */
export async function loadLagArchive(ctx: EngineClock & LagArchiveAccess, mirror: EngineMirror): Promise<void> {
  if (!ctx.lagArchive) return
  const now = ctx.now()
  // Not a minute from before the mirror was created: those belong to an earlier mirror of the same name.
  for (const minute of await ctx.lagArchive.load(mirror.definition.name, now, Math.max(now - LAG_ARCHIVE_RELOAD_MS, minuteOf(mirror.definition.createdAt)))) {
    for (const [topic, partition, offsetLag, timeLagMs] of minute.p) {
      let history = mirror.lagHistory.get({ topic, partition })
      if (!history) mirror.lagHistory.set({ topic, partition }, (history = new LagHistory()))
      history.record(minute.t, offsetLag, timeLagMs)
    }
  }
}

/** A partition's lag as of `now`: exact, a lower bound while its source is silent, unknown, or none (lib/mirror/partition-lag.ts). */
export function lagOf(runtime: PartitionRuntime, now: number): PartitionLag {
  return partitionLag({
    state: runtime.value.state,
    now,
    sourceHighWatermark: runtime.sourceHighWatermark,
    destinationHighWatermark: runtime.destinationHighWatermark,
    oldestUnmirroredTimestamp: runtime.oldestUnmirroredTimestamp,
    lastFetchAt: runtime.lastFetchAt,
    sourceObservedAt: runtime.sourceObservedAt,
  })
}
