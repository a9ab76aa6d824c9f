import 'server-only'
import type { FailoverPlan as ApiFailoverPlan } from '@/lib/api/mirrors'
import type { FailoverType, OperationChange, SwitchoverProgress } from '@/lib/api/operations'
import type { Role } from '@/lib/api/session'
import type { FailureCode } from '@/lib/mirror/failure-code'
import type { MirrorPartitionValue } from '@/lib/mirror/transition'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import type { StoppingStep } from '@/lib/mirror/stopping'
import type { TruncationPlanEntry } from '@/lib/mirror/truncation'
import type { OperationKind } from './operations/operation-kinds'

/** Mirror-level settings (KIP-1279.md §7.3 keys), as stored with the mirror definition. */
export interface ResolvedMirrorConfig {
  'topics.include': string[]
  'topics.exclude': string[]
  'groups.include': string[]
  'groups.exclude': string[]
  'topic.properties.exclude': string[]
  'fetch.max.bytes': number
  'fetch.response.max.bytes': number
  'mirror.metadata.refresh.interval.ms': number
  'mirror.failed.retry.initial.backoff.ms': number
  'mirror.failed.retry.max.backoff.ms': number
  'mirror.failed.retry.max.attempts': number
  /** Bytes per second the mirror's throttled partitions may fetch together; 0: not throttled (KIP-1279.md §7.1). */
  'mirror.replication.throttled.rate': number
  /** Which partitions the rate applies to: `*`, `<topic>:*` or `<topic>:<partition>` (KIP-1279.md §7.2). */
  'mirror.replication.throttled.replicas': string[]
  /** The mirror's objectives (lib/failover/objectives.ts reads them); absent when none are set. */
  objectives?: { rpoSeconds?: number; rpoRecords?: number; rtoSeconds?: number; drillIntervalDays?: number }
}

export interface MirrorDefinition {
  name: string
  sourceCluster: string
  destinationCluster: string
  /** The source cluster id seen when the mirror was created; a change fails every partition. */
  sourceClusterId: string
  /** Topics started explicitly or discovered through `topics.include`, in the order they were added. */
  topics: string[]
  config: ResolvedMirrorConfig
  createdAt: number
  /**
   * The instance that created it, when several share the work (issue #40): the group leaves a mirror nobody runs
   * yet with its creator, so a create is finished where it began instead of being taken over half done.
   */
  createdOn?: string
}

/** A mirror partition as the API shows it (API.md `Partition`). */
export interface PartitionSnapshot {
  topic: string
  partition: number
  state: MirrorPartitionState
  stateEpoch: number
  stateSince: number
  previousState: MirrorPartitionState
  retryAttempt: number
  error: string | null
  sourceHighWatermark: number | null
  destinationHighWatermark: number
  destinationLogEndOffset: number
  offsetLag: number | null
  timeLagMs: number | null
  lastFetchAt: number | null
  /** The figures are current (true) or lower bounds of a silent source (false): lib/mirror/partition-lag.ts. */
  lagKnown: boolean
  /** When the source was last read: what the lag figures stand for. */
  lagAsOf: number | null
  /** While lagKnown is false: the time lag is now − timeLagFrom, growing. */
  timeLagFrom: number | null
  /** Why it is FAILED, as a code (lib/mirror/failure-code.ts); null otherwise or when not known. */
  failureCode: FailureCode | null
  /** When the engine retries a FAILED partition next; null when no retry is scheduled. */
  nextRetryAt: number | null
  destinationLeaderEpoch: number
  lastMirrorPosition: { epoch: number; offset: number } | null
  lastTruncation: { offset: number; removedRecords: number; at: number; reason: string } | null
  stoppingStep: StoppingStep | null
  /** While FAILED by a divergence the topic may not truncate: where, and what a truncation would cut. */
  divergence: { epoch: number; offset: number; truncateTo: number | null; recordsToCut: number; logEndOffset: number } | null
  /** False while the state shown is not yet in `__mirror_state` (PartitionRuntime.stateDurable). */
  stateDurable: boolean
}

export interface PartitionTransitionRecord {
  from: MirrorPartitionState
  to: MirrorPartitionState
  at: number
  reason: string
  /** The failure's message, on a transition into FAILED. */
  error?: string
  /** The consecutive-failure count the partition carried through this transition (-1: not retryable); absent when 0. */
  retryAttempt?: number
}

export interface OperationPartition {
  topic: string
  partition: number
  step: StoppingStep | null
  state: MirrorPartitionState
  error: string | null
  /** When the partition reached its final state for the operation (STOPPED, or failed for good). */
  finishedAt: number | null
}

/** Who asked for an operation, as the audit log names them. */
export interface OperationRequester {
  actor: string
  /** "Alice Example <alice@example.com>" for a person signed in through the identity provider. */
  actorName?: string
  role: Role | null
}

/** A multi-partition command answered with 202 (server/engine/operations/operation-tracker.ts). */
export interface FailoverOperation {
  id: string
  kind: OperationKind
  mirror: string
  status: 'running' | 'succeeded' | 'failed' | 'rolledBack'
  startedAt: number
  finishedAt: number | null
  requestedBy: OperationRequester | null
  /** Each time a restart resumed it. */
  resumedAt: number[]
  /** The plan the operation committed to, in the API's shape (it is kept on disk as such). */
  plan: ApiFailoverPlan
  partitions: OperationPartition[]
  /** Failing warning gates the caller forced past. */
  forcedGates?: string[]
  /** planned (kind `switchover`) or unplanned (kind `failover`); absent on records from before types existed. */
  type?: FailoverType
  /** A planned switchover's phases, persisted at each phase change (lib/failover/switchover.ts). */
  switchover?: SwitchoverProgress
}

export type EngineEvent =
  | {
      type: 'partition'
      mirror: string
      topic: string
      partition: number
      from: MirrorPartitionState
      to: MirrorPartitionState
      at: number
      reason: string
      stateEpoch: number
      /**
       * false on a transition shown before `__mirror_state` took it (PartitionRuntime.stateDurable); true on the
       * notice (`from` = `to`, same stateEpoch) that such a state is now written. Absent on every other event.
       */
      stateDurable?: boolean
      /** On a transition: the partition's failure details after it (GET .../partitions' fields of the same names). */
      error?: string | null
      failureCode?: FailureCode | null
      retryAttempt?: number
      nextRetryAt?: number | null
    }
  | {
      type: 'lag'
      mirror: string
      at: number
      /** Partitions with lag figures (exact or lower bounds), which the figures below cover. */
      sampledPartitions: number
      maxOffsetLag: number
      totalOffsetLag: number
      maxTimeLagMs: number
      /** false: some partition's source is silent and the figures are lower bounds (lib/mirror/partition-lag.ts). */
      lagKnown: boolean
      /** The oldest source reading the figures rest on. */
      lagAsOf: number | null
      /**
       * Partitions whose lag changed since the previous lag event (all of them in a mirror's first). A lower bound
       * carries `lagKnown: false`, its `lagAsOf` and `timeLagFrom`, and is sent again only when those move.
       */
      partitions: Array<{ topic: string; partition: number; offsetLag: number | null; timeLagMs: number | null; lagKnown?: false; lagAsOf?: number | null; timeLagFrom?: number | null }>
    }
  | { type: 'operation'; operation: FailoverOperation; change: OperationChange }
  | { type: 'mirror'; mirror: string; change: 'created' | 'deleted' | 'updated' }

export interface StartTopicsResult {
  topics: string[]
}

export interface TruncationPlanResult {
  mirror: string
  partitions: PlannedTruncation[]
}

/**
 * A plan entry; `rebuild` on a destination that cannot truncate (a Kafka cluster): the topic is deleted and
 * created again, then mirrored from the source's log start (`fetchOffset`), so what `truncateTo` and
 * `recordsToRemove` describe is lost, and the rest comes back from the source at the same offsets.
 */
export type PlannedTruncation = TruncationPlanEntry & { rebuild?: true; emulation?: string }

/**
 * The in-memory side of one mirror partition; `value` is what `__mirror_state` holds. Every field is
 * readonly: changes go through `changePartition` (state/partition-changes.ts), which publishes them.
 */
export interface PartitionRuntime {
  readonly mirror: string
  readonly topic: string
  readonly topicId: string
  readonly partition: number
  readonly value: MirrorPartitionValue
  /** Why the partition failed, while `value.error` is set (persisted with it); null when healthy or unknown (a record written before codes). */
  readonly failureCode: FailureCode | null
  readonly fetching: boolean
  readonly retryAt: number | null
  readonly retryStateEpoch: number | null
  readonly awaitingConvergence: boolean
  /** A state write failed: the next tick re-runs the effects of the last durable state. */
  readonly needsRestore: boolean
  /**
   * False while `value` is a FAILED the engine could not write to `__mirror_state` (its destination, or the
   * destination's storage, does not answer): shown and acted on in memory, written once the store takes it,
   * or superseded by the next transition's record. A restart meanwhile resumes from the stored record.
   */
  readonly stateDurable: boolean
  readonly sourceHighWatermark: number | null
  readonly oldestUnmirroredTimestamp: number | null
  readonly lastFetchAt: number | null
  /** Mirrorboard's own reading of a silent source (lag/source-observer.ts), when later than the last fetch. */
  readonly sourceObservedAt: number | null
  readonly destinationHighWatermark: number
  readonly destinationLogEndOffset: number
  readonly destinationLeaderEpoch: number
  /**
   * [offsetLag, timeLagMs, timeLagFrom] as last sent in a lag event (timeLagMs null for a lower bound, timeLagFrom
   * null for an exact figure); null until sent or once the partition has no lag (STOPPED...).
   */
  readonly lastLagEvent: readonly [number, number | null, number | null] | null
  readonly transitions: readonly PartitionTransitionRecord[]
  /**
   * The last snapshot handed out, frozen. Handed out again until a change makes it stale, so a response
   * encoder can reuse its JSON by identity (server/http/json-body.ts).
   */
  readonly snapshot: Readonly<PartitionSnapshot> | null
  readonly snapshotStaleness: SnapshotStaleness
  /** Where this runtime's changes are published (the engine's EngineState.changes). */
  readonly changes: PartitionChangePublisher
}

/** The fields of a runtime that change while the engine holds it (the key fields never do). */
export type PartitionField =
  | 'value'
  | 'failureCode'
  | 'fetching'
  | 'retryAt'
  | 'retryStateEpoch'
  | 'awaitingConvergence'
  | 'needsRestore'
  | 'stateDurable'
  | 'sourceHighWatermark'
  | 'oldestUnmirroredTimestamp'
  | 'lastFetchAt'
  | 'sourceObservedAt'
  | 'destinationHighWatermark'
  | 'destinationLogEndOffset'
  | 'destinationLeaderEpoch'
  | 'lastLagEvent'

/** What a writer changes: new values of some fields, and a transition to append to the history. */
export type PartitionChange = { -readonly [K in PartitionField]?: PartitionRuntime[K] } & {
  /** Appended to `transitions` (the oldest dropped past MAX_TRANSITIONS_KEPT). */
  transition?: PartitionTransitionRecord
}

/** How much of the last snapshot a change has made stale. */
export type SnapshotStaleness = 'fresh' | 'lastFetchAt' | 'stale'

/** Where a runtime's changes go: the engine's `PartitionChanges` (state/partition-changes.ts), which only `changePartition` calls. */
export interface PartitionChangePublisher {
  publish(runtime: PartitionRuntime, change: PartitionChange): void
}

