/**
 * Builds the failover report (lib/api/operation-report.ts) from what the server read: the operation with
 * the plan it committed to, who confirmed it and which gates were forced, and per partition the markers
 * found in the destination log at and after the last mirror position. Pure: the server gathers the inputs.
 *
 * Markers: the ABORT markers at or after the last mirror position's offset are the ones the stop appended
 * (everything below it was mirrored); the first MIRROR_PID_RESET there is the reset record. A partition
 * whose log was empty at the stop has position (-1, -1): its markers start at offset 0.
 */
import type { OperationReport, ReportPartition } from '../api/operation-report'
import type { FailoverPlan, MirrorPartitionState } from '../api/mirrors'
import type { Operation } from '../api/operations'
import { TopicPartitionMap } from '../mirror/topic-partition'
import { planTotals } from './plan-totals'

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
  /** This partition's transitions (oldest first). */
  readonly transitions: ReadonlyArray<{ readonly to: MirrorPartitionState; readonly at: number }>
}

export interface ReportInput {
  readonly operation: Operation & { readonly plan: FailoverPlan }
  readonly sourceCluster: string | null
  readonly destinationCluster: string | null
  readonly confirmedBy: string | null
  readonly forcedGates: readonly string[]
  readonly outcomes: readonly PartitionOutcome[]
  readonly generatedAt: number
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
  }
}
