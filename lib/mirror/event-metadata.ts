/**
 * What each event of the transition table (lib/mirror/states.ts) means, for people: its label on the state
 * graph's edges and its origin (an operator's request, the engine's observation, a timer). Kept apart from the
 * table, which the engine reads; `satisfies` makes a new event fail to compile until it is described here.
 */
import { LEADER_EPOCH_BUMP_THRESHOLD } from './constants'
import type { MirrorEventType } from './states'

export type EventOrigin = 'operator' | 'engine' | 'timer'

export interface EventMetadata {
  readonly label: string
  readonly description: string
  readonly origin: EventOrigin
}

export const EVENT_METADATA = {
  startRequested: {
    label: 'start',
    description: 'The operator asked for the partition to be mirrored (also failback).',
    origin: 'operator',
  },
  lastMirrorPositionFound: {
    label: 'last mirror position found',
    description: 'The source answered the last mirror position lookup; the truncation point can be decided.',
    origin: 'engine',
  },
  truncationCompleted: {
    label: 'truncated',
    description: 'The leader and every in-sync replica hold the truncated log.',
    origin: 'engine',
  },
  mirrorLoopDetected: {
    label: 'mirror loop',
    description: 'The source is itself mirroring this topic from this cluster.',
    origin: 'engine',
  },
  batchEpochExceeded: {
    label: 'batch epoch above leader epoch',
    description: 'A fetched batch carries a leader epoch above the destination leader epoch; it was not appended.',
    origin: 'engine',
  },
  epochBumpThresholdReached: {
    label: 'epoch headroom low',
    description: `A source epoch came within ${LEADER_EPOCH_BUMP_THRESHOLD} of the destination leader epoch; a bump is requested proactively.`,
    origin: 'engine',
  },
  epochBumpCompleted: {
    label: 'epoch raised',
    description: 'Metadata shows the destination leader epoch at or above the requested minimum.',
    origin: 'engine',
  },
  divergenceDetected: {
    label: 'divergence detected',
    description: 'The source returned a diverging epoch: its history changed under the mirrored data.',
    origin: 'engine',
  },
  replicasConverged: {
    label: 'replicas converged',
    description: 'Every destination replica holds the truncated log.',
    origin: 'engine',
  },
  fetchSucceeded: {
    label: 'fetch succeeded',
    description: 'A fetch was appended; earlier failure details are cleared.',
    origin: 'engine',
  },
  pauseRequested: {
    label: 'pause',
    description: 'The operator asked for the partition to be paused.',
    origin: 'operator',
  },
  fetcherRemoved: {
    label: 'fetcher removed',
    description: 'No fetch for this partition can append any more.',
    origin: 'engine',
  },
  resumeRequested: {
    label: 'resume',
    description: 'The operator asked for a paused partition to resume from its log end offset.',
    origin: 'operator',
  },
  stopRequested: {
    label: 'stop (failover)',
    description: 'The operator asked for the partition to be stopped and made writable.',
    origin: 'operator',
  },
  stoppingStepCompleted: {
    label: 'stopping step done',
    description: 'One step of the STOPPING sequence completed and is recorded.',
    origin: 'engine',
  },
  stopCompleted: {
    label: 'stopped',
    description: 'Every STOPPING step completed.',
    origin: 'engine',
  },
  failed: {
    label: 'failure',
    description: 'An error stopped the partition.',
    origin: 'engine',
  },
  retryDue: {
    label: 'retry',
    description: 'The backoff after a retryable failure elapsed.',
    origin: 'timer',
  },
  recoverRequested: {
    label: 'recover',
    description: 'The operator asked for a failed partition to return to its previous state.',
    origin: 'operator',
  },
  sourceTopicDeleted: {
    label: 'source topic deleted',
    description: 'The source topic was missing on two consecutive syncs.',
    origin: 'engine',
  },
  sourceClusterIdChanged: {
    label: 'source cluster changed',
    description: 'The source answers with a different cluster id than the mirror recorded.',
    origin: 'engine',
  },
  tieredStorageDetected: {
    label: 'tiered storage enabled',
    description: 'The destination partition has remote storage enabled, which mirroring does not support.',
    origin: 'engine',
  },
} as const satisfies Record<MirrorEventType, EventMetadata>
