import { LEADER_EPOCH_BUMP_THRESHOLD } from './constants'
import type { MirrorEventType, MirrorPartitionState } from './states'

/**
 * What the UI says about each state and event of the transition table (lib/mirror/states.ts): labels, KIP
 * wording and descriptions. Apart from the table so that the table stays one screen of data; every state and
 * event must have an entry (`satisfies`), so the two cannot drift apart.
 */

export interface StateMetadata {
  readonly label: string
  readonly description: string
  /** Other names the KIP and the prototype use for the state: accepted wherever a state is named (parseMirrorPartitionState). */
  readonly synonyms: readonly string[]
  /**
   * The state's name in KIP-1279 as voted (Sept 2026) and in the prototype's server-common enum, which Apache
   * Kafka's documentation will use. Ours, the API's, are the names of the excerpt the engine was built from
   * (KIP-1279.md §2.1); three differ. Shown beside ours wherever a state is explained.
   */
  readonly kipName: string
  /** Mirroring has ended here: the partition is an ordinary writable partition. */
  readonly terminal: boolean
  /** An operator should look: the partition is not making progress on its own. */
  readonly attention: boolean
  /** Passed through on the way to another state; a partition that stays long is stuck. */
  readonly transient: boolean
  /** Clients may not produce to, delete records from, or repartition the topic. */
  readonly readOnly: boolean
}

export const STATE_METADATA = {
  UNKNOWN: {
    label: 'Unknown',
    description: 'No state recorded yet: the partition has not been started or its state is still loading.',
    synonyms: [],
    kipName: 'UNKNOWN',
    terminal: false,
    attention: false,
    transient: true,
    readOnly: true,
  },
  PREPARING: {
    label: 'Preparing',
    description:
      'Looking up the last mirror position on the source and truncating the local log to the common history before fetching.',
    synonyms: ['LOG_ALIGNMENT'],
    kipName: 'LOG_ALIGNMENT',
    terminal: false,
    attention: false,
    transient: true,
    readOnly: true,
  },
  EPOCH_FENCING: {
    label: 'Epoch fencing',
    description:
      'A fetched batch carries a leader epoch above the destination leader epoch; raising the destination epoch before appending it.',
    synonyms: [],
    kipName: 'EPOCH_FENCING',
    terminal: false,
    attention: false,
    transient: true,
    readOnly: true,
  },
  ULE_LOG_TRUNCATION: {
    label: 'Unclean election recovery',
    description:
      'The source history changed (unclean leader election); truncating to the divergence point and waiting for every replica to converge.',
    synonyms: ['ULE_RECOVERY'],
    kipName: 'ULE_RECOVERY',
    terminal: false,
    attention: false,
    transient: true,
    readOnly: true,
  },
  MIRRORING: {
    label: 'Mirroring',
    description: 'Fetching from the source and appending batches unchanged, at the same offsets.',
    synonyms: [],
    kipName: 'MIRRORING',
    terminal: false,
    attention: false,
    transient: false,
    readOnly: true,
  },
  PAUSING: {
    label: 'Pausing',
    description: 'Removing the fetcher; the partition stays read-only.',
    synonyms: [],
    kipName: 'PAUSING',
    terminal: false,
    attention: false,
    transient: true,
    readOnly: true,
  },
  PAUSED: {
    label: 'Paused',
    description: 'No fetcher and no metadata sync; resuming continues from the log end offset without truncation.',
    synonyms: [],
    kipName: 'PAUSED',
    terminal: false,
    attention: false,
    transient: false,
    readOnly: true,
  },
  STOPPING: {
    label: 'Stopping',
    description:
      'Failing over: removing the fetcher, recording the last mirror position, raising the leader epoch, aborting open transactions and resetting producer state.',
    synonyms: [],
    kipName: 'STOPPING',
    terminal: false,
    attention: false,
    transient: true,
    readOnly: true,
  },
  STOPPED: {
    label: 'Stopped',
    description: 'Mirroring has ended; the topic is writable on this cluster.',
    synonyms: [],
    kipName: 'STOPPED',
    terminal: true,
    attention: false,
    transient: false,
    readOnly: false,
  },
  FAILED: {
    label: 'Failed',
    description:
      'An error stopped this partition; it retries with backoff unless the failure is non-retryable, which needs an operator to recover it.',
    synonyms: [],
    kipName: 'FAILED',
    terminal: false,
    attention: true,
    transient: false,
    readOnly: true,
  },
} as const satisfies Record<MirrorPartitionState, StateMetadata>

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
  storedStateAdopted: {
    label: 'stored state adopted',
    description: "A state write was fenced: another writer's record in __mirror_state is authoritative and replaces what the engine held.",
    origin: 'engine',
  },
} as const satisfies Record<MirrorEventType, EventMetadata>
