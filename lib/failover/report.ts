/**
 * Builds the failover report (lib/api/operation-report.ts) from what the server read: the operation with
 * the plan it committed to, who confirmed it and which gates were forced, and per partition the markers
 * found in the destination log at and after the last mirror position. Pure: the server gathers the inputs.
 *
 * Markers: the ABORT markers at or after the last mirror position's offset are the ones the stop appended
 * (everything below it was mirrored); the first MIRROR_PID_RESET there is the reset record. A partition
 * whose log was empty at the stop has position (-1, -1): its markers start at offset 0.
 */
import type { ObjectiveResult, OperationReport, ReportGroupResume, ReportObjectives, ReportPartition, ReportVerification, TimelineEntry } from '../api/operation-report'
import type { FailoverPlan, MirrorPartitionState } from '../api/mirrors'
import type { Operation } from '../api/operations'
import { TopicPartitionMap } from '../mirror/topic-partition'
import { planTotals } from './plan-totals'
import { switchoverTimes } from './recovery-time'

export interface LogMarker {
  readonly offset: number
  readonly type: string
  readonly producerId: number | null
  readonly producerEpoch: number | null
}

export interface PartitionOutcome {
  readonly topic: string
  readonly partition: number
  readonly lastMirrorPosition: { readonly epoch: number; readonly offset: number } | null
  readonly destinationLeaderEpoch: number
  /** Destination records from the last mirror position on (control records are what counts). */
  readonly records: readonly LogMarker[]
  /** Why the destination records could not be read, when they could not (then `records` is empty and says nothing). */
  readonly markersUnread?: string
  /** This partition's transitions (oldest first); `from` and `reason` name them in the timeline. */
  readonly transitions: ReadonlyArray<{ readonly to: MirrorPartitionState; readonly at: number; readonly from?: MirrorPartitionState; readonly reason?: string }>
}

/** A consumer group's committed offset on the destination, for a partition of the operation. */
export interface DestinationGroupOffset {
  readonly groupId: string
  readonly topic: string
  readonly partition: number
  readonly offset: number
}

export interface ReportInput {
  readonly operation: Operation & { readonly plan: FailoverPlan }
  readonly sourceCluster: string | null
  readonly destinationCluster: string | null
  readonly confirmedBy: string | null
  readonly forcedGates: readonly string[]
  readonly outcomes: readonly PartitionOutcome[]
  readonly generatedAt: number
  /** The mirror's objectives now; null when none are set. */
  readonly objectives?: ReportObjectives | null
  /** The verification that ran after this failover, if any. */
  readonly verification?: ReportVerification | null
  /** Committed offsets on the destination of every group, on the operation's partitions. */
  readonly destinationGroups?: readonly DestinationGroupOffset[]
}

export function markersOf(outcome: Pick<PartitionOutcome, 'lastMirrorPosition' | 'records'>): Pick<ReportPartition, 'aborted' | 'pidResetOffset'> {
  const from = Math.max(0, outcome.lastMirrorPosition?.offset ?? 0)
  const aborted: ReportPartition['aborted'] = []
  let pidResetOffset: number | null = null
  for (const record of [...outcome.records].sort((a, b) => a.offset - b.offset)) {
    if (record.offset < from) continue
    if (record.type === 'ABORT' && record.producerId !== null && pidResetOffset === null) {
      aborted.push({ offset: record.offset, producerId: record.producerId, producerEpoch: record.producerEpoch ?? -1 })
    }
    if (record.type === 'MIRROR_PID_RESET' && pidResetOffset === null) pidResetOffset = record.offset
  }
  return { aborted, pidResetOffset }
}

/** When this operation moved the partition into STOPPING and then STOPPED. */
export function stopTimes(transitions: PartitionOutcome['transitions'], startedAt: number): { stoppingAt: number | null; stoppedAt: number | null } {
  // Clocks can be a millisecond apart between the request and the runner: look back a little.
  const after = transitions.filter((transition) => transition.at >= startedAt - 1_000)
  const stoppingAt = after.find((transition) => transition.to === 'STOPPING')?.at ?? null
  const stoppedAt = after.find((transition) => transition.to === 'STOPPED' && (stoppingAt === null || transition.at >= stoppingAt))?.at ?? null
  return { stoppingAt, stoppedAt }
}

export function buildOperationReport(input: ReportInput): OperationReport {
  const { operation } = input
  const outcomes = TopicPartitionMap.of(input.outcomes.map((outcome) => [outcome, outcome] as const))
  const partitions: ReportPartition[] = operation.partitions.map((entry) => {
    const outcome = outcomes.get(entry)
    const { stoppingAt, stoppedAt } = outcome ? stopTimes(outcome.transitions, operation.startedAt) : { stoppingAt: null, stoppedAt: null }
    const markers = outcome ? markersOf(outcome) : { aborted: [], pidResetOffset: null }
    return {
      topic: entry.topic,
      partition: entry.partition,
      state: entry.state,
      step: entry.step,
      error: entry.error,
      lastMirrorPosition: outcome?.lastMirrorPosition ?? null,
      finalLeaderEpoch: outcome?.destinationLeaderEpoch ?? -1,
      ...markers,
      ...(outcome?.markersUnread === undefined ? {} : { markersUnread: outcome.markersUnread }),
      stoppingAt,
      stoppedAt,
      durationMs: stoppingAt !== null && stoppedAt !== null ? Math.max(0, stoppedAt - stoppingAt) : null,
    }
  })
  const producers = new Set<number>()
  let transactionsAborted = 0
  for (const partition of partitions) {
    transactionsAborted += partition.aborted.length
    for (const marker of partition.aborted) producers.add(marker.producerId)
  }
  const forced = new Set(input.forcedGates)
  const totals = planTotals(operation.plan.partitions)
  const stoppedTimes = partitions.map((partition) => partition.stoppedAt)
  const rtoMs = operation.status === 'succeeded' && stoppedTimes.every((at) => at !== null) ? Math.max(0, ...stoppedTimes.map((at) => at! - operation.startedAt)) : null
  const switchover = operation.switchover === undefined ? undefined : { ...switchoverTimes(operation.switchover), recordsLost: operation.switchover.recordsLost?.total ?? null }
  const measured = {
    rtoMs,
    rpo: { records: totals.recordsAtRisk, seconds: totals.maxTimeAtRiskMs === null ? null : totals.maxTimeAtRiskMs / 1000 },
    ...(switchover === undefined ? {} : { switchover }),
  }
  const objectives = input.objectives ?? null
  return {
    format: 'mirrorboard.failover-report/1',
    generatedAt: input.generatedAt,
    operation: {
      id: operation.id,
      kind: operation.kind,
      mirror: operation.mirror,
      sourceCluster: input.sourceCluster,
      destinationCluster: input.destinationCluster,
      status: operation.status,
      startedAt: operation.startedAt,
      finishedAt: operation.finishedAt,
      durationMs: operation.finishedAt === null ? null : Math.max(0, operation.finishedAt - operation.startedAt),
    },
    confirmation: {
      confirmedBy: input.confirmedBy,
      confirmedAt: operation.startedAt,
      forcedGates: operation.plan.gates.filter((gate) => forced.has(gate.name)),
    },
    totals: {
      partitions: partitions.length,
      stopped: partitions.filter((partition) => partition.state === 'STOPPED').length,
      failed: partitions.filter((partition) => partition.state === 'FAILED' || partition.error !== null).length,
      recordsAtRisk: planTotals(operation.plan.partitions).recordsAtRisk,
      transactionsAborted,
      producersAborted: [...producers].sort((a, b) => a - b),
    },
    plan: operation.plan,
    partitions,
    timeline: timelineOf(input, forced),
    measured,
    objectives,
    objectiveResults: objectives === null ? [] : objectiveResults(objectives, measured),
    verification: input.verification ?? null,
    consumerGroups: groupResumes(operation.plan, input.destinationGroups ?? []),
  }
}

function compare(name: ObjectiveResult['name'], objective: number | undefined, measured: number | null): ObjectiveResult {
  const target = objective ?? null
  return { name, objective: target, measured, met: target === null || measured === null ? null : measured <= target }
}

/** Each objective the mirror sets, against what the failover measured. */
export function objectiveResults(objectives: ReportObjectives, measured: OperationReport['measured']): ObjectiveResult[] {
  return [
    compare('rpoRecords', objectives.rpoRecords, measured.rpo.records),
    compare('rpoSeconds', objectives.rpoSeconds, measured.rpo.seconds),
    compare('rtoSeconds', objectives.rtoSeconds, measured.rtoMs === null ? null : measured.rtoMs / 1000),
  ].filter((result) => result.objective !== null)
}

function groupResumes(plan: ReportInput['operation']['plan'], groups: readonly DestinationGroupOffset[]): ReportGroupResume[] {
  // Per partition, the groups behind on it by id.
  const behind = new TopicPartitionMap<Map<string, { sourceCommittedOffset?: number; offsetsToReprocess?: number | null }>>()
  for (const partition of plan.partitions) {
    const groups = new Map<string, { sourceCommittedOffset?: number; offsetsToReprocess?: number | null }>()
    for (const group of partition.consumerGroupsBehind) groups.set(group.groupId, group)
    behind.set(partition, groups)
  }
  return [...groups]
    .sort((a, b) => a.groupId.localeCompare(b.groupId) || a.topic.localeCompare(b.topic) || a.partition - b.partition)
    .map((group) => {
      const known = behind.get(group)?.get(group.groupId)
      return {
        groupId: group.groupId,
        topic: group.topic,
        partition: group.partition,
        resumeAt: group.offset,
        committedAtSource: known?.sourceCommittedOffset ?? null,
        offsetsToReprocess: known?.offsetsToReprocess ?? null,
      }
    })
}

/** Transitions closer than this to the previous one of the same kind are one line of the timeline. */
const GROUPING_MS = 1_000

/**
 * The post-mortem's timeline, oldest first. Transitions of many partitions into the same state within a
 * second are one line ("412 partitions → STOPPED"), so a failover of 10,000 partitions reads in a page.
 */
export function timelineOf(input: ReportInput, forced: ReadonlySet<string>): TimelineEntry[] {
  const { operation } = input
  const who = input.confirmedBy ?? 'an unrecorded caller'
  const entries: TimelineEntry[] = [{ at: operation.startedAt, event: 'confirmed', detail: `Failover of ${operation.mirror} confirmed by ${who} (typed the mirror's name); ${operation.partitions.length} partition(s) to stop` }]
  for (const gate of operation.plan.gates) {
    entries.push({ at: operation.startedAt, event: 'gate', detail: `Gate ${gate.name}: ${gate.ok ? 'passed' : 'failed'} — ${gate.detail}` })
    if (forced.has(gate.name)) entries.push({ at: operation.startedAt, event: 'forced', detail: `Gate ${gate.name} forced by ${who}` })
  }
  const until = operation.finishedAt ?? Number.POSITIVE_INFINITY
  const transitions = input.outcomes
    .flatMap((outcome) => outcome.transitions.filter((t) => t.at >= operation.startedAt - GROUPING_MS && t.at <= until + GROUPING_MS).map((t) => ({ ...t, name: `${outcome.topic}-${outcome.partition}` })))
    .sort((a, b) => a.at - b.at)
  let group: { first: (typeof transitions)[number]; last: number; count: number } | null = null
  const flush = () => {
    if (group === null) return
    const { first, last, count } = group
    const detail =
      count === 1
        ? `${first.name}: ${first.from ?? '?'} → ${first.to}${first.reason ? ` (${first.reason})` : ''}`
        : `${count} partitions → ${first.to}${last > first.at ? ` over ${last - first.at} ms` : ''}`
    entries.push({ at: first.at, event: 'transition', detail, partitions: count })
    group = null
  }
  for (const transition of transitions) {
    if (group !== null && group.first.to === transition.to && transition.at - group.last < GROUPING_MS) {
      group.last = transition.at
      group.count += 1
      continue
    }
    flush()
    group = { first: transition, last: transition.at, count: 1 }
  }
  flush()
  for (const at of operation.resumedAt) entries.push({ at, event: 'resumed', detail: 'The server restarted; the operation resumed where each partition stood' })
  if (operation.finishedAt !== null) {
    const stopped = operation.partitions.filter((partition) => partition.state === 'STOPPED').length
    entries.push({ at: operation.finishedAt, event: 'finished', detail: `Operation ${operation.status}: ${stopped} of ${operation.partitions.length} partition(s) STOPPED and writable` })
  }
  const verification = input.verification ?? null
  if (verification !== null && verification.finishedAt !== null) {
    entries.push({ at: verification.finishedAt, event: 'verified', detail: `Verification ${verification.id} ${verification.status}` })
  }
  return entries.sort((a, b) => a.at - b.at)
}
