import 'server-only'
import type { LagPoint } from '@/lib/mirror/lag'
import { mirrorLag, type LagRow } from '@/lib/mirror/partition-lag'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { topicPartitionName } from '@/lib/mirror/topic-partition'
import type { HostedMirror, LastMirrorPosition, TopicPartition } from '@/server/cluster/ports'
import { EngineError } from '../errors'
import { lagOf } from '../lag/lag-sampler'
import type { EngineState } from '../state/engine-state'
import type { EngineMirror } from '../state/engine-mirror'
import type { MirrorDefinition } from '../types'

/** What a mirror's state version is made of (commands/state-version.ts), without building snapshots. */
export function stateVersionInputs(mirror: EngineMirror): { definition: MirrorDefinition; partitionCount: number; stateEpochSum: number } {
  let stateEpochSum = 0
  for (const runtime of mirror.partitions.values()) stateEpochSum += runtime.value.stateEpoch
  return { definition: mirror.definition, partitionCount: mirror.partitions.size, stateEpochSum }
}

export function partitionHistory(mirror: EngineMirror, topic: string, partition: number) {
  const runtime = mirror.partitions.get({ topic, partition })
  if (!runtime) throw new EngineError('NOT_FOUND', `mirror ${mirror.definition.name} has no partition ${topic}-${partition}`)
  return [...runtime.transitions]
}

export function lagSeries(mirror: EngineMirror, query: { topic?: string; from?: number; to?: number; stepMs?: number } = {}) {
  const series: Array<{ topic: string; partition: number; points: LagPoint[] }> = []
  for (const runtime of mirror.partitions.values()) {
    if (query.topic !== undefined && runtime.topic !== query.topic) continue
    const history = mirror.lagHistory.get(runtime)
    series.push({ topic: runtime.topic, partition: runtime.partition, points: history ? history.points({ from: query.from, to: query.to, stepMs: query.stepMs }) : [] })
  }
  return series.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
}

/**
 * Per state counts and the lag figures over the partitions that have lag (lib/mirror/partition-lag.ts's
 * `mirrorLag`): exact while every source answers, lower bounds (`lagKnown` false) while one is silent, and null
 * while a partition's lag is not known at all. Counting the unknown as 0 made a mirror that had copied nothing
 * read "caught up" between PREPARING and its first fetch, long enough under load for a script waiting on
 * `maxOffsetLag: 0` to fail over with every record at risk; counting FAILED partitions as 0 made a mirror
 * whose source was unreachable read "lag 0".
 */
export function mirrorSummary(mirror: EngineMirror, now: number) {
  const partitionsByState: Partial<Record<MirrorPartitionState, number>> = {}
  const rows: LagRow[] = []
  for (const runtime of mirror.partitions.values()) {
    const state = runtime.value.state
    partitionsByState[state] = (partitionsByState[state] ?? 0) + 1
    const lag = lagOf(runtime, now)
    if (lag.basis === 'none') continue
    rows.push({ state, offsetLag: lag.offsetLag, timeLagMs: lag.timeLagMs, lagKnown: lag.basis === 'known', lagAsOf: lag.asOf, timeLagFrom: lag.timeLagFrom })
  }
  const figures = mirrorLag(rows, now)
  return {
    ...mirror.definition,
    partitionsByState,
    maxOffsetLag: figures.maxOffsetLag,
    totalOffsetLag: figures.totalOffsetLag,
    maxTimeLagMs: figures.maxTimeLagMs,
    lagKnown: figures.known,
    lagAsOf: figures.asOf,
    lagLowerBounds: figures.lowerBounds,
    mirroredRecords: mirror.mirroredRecords,
    mirroredBytes: mirror.mirroredBytes,
  }
}

/** The spans of time when some partition's lag was not known, within [from, to]. */
export function lagUnknownSpans(mirror: EngineMirror, from: number, to: number): Array<{ from: number; to: number | null }> {
  return mirror.lagUnknown.filter((span) => span.from <= to && (span.to === null || span.to >= from)).map((span) => ({ ...span }))
}

/** What a source cluster answers about the mirrors it hosts (DescribeClusterMirrors), for MirrorDirectory. */
export function hostedMirrors(state: EngineState, clusterName: string, filter: { topics?: string[] } = {}): HostedMirror[] {
  const wanted = filter.topics ? new Set(filter.topics) : null
  return [...state.all()]
    .filter((mirror) => mirror.definition.destinationCluster === clusterName && (!wanted || mirror.definition.topics.some((topic) => wanted.has(topic))))
    .map((mirror) => ({
      name: mirror.definition.name,
      sourceClusterId: mirror.definition.sourceClusterId,
      topics: [...mirror.definition.topics],
      partitionStates: Object.fromEntries(
        [...mirror.partitions.values()].filter((runtime) => !wanted || wanted.has(runtime.topic)).map((runtime) => [topicPartitionName(runtime), runtime.value.state]),
      ),
    }))
}

/** Max last mirror position per partition over mirrors hosted on `clusterName` whose source is `sourceClusterId`. */
export function lastMirrorPositions(state: EngineState, clusterName: string, sourceClusterId: string, partitions: TopicPartition[]): Map<string, LastMirrorPosition> {
  const positions = new Map<string, LastMirrorPosition>()
  for (const mirror of state.all()) {
    if (mirror.definition.destinationCluster !== clusterName || mirror.definition.sourceClusterId !== sourceClusterId) continue
    for (const tp of partitions) {
      const position = mirror.partitions.get(tp)?.value.lastMirrorPosition
      if (!position) continue
      const key = topicPartitionName(tp)
      const current = positions.get(key)
      if (!current || position.epoch > current.epoch || (position.epoch === current.epoch && position.offset > current.offset)) {
        positions.set(key, { epoch: position.epoch, offset: position.offset })
      }
    }
  }
  return positions
}
