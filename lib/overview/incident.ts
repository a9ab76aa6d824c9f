/**
 * What an incident banner and the grouped "needs attention" say: a mirror's FAILED partitions grouped by why
 * they failed, one line per cause ("us-east-to-eu-west · 21 FAILED · source unreachable since 22:23:40 ·
 * retry 10") instead of 21 identical cards, with since when, the next retry and what an operator can do.
 *
 * Pure: the server feeds it the engine's partition snapshots (GET /attention), the mirror page its live rows.
 */
import type { FailureCode } from '../mirror/failure-code'
import type { MirrorPartitionState } from '../mirror/states'

/** Why partitions failed, as an operator reads it: the cluster that does not answer, or what went wrong. */
export type FailureCause = 'sourceUnreachable' | 'destinationUnreachable' | 'logDiverged' | 'fetchError' | 'appendFailed' | 'sourceChanged' | 'tieredStorage' | 'mirrorLoop' | 'other'

export const FAILURE_CAUSES: Readonly<Record<FailureCause, { readonly label: string; readonly detail: string }>> = {
  sourceUnreachable: { label: 'source unreachable', detail: 'fetches do not reach the source cluster; the engine retries with backoff and resumes by itself when it answers' },
  destinationUnreachable: { label: 'destination unreachable', detail: 'the destination cluster does not answer; nothing can be appended until it does' },
  logDiverged: { label: 'source log diverged', detail: "the source's history changed under the mirror (an unclean leader election) and the topic does not allow truncating to it; recover, or fail over with what was mirrored" },
  fetchError: { label: 'fetch errors', detail: 'the source answers these partitions with an error; the engine retries' },
  appendFailed: { label: 'append failed', detail: 'fetched records could not be appended to the destination log' },
  sourceChanged: { label: 'source changed', detail: 'the source topic was deleted, or the source cluster is another cluster now; not retried' },
  tieredStorage: {
    label: 'tiered storage on the source topic',
    detail: 'the source topic keeps part of its log in remote (tiered) storage, which cluster mirroring cannot read (KIP-1279); not retried: turn it off on the topic, or stop mirroring it',
  },
  mirrorLoop: { label: 'mirror loop', detail: 'a mirror the other way mirrors these partitions back; stop it first' },
  other: { label: 'failed', detail: 'an effect of the mirror failed on the destination' },
}

const CAUSE_OF_CODE: Readonly<Record<FailureCode, FailureCause>> = {
  SOURCE_UNREACHABLE: 'sourceUnreachable',
  DESTINATION_UNREACHABLE: 'destinationUnreachable',
  FETCH_ERROR: 'fetchError',
  APPEND_FAILED: 'appendFailed',
  EFFECT_FAILED: 'other',
  REVERSE_MIRROR_NOT_STOPPED: 'mirrorLoop',
  SOURCE_PARTITION_UNKNOWN: 'fetchError',
  LOG_DIVERGED: 'logDiverged',
  SOURCE_TOPIC_DELETED: 'sourceChanged',
  SOURCE_CLUSTER_ID_CHANGED: 'sourceChanged',
  TIERED_STORAGE_ENABLED: 'tieredStorage',
  MIRROR_LOOP: 'mirrorLoop',
}

export function causeOf(failureCode: FailureCode | null | undefined): FailureCause {
  return failureCode === null || failureCode === undefined ? 'other' : CAUSE_OF_CODE[failureCode]
}

/** What the grouping reads of a partition (a subset of the API's Partition). */
export interface IncidentPartition {
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  readonly stateSince: number
  readonly error: string | null
  readonly retryAttempt: number
  readonly lastFetchAt: number | null
  readonly failureCode?: FailureCode | null
  readonly nextRetryAt?: number | null
}

export interface FailureGroup {
  readonly mirror: string
  readonly cause: FailureCause
  readonly partitions: number
  /**
   * Since when: for an unreachable source, its last successful fetch (retries that failed again do not reset
   * it); otherwise the oldest of the group's failures.
   */
  readonly since: number
  /** The soonest retry scheduled among them; null when none is (not retryable). */
  readonly nextRetryAt: number | null
  /** The highest consecutive-failure count among them; -1 when none is retried automatically. */
  readonly retryAttempt: number
  readonly retryable: boolean
  /** One failure message of the group (they are usually the same). */
  readonly error: string | null
  /** The partitions, in topic and partition order (the first `EXAMPLES` of them). */
  readonly examples: ReadonlyArray<{ readonly topic: string; readonly partition: number }>
}

const EXAMPLES = 50

/** A mirror's FAILED partitions, one group per cause, the largest first. */
export function failureGroups(mirror: string, partitions: Iterable<IncidentPartition>): FailureGroup[] {
  const groups = new Map<FailureCause, { partitions: IncidentPartition[] }>()
  for (const partition of partitions) {
    if (partition.state !== 'FAILED') continue
    const cause = causeOf(partition.failureCode)
    const group = groups.get(cause) ?? { partitions: [] }
    group.partitions.push(partition)
    groups.set(cause, group)
  }
  return [...groups.entries()]
    .map(([cause, { partitions: members }]) => groupOf(mirror, cause, members))
    .sort((a, b) => b.partitions - a.partitions || a.since - b.since)
}

function groupOf(mirror: string, cause: FailureCause, members: IncidentPartition[]): FailureGroup {
  let since = Number.POSITIVE_INFINITY
  let nextRetryAt: number | null = null
  let retryAttempt = -1
  let error: string | null = null
  for (const partition of members) {
    const began = cause === 'sourceUnreachable' ? (partition.lastFetchAt ?? partition.stateSince) : partition.stateSince
    since = Math.min(since, began)
    if (partition.nextRetryAt !== null && partition.nextRetryAt !== undefined) nextRetryAt = Math.min(nextRetryAt ?? partition.nextRetryAt, partition.nextRetryAt)
    retryAttempt = Math.max(retryAttempt, partition.retryAttempt)
    error ??= partition.error
  }
  const examples = [...members]
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
    .slice(0, EXAMPLES)
    .map(({ topic, partition }) => ({ topic, partition }))
  return { mirror, cause, partitions: members.length, since, nextRetryAt, retryAttempt, retryable: retryAttempt >= 0, error, examples }
}

export interface Incident {
  readonly mirror: string
  /** The largest group first. */
  readonly groups: readonly FailureGroup[]
  readonly failed: number
  readonly since: number
  readonly nextRetryAt: number | null
  /** Every group will be retried by the engine: recovery can wait; otherwise an operator must act. */
  readonly retrying: boolean
}

/** The banner of a mirror with FAILED partitions; null when none is. */
export function incidentOf(mirror: string, partitions: Iterable<IncidentPartition>): Incident | null {
  const groups = failureGroups(mirror, partitions)
  if (groups.length === 0) return null
  let nextRetryAt: number | null = null
  for (const group of groups) if (group.nextRetryAt !== null) nextRetryAt = Math.min(nextRetryAt ?? group.nextRetryAt, group.nextRetryAt)
  return {
    mirror,
    groups,
    failed: groups.reduce((sum, group) => sum + group.partitions, 0),
    since: Math.min(...groups.map((group) => group.since)),
    nextRetryAt,
    retrying: groups.every((group) => group.retryable),
  }
}
