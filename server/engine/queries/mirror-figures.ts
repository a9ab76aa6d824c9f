import 'server-only'
import { FETCH_STALE_SECONDS, type FigurePartition, type MirrorFigures } from '@/lib/alerts/figures'
import { partitionAtRisk, totalAtRisk, type AtRisk } from '@/lib/mirror/at-risk'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { lagOf } from '../lag/lag-sampler'
import type { EngineMirror } from '../state/engine-mirror'

/** The engine's part of a mirror's figures; the split-brain guard, the operations and the drills add theirs (server/engine/mirror-alert-figures.ts). */
export type EngineMirrorFigures = Omit<MirrorFigures, 'splitBrainRecords' | 'failedOperation' | 'drills'> & {
  /** Every MIRRORING partition's lag is current (its source answered lately); otherwise its figures are lower bounds. */
  readonly lagKnown: boolean
  /** Records and bytes appended to the destination since the server started. */
  readonly mirroredRecords: number
  readonly mirroredBytes: number
  /** The largest known offset lag over the MIRRORING partitions (the fetcher's MaxLag); null when none is known. */
  readonly maxOffsetLag: number | null
}

/** One MIRRORING partition's lag and fetch age, for the per-partition metric families. */
export interface PartitionFigures {
  readonly topic: string
  readonly partition: number
  readonly offsetLag: number | null
  readonly timeLagMs: number | null
  readonly fetchAgeMs: number
}

const FAILED_EXAMPLES = 5

/** The RPO part of the mirror's objectives as figures; null without one. */
function rpoObjectiveFigures(objectives: { rpoRecords?: number; rpoSeconds?: number } | undefined): MirrorFigures['rpoObjective'] {
  if (objectives?.rpoRecords === undefined && objectives?.rpoSeconds === undefined) return null
  return { records: objectives.rpoRecords ?? null, seconds: objectives.rpoSeconds ?? null }
}

/**
 * The one place the metrics and the alert rules get a mirror's numbers from: one pass over its partitions,
 * reading the lag as every other view does (`lagOf`: exact, a lower bound while the source is silent, or
 * absent, never 0 for a lag not known) and the records at risk as the failover plan does (lib/mirror/at-risk.ts).
 * With `perPartition`, the MIRRORING partitions' own figures as well (the scrape's per-partition series).
 */
export function mirrorFigures(mirror: EngineMirror, now: number, perPartition?: PartitionFigures[]): EngineMirrorFigures {
  const partitionsByState: Partial<Record<MirrorPartitionState, number>> = {}
  const failed: Array<FigurePartition & { since: number }> = []
  let totalOffsetLag: number | null = null
  let maxOffsetLag: number | null = null
  let maxTimeLagMs: number | null = null
  let maxFetchAgeMs: number | null = null
  let staleFetchPartitions = 0
  let lagKnown = true
  const atRisk: Array<AtRisk | null> = []
  for (const runtime of mirror.partitions.values()) {
    const state = runtime.value.state
    partitionsByState[state] = (partitionsByState[state] ?? 0) + 1
    if (state === 'FAILED') failed.push({ topic: runtime.topic, partition: runtime.partition, error: runtime.value.error, since: runtime.value.stateSince })
    if (state === 'STOPPING' || state === 'STOPPED') continue
    const lag = lagOf(runtime, now)
    // Records at risk as the failover plan and the pages count them (lib/mirror/at-risk.ts), over every
    // partition the mirror still protects: lower bounds from the last fetch while a source is silent.
    atRisk.push(
      partitionAtRisk(
        {
          state,
          sourceHighWatermark: runtime.sourceHighWatermark,
          destinationLogEndOffset: runtime.destinationLogEndOffset,
          timeLagMs: lag.timeLagMs,
          lastFetchAt: runtime.lastFetchAt,
          lagKnown: lag.basis === 'known',
          lagAsOf: lag.asOf,
          timeLagFrom: lag.timeLagFrom,
        },
        now,
      ),
    )
    if (state !== 'MIRRORING') continue
    if (lag.basis !== 'known') lagKnown = false
    const fetchAgeMs = Math.max(0, now - (runtime.lastFetchAt ?? runtime.value.stateSince))
    maxFetchAgeMs = Math.max(maxFetchAgeMs ?? 0, fetchAgeMs)
    if (fetchAgeMs > FETCH_STALE_SECONDS * 1000) staleFetchPartitions += 1
    if (lag.offsetLag !== null) totalOffsetLag = (totalOffsetLag ?? 0) + lag.offsetLag
    if (lag.offsetLag !== null) maxOffsetLag = Math.max(maxOffsetLag ?? 0, lag.offsetLag)
    if (lag.timeLagMs !== null) maxTimeLagMs = Math.max(maxTimeLagMs ?? 0, lag.timeLagMs)
    perPartition?.push({ topic: runtime.topic, partition: runtime.partition, offsetLag: lag.offsetLag, timeLagMs: lag.timeLagMs, fetchAgeMs })
  }
  failed.sort((a, b) => a.since - b.since)
  const rpo = totalAtRisk(atRisk)
  return {
    mirror: mirror.definition.name,
    partitionsByState,
    failedExamples: failed.slice(0, FAILED_EXAMPLES).map(({ topic, partition, error }) => ({ topic, partition, error })),
    totalOffsetLag,
    maxTimeLagSeconds: maxTimeLagMs === null ? null : maxTimeLagMs / 1000,
    maxFetchAgeSeconds: maxFetchAgeMs === null ? null : maxFetchAgeMs / 1000,
    staleFetchPartitions,
    mirroredRecords: mirror.mirroredRecords,
    mirroredBytes: mirror.mirroredBytes,
    maxOffsetLag,
    lagKnown,
    rpo: { records: rpo.records, seconds: rpo.timeMs === null ? null : rpo.timeMs / 1000, known: rpo.known && rpo.records !== null },
    rpoObjective: rpoObjectiveFigures(mirror.definition.config.objectives),
  }
}
