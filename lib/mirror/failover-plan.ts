/**
 * The failover plan (API.md): what a stop of the selected partitions will do and lose, built before
 * anything is changed, so the operator sees it first and the orchestrator commits exactly it
 * (prepare → commit, STYLE.md B22). Pure: the engine gathers the inputs.
 *
 * Definitions used below, per partition:
 * - mirroredOffset: the destination log end offset — everything below it was mirrored. Once STOPPING has
 *   captured the last mirror position its offset is used instead, because markers appended since then
 *   are not mirrored data.
 * - recordsAtRisk: `max(0, source logEndOffset − mirroredOffset)`, the offsets the source holds that
 *   destination readers will never see; `null` when the source cannot be reached.
 * - timeAtRiskMs: age of the oldest of those records (0 when none are at risk); `null` when the source
 *   cannot be reached or the record's timestamp is unknown.
 * - atRisk: the same two figures from lib/mirror/at-risk.ts, the one answer the mirror and partition pages
 *   give too: exact from the source read now, or, with the source unreachable, lower bounds from what the
 *   mirror's last successful fetch saw (`lastFetch`), with the time of that reading.
 * - transactionsToAbort: transactions open in the destination's producer state — their markers were not
 *   mirrored, so STOPPING aborts them, even if the source committed them — in the order the ABORT markers
 *   will be appended (first offset, then producer id).
 * - consumerGroupsBehind: groups that will resume on the destination *below* the offset they have
 *   committed on the source. Their resume position (`committedOffset`) is their committed offset on the
 *   destination (synced from the source every refresh interval), capped at mirroredOffset as the offset
 *   sync caps it; `null` when they have none there (they start by their auto.offset.reset policy, which
 *   also counts as behind). Such a group re-reads `offsetsToReprocess` offsets that it already consumed on
 *   the source, and `offsetsNotMirrored` offsets it consumed on the source are not on the destination at
 *   all (new writes will take those offsets). Groups whose source committed offset is unknown are not
 *   listed; a group at or ahead of its source position is not behind.
 */
import { sourceReadingAtRisk, type AtRisk, type AtRiskInput } from './at-risk'
import type { MirrorPartitionState } from './states'
import { byFirstOffset, isDefinedEpochOffset, type EpochOffset, type OpenTransaction } from './types'

// TYPES

export interface ConsumerGroupPosition {
  readonly groupId: string
  /** Committed offset on the destination (synced from the source); `null` when it has none there. */
  readonly destinationCommittedOffset: number | null
  /** Committed offset on the source; `null` when unknown (source unreachable and nothing cached). */
  readonly sourceCommittedOffset: number | null
}

export interface FailoverSourcePartition {
  readonly logEndOffset: number
  /** Timestamp of the source record at mirroredOffset (the oldest one not mirrored); `null` if unknown. */
  readonly oldestUnmirroredTimestamp: number | null
}

export interface FailoverPartitionInput {
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  readonly destinationLogEndOffset: number
  /** The partition's recorded last mirror position, if STOPPING already captured it. */
  readonly lastMirrorPosition?: EpochOffset | null
  /** The source side of the partition; `null` when the source cannot be reached. */
  readonly source: FailoverSourcePartition | null
  /** What the mirror's last successful fetch saw of the source: the lower bounds when it cannot be reached now. */
  readonly lastFetch?: AtRiskInput['lastFetch']
  readonly openTransactions: readonly OpenTransaction[]
  readonly consumerGroups: readonly ConsumerGroupPosition[]
}

export interface FailoverPreflightInput {
  readonly mirror: string
  readonly now: number
  /** The source answers across the mirror's link (the destination's way to it). */
  readonly sourceReachable: boolean
  /**
   * The link does not answer but Mirrorboard read the source itself (out of band): the partitions' `source`
   * readings are that, and the records at risk exact from it.
   */
  readonly sourceReadDirectly?: boolean
  readonly partitions: readonly FailoverPartitionInput[]
  /** The lag gate warns when a partition has more records at risk than this (default 0: any loss). */
  readonly recordsAtRiskThreshold?: number
}

export type GateName = 'partitions-selected' | 'partitions-stoppable' | 'source-reachable' | 'lag-threshold' | 'partitions-failed' | 'rpo-objective' | 'write-fence'

export interface FailoverGate {
  readonly name: GateName
  /** True when the check passed. A failed `warning` gate lets the failover proceed; `blocking` does not. */
  readonly ok: boolean
  readonly severity: 'blocking' | 'warning'
  readonly detail: string
}

/** What the failover does with a partition. */
export type FailoverPartitionAction =
  /** It will go through STOPPING (from any state STOPPING may be entered from, FAILED included). */
  | 'stop'
  /** A stop is already running; the failover lets it finish. */
  | 'stopInProgress'
  /** Already STOPPED: nothing to do. */
  | 'alreadyStopped'
  /** UNKNOWN: no state to stop from; the failover is blocked until it has one or is deselected. */
  | 'cannotStop'

export interface ConsumerGroupBehind {
  readonly groupId: string
  /** Where the group resumes on the destination; `null`: no committed offset there. */
  readonly committedOffset: number | null
  readonly sourceCommittedOffset: number
  /** Mirrored offsets between the resume position and the source commit: read a second time. */
  readonly offsetsToReprocess: number | null
  /** Offsets the group consumed on the source that were never mirrored. */
  readonly offsetsNotMirrored: number
}

export interface FailoverPreflightPartition {
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  readonly action: FailoverPartitionAction
  readonly mirroredOffset: number
  readonly sourceLogEndOffset: number | null
  readonly recordsAtRisk: number | null
  readonly timeAtRiskMs: number | null
  /** Records and time at risk, exact or lower bounds (lib/mirror/at-risk.ts). */
  readonly atRisk: AtRisk
  readonly transactionsToAbort: readonly OpenTransaction[]
  readonly consumerGroupsBehind: readonly ConsumerGroupBehind[]
}

export interface FailoverPreflight {
  readonly mirror: string
  /** Held to the mirror's RPO objective (lib/failover/rpo.ts withRpoGate); absent when it sets none. */
  readonly rpo?: { readonly objective: { readonly rpoRecords?: number; readonly rpoSeconds?: number }; readonly records: number | null; readonly seconds: number | null; readonly known: boolean; readonly status: 'met' | 'breached' | 'unknown' }
  readonly gates: readonly FailoverGate[]
  /** No blocking gate failed. */
  readonly canProceed: boolean
  readonly partitions: readonly FailoverPreflightPartition[]
}

// PLAN

export function buildFailoverPlan(input: FailoverPreflightInput): FailoverPreflight {
  const threshold = input.recordsAtRiskThreshold ?? 0
  const partitions = [...input.partitions].sort(byTopicPartition).map((partition) => planPartition(partition, input))
  const gates = [
    selectionGate(partitions),
    stoppableGate(partitions),
    sourceGate(input.sourceReachable, input.sourceReadDirectly ?? false),
    lagGate(partitions, threshold),
    failedGate(partitions),
  ]
  return {
    mirror: input.mirror,
    gates,
    canProceed: gates.every((gate) => gate.ok || gate.severity === 'warning'),
    partitions,
  }
}

/** Where a group resumes after failover, and whether that is behind its source position. */
export function consumerGroupBehind(group: ConsumerGroupPosition, mirroredOffset: number): ConsumerGroupBehind | null {
  if (group.sourceCommittedOffset === null) return null
  const committedOffset = group.destinationCommittedOffset === null ? null : Math.min(group.destinationCommittedOffset, mirroredOffset)
  if (committedOffset !== null && committedOffset >= group.sourceCommittedOffset) return null
  const reprocessUpTo = Math.min(group.sourceCommittedOffset, mirroredOffset)
  return {
    groupId: group.groupId,
    committedOffset,
    sourceCommittedOffset: group.sourceCommittedOffset,
    offsetsToReprocess: committedOffset === null ? null : Math.max(0, reprocessUpTo - committedOffset),
    offsetsNotMirrored: Math.max(0, group.sourceCommittedOffset - mirroredOffset),
  }
}

function planPartition(partition: FailoverPartitionInput, input: FailoverPreflightInput): FailoverPreflightPartition {
  const action = actionFor(partition.state)
  const mirroredOffset =
    (partition.state === 'STOPPING' || partition.state === 'STOPPED') && isDefinedEpochOffset(partition.lastMirrorPosition)
      ? partition.lastMirrorPosition.offset
      : partition.destinationLogEndOffset
  const source = input.sourceReachable || input.sourceReadDirectly === true ? partition.source : null
  const atRisk = sourceReadingAtRisk({ now: input.now, mirroredOffset, source, lastFetch: partition.lastFetch ?? null })
  const recordsAtRisk = atRisk.known ? atRisk.records : null
  const timeAtRiskMs = atRisk.known ? atRisk.timeMs : null
  return {
    topic: partition.topic,
    partition: partition.partition,
    state: partition.state,
    action,
    mirroredOffset,
    sourceLogEndOffset: source === null ? null : source.logEndOffset,
    recordsAtRisk,
    timeAtRiskMs,
    atRisk,
    transactionsToAbort: action === 'stop' || action === 'stopInProgress' ? [...partition.openTransactions].sort(byFirstOffset) : [],
    consumerGroupsBehind: partition.consumerGroups
      .map((group) => consumerGroupBehind(group, mirroredOffset))
      .filter((group): group is ConsumerGroupBehind => group !== null)
      .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0)),
  }
}

function actionFor(state: MirrorPartitionState): FailoverPartitionAction {
  switch (state) {
    case 'UNKNOWN':
      return 'cannotStop'
    case 'STOPPING':
      return 'stopInProgress'
    case 'STOPPED':
      return 'alreadyStopped'
    default:
      return 'stop'
  }
}

// GATES

function selectionGate(partitions: readonly FailoverPreflightPartition[]): FailoverGate {
  const toStop = partitions.filter((partition) => partition.action === 'stop' || partition.action === 'stopInProgress')
  return {
    name: 'partitions-selected',
    ok: toStop.length > 0,
    severity: 'blocking',
    detail:
      toStop.length > 0
        ? `${toStop.length} of ${partitions.length} partition(s) will be stopped`
        : partitions.length === 0
          ? 'no partition selected'
          : 'every selected partition is already stopped or cannot be stopped',
  }
}

function stoppableGate(partitions: readonly FailoverPreflightPartition[]): FailoverGate {
  const unknown = partitions.filter((partition) => partition.action === 'cannotStop')
  return {
    name: 'partitions-stoppable',
    ok: unknown.length === 0,
    severity: 'blocking',
    detail:
      unknown.length === 0
        ? 'every selected partition has a state a stop can start from'
        : `no mirror state yet for ${list(unknown)}; wait for it or leave these topics out`,
  }
}

function sourceGate(sourceReachable: boolean, sourceReadDirectly: boolean): FailoverGate {
  let detail = 'the source cluster answers; records at risk are exact'
  if (!sourceReachable)
    detail = sourceReadDirectly
      ? 'the mirror cannot reach the source cluster (its link does not answer), but Mirrorboard reads it directly: records at risk are exact as read now, and the failover keeps what was mirrored'
      : 'the source cluster cannot be reached; records at risk are unknown and the failover keeps what was mirrored (the figures shown are lower bounds from the last successful fetch)'
  return { name: 'source-reachable', ok: sourceReachable, severity: 'warning', detail }
}

function lagGate(partitions: readonly FailoverPreflightPartition[], threshold: number): FailoverGate {
  const considered = partitions.filter((partition) => partition.action === 'stop' || partition.action === 'stopInProgress')
  // A lower bound over the threshold is over it for certain; one within it says nothing.
  const over = considered.filter((partition) => partition.atRisk.records !== null && partition.atRisk.records > threshold)
  const unknown = considered.filter((partition) => partition.atRisk.records === null)
  const bounded = considered.filter((partition) => partition.atRisk.records !== null && !partition.atRisk.known && !over.includes(partition))
  const total = over.reduce((sum, partition) => sum + (partition.atRisk.records ?? 0), 0)
  const lowerBound = over.some((partition) => !partition.atRisk.known)
  let detail = `records at risk within ${threshold} per partition`
  if (over.length > 0) detail = `${lowerBound ? 'at least ' : ''}${total} record(s) at risk in ${list(over)}`
  else if (unknown.length > 0) detail = `records at risk unknown for ${unknown.length} partition(s)`
  else if (bounded.length > 0) detail = `records at risk known only as lower bounds for ${bounded.length} partition(s): the source does not answer`
  return { name: 'lag-threshold', ok: over.length === 0 && unknown.length === 0 && bounded.length === 0, severity: 'warning', detail }
}

function failedGate(partitions: readonly FailoverPreflightPartition[]): FailoverGate {
  const failed = partitions.filter((partition) => partition.state === 'FAILED')
  return {
    name: 'partitions-failed',
    ok: failed.length === 0,
    severity: 'warning',
    detail:
      failed.length === 0
        ? 'no selected partition is FAILED'
        : `${list(failed)} FAILED; they are stopped with what they mirrored before failing`,
  }
}

function list(partitions: readonly Pick<FailoverPreflightPartition, 'topic' | 'partition'>[]): string {
  const names = partitions.slice(0, 5).map((partition) => `${partition.topic}-${partition.partition}`)
  return partitions.length > 5 ? `${names.join(', ')} and ${partitions.length - 5} more` : names.join(', ')
}

function byTopicPartition(a: Pick<FailoverPartitionInput, 'topic' | 'partition'>, b: Pick<FailoverPartitionInput, 'topic' | 'partition'>): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition
}
