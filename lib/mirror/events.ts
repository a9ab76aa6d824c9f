/**
 * Events the partition state machine accepts: past-tense facts reported by the engine, requests made
 * by an operator, and the retry timer. Each carries what its rule needs, so `transition` stays pure.
 */
import type { FailureCode } from './failure-code'
import type { MirrorPartitionValue } from './partition'
import type { MirrorEventType } from './states'
import type { StoppingStepCompletion } from './stopping'
import type { AlignmentTruncationInput, DivergenceTruncationInput, TruncationReason } from './truncation'

interface EventBase {
  /**
   * The partition's stateEpoch when the work that produced this event was started. When present and
   * different from the current stateEpoch the event is stale (the partition moved on) and is ignored.
   */
  readonly expectedStateEpoch?: number
}

export type MirrorEvent = EventBase &
  (
    | { readonly type: 'startRequested' }
    /** The source answered the last mirror position lookup; carries what `decideTruncation` needs. */
    | ({ readonly type: 'lastMirrorPositionFound' } & AlignmentTruncationInput)
    /** The leader and every in-sync replica hold the truncated log. */
    | {
        readonly type: 'truncationCompleted'
        /** The log end offset after truncation. */
        readonly offset: number
        readonly recordsRemoved: number
        readonly reason: TruncationReason
      }
    | { readonly type: 'mirrorLoopDetected'; readonly detail?: string }
    /** A fetched batch was not appended: its epoch is above the destination leader epoch. */
    | {
        readonly type: 'batchEpochExceeded'
        readonly batchEpoch: number
        readonly leaderEpoch: number
        /** The source partition's current leader epoch, when known (bumps then cover it too). */
        readonly sourceLeaderEpoch?: number
      }
    /** A batch epoch or the source leader epoch (periodic sync) came near the destination leader epoch. */
    | { readonly type: 'epochBumpThresholdReached'; readonly observedEpoch: number; readonly leaderEpoch: number }
    /** Metadata shows this destination leader epoch. */
    | { readonly type: 'epochBumpCompleted'; readonly leaderEpoch: number }
    /** The source reported a diverging epoch; carries what `decideDivergingEpochTruncation` needs. */
    | ({ readonly type: 'divergenceDetected' } & DivergenceTruncationInput)
    | { readonly type: 'replicasConverged' }
    | { readonly type: 'fetchSucceeded' }
    | { readonly type: 'pauseRequested' }
    | { readonly type: 'fetcherRemoved' }
    | { readonly type: 'resumeRequested' }
    | { readonly type: 'stopRequested' }
    | ({ readonly type: 'stoppingStepCompleted' } & StoppingStepCompletion)
    | { readonly type: 'stopCompleted' }
    /** `code`: why, as the engine keeps it on the FAILED partition (failure-code.ts); the table reads only `retryable`. */
    | { readonly type: 'failed'; readonly error: string; readonly retryable: boolean; readonly code?: FailureCode }
    | { readonly type: 'retryDue' }
    | { readonly type: 'recoverRequested' }
    | { readonly type: 'sourceTopicDeleted' }
    | { readonly type: 'sourceClusterIdChanged'; readonly expectedClusterId?: string; readonly actualClusterId?: string }
    | { readonly type: 'tieredStorageDetected' }
    /** Another writer's stored record, taken after a fenced write: adoption.ts applies it, no rule of the table does. */
    | { readonly type: 'storedStateAdopted'; readonly stored: MirrorPartitionValue }
  )

export type MirrorEventOf<T extends MirrorEventType> = Extract<MirrorEvent, { readonly type: T }>

// The event union and the table's event names must list the same events.
const eventUnionCoversTable: [Exclude<MirrorEventType, MirrorEvent['type']>] extends [never] ? true : false = true
const tableCoversEventUnion: [Exclude<MirrorEvent['type'], MirrorEventType>] extends [never] ? true : false = true
void eventUnionCoversTable
void tableCoversEventUnion
