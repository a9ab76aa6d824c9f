/**
 * Mirror partition states (KIP-1279) and the two tables that every other module asks: which
 * transitions are valid, and which event leads where. The engine never re-derives either with its
 * own `if` statements, and the UI state graph is drawn from them (lib/graph/state-graph.ts).
 *
 * States and their allowed predecessors (VALID_PREVIOUS_STATES, DESIGN.md §1, KIP-1279.md §2.2):
 *
 *   UNKNOWN             ← none: it is the absence of state, never entered
 *   PREPARING           ← UNKNOWN, STOPPED, FAILED          (the voted KIP's LOG_ALIGNMENT)
 *   EPOCH_FENCING       ← MIRRORING, FAILED
 *   ULE_LOG_TRUNCATION  ← MIRRORING, FAILED                 (the voted KIP's ULE_RECOVERY)
 *   MIRRORING           ← PREPARING, EPOCH_FENCING, ULE_LOG_TRUNCATION, PAUSED, FAILED
 *   PAUSING             ← MIRRORING, FAILED
 *   PAUSED              ← PAUSING, FAILED
 *   STOPPING            ← PREPARING, EPOCH_FENCING, ULE_LOG_TRUNCATION, MIRRORING, PAUSING, PAUSED, FAILED
 *   STOPPED             ← STOPPING
 *   FAILED              ← any state
 *
 * Re-entering the current state is always valid and changes nothing. Unlike the KIP prototype, FAILED
 * may not go to every state (STOPPED only follows STOPPING, UNKNOWN is never entered), and a stop is
 * accepted from FAILED: in a real disaster the source is down and its partitions are FAILED, and
 * refusing the failover then would be wrong (DESIGN.md §1).
 *
 * EVENT_TABLE maps state → event → rule. Events are past-tense facts (`truncationCompleted`) or
 * operator requests (`stopRequested`). A rule is a target state, `previousState` (the state before
 * FAILED), an in-state action (`stay`), or a list of guarded rules of which the first whose guard
 * passes applies. Guards are referred to by name; their implementations are in guards.ts.
 */
import { MirrorError } from './errors'

// STATES

export const MIRROR_PARTITION_STATES = [
  'UNKNOWN',
  'PREPARING',
  'EPOCH_FENCING',
  'ULE_LOG_TRUNCATION',
  'MIRRORING',
  'PAUSING',
  'PAUSED',
  'STOPPING',
  'STOPPED',
  'FAILED',
] as const

export type MirrorPartitionState = (typeof MIRROR_PARTITION_STATES)[number]

/** The voted KIP's names that differ from ours (state-metadata.ts's `kipName`), accepted as synonyms (KIP-1279.md §2.1). */
export const MIRROR_PARTITION_STATE_SYNONYMS = {
  LOG_ALIGNMENT: 'PREPARING',
  ULE_RECOVERY: 'ULE_LOG_TRUNCATION',
} as const satisfies Record<string, MirrorPartitionState>

/**
 * The prototype's byte encoding of `MirrorPartitionState` in `__mirror_state` (KIP-1279.md §2.1), for
 * stores that write Kafka's record format.
 */
export const MIRROR_PARTITION_STATE_CODES = {
  UNKNOWN: -1,
  PREPARING: 0,
  EPOCH_FENCING: 1,
  ULE_LOG_TRUNCATION: 2,
  MIRRORING: 3,
  PAUSING: 4,
  PAUSED: 5,
  STOPPING: 6,
  STOPPED: 7,
  FAILED: 8,
} as const satisfies Record<MirrorPartitionState, number>

export function isMirrorPartitionState(value: unknown): value is MirrorPartitionState {
  return typeof value === 'string' && (MIRROR_PARTITION_STATES as readonly string[]).includes(value)
}

/**
 * Reads a state name as operators and tools write it: any case, surrounding blanks, and the KIP
 * synonyms LOG_ALIGNMENT and ULE_RECOVERY. Throws VALIDATION_FAILED for anything else.
 */
export function parseMirrorPartitionState(text: string): MirrorPartitionState {
  const name = text.trim().toUpperCase()
  if (isMirrorPartitionState(name)) return name
  if (Object.hasOwn(MIRROR_PARTITION_STATE_SYNONYMS, name)) {
    return MIRROR_PARTITION_STATE_SYNONYMS[name as keyof typeof MIRROR_PARTITION_STATE_SYNONYMS]
  }
  throw new MirrorError('VALIDATION_FAILED', `unknown mirror partition state "${text}"`)
}

export function mirrorPartitionStateFromCode(code: number): MirrorPartitionState {
  for (const state of MIRROR_PARTITION_STATES) {
    if (MIRROR_PARTITION_STATE_CODES[state] === code) return state
  }
  throw new MirrorError('VALIDATION_FAILED', `unknown mirror partition state code ${code}`)
}

// VALID TRANSITIONS

/** Target state → the states it may be entered from. FAILED may be entered from every state. */
export const VALID_PREVIOUS_STATES = {
  UNKNOWN: [],
  PREPARING: ['UNKNOWN', 'STOPPED', 'FAILED'],
  EPOCH_FENCING: ['MIRRORING', 'FAILED'],
  ULE_LOG_TRUNCATION: ['MIRRORING', 'FAILED'],
  MIRRORING: ['PREPARING', 'EPOCH_FENCING', 'ULE_LOG_TRUNCATION', 'PAUSED', 'FAILED'],
  PAUSING: ['MIRRORING', 'FAILED'],
  PAUSED: ['PAUSING', 'FAILED'],
  STOPPING: ['PREPARING', 'EPOCH_FENCING', 'ULE_LOG_TRUNCATION', 'MIRRORING', 'PAUSING', 'PAUSED', 'FAILED'],
  STOPPED: ['STOPPING'],
  FAILED: MIRROR_PARTITION_STATES,
} as const satisfies Record<MirrorPartitionState, readonly MirrorPartitionState[]>

/** True when `from → to` is allowed; `from === to` (a no-op re-entry) is always allowed. */
export function isValidTransition(from: MirrorPartitionState, to: MirrorPartitionState): boolean {
  if (from === to) return true
  return (VALID_PREVIOUS_STATES[to] as readonly MirrorPartitionState[]).includes(from)
}

// EVENTS

export const MIRROR_EVENT_TYPES = [
  'startRequested',
  'lastMirrorPositionFound',
  'truncationCompleted',
  'mirrorLoopDetected',
  'batchEpochExceeded',
  'epochBumpThresholdReached',
  'epochBumpCompleted',
  'divergenceDetected',
  'replicasConverged',
  'fetchSucceeded',
  'pauseRequested',
  'fetcherRemoved',
  'resumeRequested',
  'stopRequested',
  'stoppingStepCompleted',
  'stopCompleted',
  'failed',
  'retryDue',
  'recoverRequested',
  'sourceTopicDeleted',
  'sourceClusterIdChanged',
  'tieredStorageDetected',
  // Not in EVENT_TABLE: its target is whatever another writer stored (adoption.ts), not a rule of the table.
  'storedStateAdopted',
] as const

export type MirrorEventType = (typeof MIRROR_EVENT_TYPES)[number]

export function isMirrorEventType(value: unknown): value is MirrorEventType {
  return typeof value === 'string' && (MIRROR_EVENT_TYPES as readonly string[]).includes(value)
}

/** Guards the table refers to; guards.ts implements each (`satisfies Record<GuardName, …>`). */
export const GUARD_NAMES = [
  'isUncleanLeaderElectionSupported',
  'isBatchEpochAboveLeaderEpoch',
  'needsProactiveEpochBump',
  'isEpochBumpVisible',
  'hasFailureDetails',
  'hasPendingTruncation',
  'isExpectedStoppingStep',
  'isStoppingSequenceDone',
  'isRetryable',
  'isPauseSafeAfterFailure',
] as const

export type GuardName = (typeof GUARD_NAMES)[number]

/**
 * Work done without leaving the current state (transition.ts implements each):
 * - planTruncation: decide the PREPARING truncation point from the last mirror position and emit it;
 * - requestProactiveEpochBump: ask for a leader epoch bump while MIRRORING goes on;
 * - clearFailureDetails: a successful fetch proves the partition healthy, so drop error and attempt;
 * - recordTruncation: the ULE truncation is done; persist it, then wait for the replicas;
 * - recordStoppingStep: persist STOPPING progress so a crash resumes at the right step;
 * - recordFailure: a further failure while FAILED (attempt +1, or escalation to non-retryable).
 */
export const STAY_ACTIONS = [
  'planTruncation',
  'requestProactiveEpochBump',
  'clearFailureDetails',
  'recordTruncation',
  'recordStoppingStep',
  'recordFailure',
] as const

export type StayAction = (typeof STAY_ACTIONS)[number]

/** `previousState`: back to the state before FAILED (see RETRY_TARGETS for the exceptions). */
export type RuleTarget = MirrorPartitionState | 'previousState'

export interface TransitionRule {
  readonly to: RuleTarget
  readonly when?: GuardName
  readonly unless?: GuardName
}

export interface StayRule {
  readonly stay: StayAction
  readonly when?: GuardName
  readonly unless?: GuardName
}

export type EventRule = TransitionRule | StayRule

export type EventRuleSpec = RuleTarget | StayRule | readonly EventRule[]

export type EventTable = {
  readonly [S in MirrorPartitionState]: { readonly [E in MirrorEventType]?: EventRuleSpec }
}

export const EVENT_TABLE = {
  UNKNOWN: {
    startRequested: 'PREPARING',
    failed: 'FAILED',
  },
  PREPARING: {
    startRequested: 'PREPARING',
    lastMirrorPositionFound: { stay: 'planTruncation' },
    truncationCompleted: 'MIRRORING',
    mirrorLoopDetected: 'FAILED',
    stopRequested: 'STOPPING',
    failed: 'FAILED',
    sourceTopicDeleted: 'FAILED',
    sourceClusterIdChanged: 'FAILED',
    tieredStorageDetected: 'FAILED',
  },
  EPOCH_FENCING: {
    startRequested: 'EPOCH_FENCING',
    epochBumpCompleted: [{ to: 'MIRRORING', when: 'isEpochBumpVisible' }],
    stopRequested: 'STOPPING',
    failed: 'FAILED',
    sourceTopicDeleted: 'FAILED',
    sourceClusterIdChanged: 'FAILED',
    tieredStorageDetected: 'FAILED',
  },
  ULE_LOG_TRUNCATION: {
    startRequested: 'ULE_LOG_TRUNCATION',
    truncationCompleted: [{ stay: 'recordTruncation', when: 'hasPendingTruncation' }],
    replicasConverged: [{ to: 'MIRRORING', unless: 'hasPendingTruncation' }],
    stopRequested: 'STOPPING',
    failed: 'FAILED',
    sourceTopicDeleted: 'FAILED',
    sourceClusterIdChanged: 'FAILED',
    tieredStorageDetected: 'FAILED',
  },
  MIRRORING: {
    startRequested: 'MIRRORING',
    resumeRequested: 'MIRRORING',
    fetchSucceeded: [{ stay: 'clearFailureDetails', when: 'hasFailureDetails' }],
    batchEpochExceeded: [{ to: 'EPOCH_FENCING', when: 'isBatchEpochAboveLeaderEpoch' }],
    epochBumpThresholdReached: [{ stay: 'requestProactiveEpochBump', when: 'needsProactiveEpochBump' }],
    divergenceDetected: [{ to: 'ULE_LOG_TRUNCATION', when: 'isUncleanLeaderElectionSupported' }, { to: 'FAILED' }],
    pauseRequested: 'PAUSING',
    stopRequested: 'STOPPING',
    failed: 'FAILED',
    sourceTopicDeleted: 'FAILED',
    sourceClusterIdChanged: 'FAILED',
    tieredStorageDetected: 'FAILED',
  },
  PAUSING: {
    pauseRequested: 'PAUSING',
    fetcherRemoved: 'PAUSED',
    stopRequested: 'STOPPING',
    failed: 'FAILED',
    // Tiered storage enabled on the destination topic while paused (a config change, not a sync): the KIP
    // fails the partition for good whatever it was doing, at once rather than at the first sync after a resume.
    tieredStorageDetected: 'FAILED',
  },
  PAUSED: {
    pauseRequested: 'PAUSED',
    resumeRequested: 'MIRRORING',
    stopRequested: 'STOPPING',
    failed: 'FAILED',
    tieredStorageDetected: 'FAILED',
  },
  STOPPING: {
    stopRequested: 'STOPPING',
    stoppingStepCompleted: [{ stay: 'recordStoppingStep', when: 'isExpectedStoppingStep' }],
    stopCompleted: [{ to: 'STOPPED', when: 'isStoppingSequenceDone' }],
    failed: 'FAILED',
  },
  STOPPED: {
    stopRequested: 'STOPPED',
    startRequested: 'PREPARING',
    // Only lifting the read-only flag can fail here; the retry replays the (finished) STOPPING steps.
    failed: 'FAILED',
  },
  FAILED: {
    retryDue: [{ to: 'previousState', when: 'isRetryable' }],
    recoverRequested: 'previousState',
    stopRequested: 'STOPPING',
    pauseRequested: [{ to: 'PAUSING', when: 'isPauseSafeAfterFailure' }],
    failed: { stay: 'recordFailure' },
    mirrorLoopDetected: { stay: 'recordFailure' },
    sourceTopicDeleted: { stay: 'recordFailure' },
    sourceClusterIdChanged: { stay: 'recordFailure' },
    tieredStorageDetected: { stay: 'recordFailure' },
  },
} as const satisfies EventTable

/**
 * Where `previousState` leads from FAILED. A partition that failed before it ever had a state starts
 * over in PREPARING; one that failed in STOPPED (lifting the read-only flag) replays STOPPING, whose
 * steps are idempotent and end by entering STOPPED again (FAILED → STOPPED itself is not valid).
 */
export const RETRY_TARGETS = {
  UNKNOWN: 'PREPARING',
  PREPARING: 'PREPARING',
  EPOCH_FENCING: 'EPOCH_FENCING',
  ULE_LOG_TRUNCATION: 'ULE_LOG_TRUNCATION',
  MIRRORING: 'MIRRORING',
  PAUSING: 'PAUSING',
  PAUSED: 'PAUSED',
  STOPPING: 'STOPPING',
  STOPPED: 'STOPPING',
  FAILED: 'PREPARING',
} as const satisfies Record<MirrorPartitionState, MirrorPartitionState>

function normalizeRuleSpec(spec: EventRuleSpec): readonly EventRule[] {
  if (typeof spec === 'string') return [{ to: spec }]
  if ('stay' in spec) return [spec]
  return spec
}

/** The rules for `eventType` in `state`, first match wins; empty when the table has none. */
export function rulesFor(state: MirrorPartitionState, eventType: string): readonly EventRule[] {
  const row: Partial<Record<string, EventRuleSpec>> = EVENT_TABLE[state]
  // Event names arrive from the outside world; hasOwn keeps 'constructor' or 'toString' from matching.
  if (!Object.hasOwn(row, eventType)) return []
  const spec = row[eventType]
  return spec === undefined ? [] : normalizeRuleSpec(spec)
}

/** Events the table accepts in `state` (some only when their guard passes). */
export function allowedEvents(state: MirrorPartitionState): readonly MirrorEventType[] {
  return MIRROR_EVENT_TYPES.filter((type) => rulesFor(state, type).length > 0)
}

/**
 * The operator's events, each with the command that sends it (state-metadata.ts's EVENT_METADATA marks them `origin: 'operator'`).
 * `delete` is not an event: it removes STOPPED partitions' records.
 */
export const OPERATOR_EVENTS = {
  start: 'startRequested',
  stop: 'stopRequested',
  pause: 'pauseRequested',
  resume: 'resumeRequested',
  recover: 'recoverRequested',
} as const satisfies Record<string, MirrorEventType>

/**
 * The rules by which `eventType` moves a partition out of `state` (re-entry and stay rules left out): what
 * an operator command does there. Empty when the event leaves the partition where it is.
 */
export function leavingRules(state: MirrorPartitionState, eventType: MirrorEventType): readonly TransitionRule[] {
  return rulesFor(state, eventType).filter((rule): rule is TransitionRule => 'to' in rule && rule.to !== state)
}

/** States an event moves a partition out of, some only when the rule's guard passes, in state order. */
export function statesLeftBy(eventType: MirrorEventType): readonly MirrorPartitionState[] {
  return MIRROR_PARTITION_STATES.filter((state) => leavingRules(state, eventType).length > 0)
}

/** States from which some event leads to FAILED: the values `previousState` can hold while FAILED. */
export function failureSourceStates(): readonly MirrorPartitionState[] {
  return MIRROR_PARTITION_STATES.filter((state) =>
    MIRROR_EVENT_TYPES.some((type) => rulesFor(state, type).some((rule) => 'to' in rule && rule.to === 'FAILED')),
  )
}

/**
 * Every state a rule can lead to from `state`. A `stay` rule leads to `state` itself; `previousState`
 * leads to any retry target of a state that can fail, and to MIRRORING (a fencing retry whose bump
 * target was lost falls back to MIRRORING, where the fetcher re-detects the epoch).
 */
export function possibleTargets(state: MirrorPartitionState, rule: EventRule): readonly MirrorPartitionState[] {
  if ('stay' in rule) return [state]
  if (rule.to !== 'previousState') return [rule.to]
  const targets = new Set<MirrorPartitionState>(failureSourceStates().map((source) => RETRY_TARGETS[source]))
  targets.add('MIRRORING')
  return MIRROR_PARTITION_STATES.filter((candidate) => targets.has(candidate))
}
