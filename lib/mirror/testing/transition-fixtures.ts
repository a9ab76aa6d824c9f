import { expect } from 'vitest'
import { DEFAULT_RETRY_CONFIG } from '../constants'
import type { MirrorEvent, MirrorEventOf } from '../events'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from '../partition'
import type { MirrorEventType, MirrorPartitionState } from '../states'
import { transition, type MirrorEffect, type TransitionContext, type TransitionResult } from '../transition'

/** Events, partitions and helpers the transition table's tests share (transition.test.ts, transition-retries.test.ts). */

export const NOW = 1_764_400_000_000

export function context(overrides: Partial<TransitionContext> = {}): TransitionContext {
  return {
    now: NOW,
    retryConfig: DEFAULT_RETRY_CONFIG,
    random: () => 0.5,
    mirrorSupportUncleanLeaderElection: true,
    ...overrides,
  }
}

export const SAMPLE_EVENTS: { readonly [T in MirrorEventType]: MirrorEventOf<T> } = {
  startRequested: { type: 'startRequested' },
  lastMirrorPositionFound: {
    type: 'lastMirrorPositionFound',
    lastMirrorPosition: { epoch: 2, offset: 3 },
    localEndOffsetForEpoch: { epoch: 2, offset: 6 },
    logStartOffset: 0,
    logEndOffset: 6,
    sourceLogStartOffset: 0,
  },
  truncationCompleted: { type: 'truncationCompleted', offset: 3, recordsRemoved: 3, reason: 'failback' },
  mirrorLoopDetected: { type: 'mirrorLoopDetected' },
  batchEpochExceeded: { type: 'batchEpochExceeded', batchEpoch: 8, leaderEpoch: 7 },
  epochBumpThresholdReached: { type: 'epochBumpThresholdReached', observedEpoch: 5, leaderEpoch: 7 },
  epochBumpCompleted: { type: 'epochBumpCompleted', leaderEpoch: 18 },
  divergenceDetected: {
    type: 'divergenceDetected',
    divergingEpoch: { epoch: 4, offset: 90 },
    localEndOffsetForEpoch: { epoch: 4, offset: 95 },
    logStartOffset: 0,
    logEndOffset: 100,
  },
  replicasConverged: { type: 'replicasConverged' },
  fetchSucceeded: { type: 'fetchSucceeded' },
  pauseRequested: { type: 'pauseRequested' },
  fetcherRemoved: { type: 'fetcherRemoved' },
  resumeRequested: { type: 'resumeRequested' },
  stopRequested: { type: 'stopRequested' },
  stoppingStepCompleted: { type: 'stoppingStepCompleted', step: 'bumpEpoch' },
  stopCompleted: { type: 'stopCompleted' },
  failed: { type: 'failed', error: 'fetch failed: connection refused', retryable: true },
  retryDue: { type: 'retryDue' },
  recoverRequested: { type: 'recoverRequested' },
  sourceTopicDeleted: { type: 'sourceTopicDeleted' },
  sourceClusterIdChanged: { type: 'sourceClusterIdChanged' },
  tieredStorageDetected: { type: 'tieredStorageDetected' },
  storedStateAdopted: { type: 'storedStateAdopted', stored: withChanges(createMirrorPartition(NOW), { state: 'PAUSED', stateEpoch: 9 }) },
}

export function partitionIn(state: MirrorPartitionState, patch: Partial<MirrorPartitionValue> = {}): MirrorPartitionValue {
  return withChanges(createMirrorPartition(NOW - 5000), { state, stateEpoch: 4, previousState: 'PREPARING', ...patch })
}

/** One representative partition per state, set up so that guarded rules can pass. */
export const SAMPLE_PARTITIONS: Record<MirrorPartitionState, MirrorPartitionValue> = {
  UNKNOWN: createMirrorPartition(NOW - 5000),
  PREPARING: partitionIn('PREPARING', { previousState: 'UNKNOWN' }),
  EPOCH_FENCING: partitionIn('EPOCH_FENCING', { previousState: 'MIRRORING', requestedLeaderEpoch: 18 }),
  ULE_LOG_TRUNCATION: partitionIn('ULE_LOG_TRUNCATION', { previousState: 'MIRRORING' }),
  MIRRORING: partitionIn('MIRRORING', { retryAttempt: 2, error: 'fetch failed' }),
  PAUSING: partitionIn('PAUSING', { previousState: 'MIRRORING' }),
  PAUSED: partitionIn('PAUSED', { previousState: 'PAUSING' }),
  STOPPING: partitionIn('STOPPING', {
    previousState: 'MIRRORING',
    stopping: { step: 'bumpEpoch', lastMirrorPosition: { epoch: 3, offset: 100 } },
  }),
  STOPPED: partitionIn('STOPPED', {
    previousState: 'STOPPING',
    stopping: { step: 'done', lastMirrorPosition: { epoch: 3, offset: 100 } },
    lastMirrorPosition: { epoch: 3, offset: 100 },
  }),
  FAILED: partitionIn('FAILED', { previousState: 'MIRRORING', retryAttempt: 1, error: 'fetch failed' }),
}


export function expectIgnored(result: TransitionResult, partition: MirrorPartitionValue, reason: string): void {
  expect(result).toEqual({ outcome: 'ignored', changed: false, reason, next: partition, effects: [] })
  expect(result.next).toBe(partition)
}

export function kinds(effects: readonly MirrorEffect[]): string[] {
  return effects.map((effect) => effect.kind)
}

export function run(partition: MirrorPartitionValue, events: readonly MirrorEvent[], ctx = context()): MirrorPartitionValue {
  return events.reduce((current, event) => transition(current, event, ctx).next, partition)
}
