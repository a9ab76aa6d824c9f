import 'server-only'
import { isRetryable } from '@/lib/mirror/guards'
import { rulesFor } from '@/lib/mirror/states'
import type { MirrorPartitionValue } from '@/lib/mirror/transition'

/**
 * Where a partition stands in a failover, read from its own persisted state alone. This is what lets an
 * operation be rebuilt after a crash without having written its progress: `__mirror_state` holds each
 * partition's state, stateEpoch and STOPPING step, written before the partition acts.
 *
 *   stopped     STOPPED: done.
 *   stopping    STOPPING, or FAILED out of STOPPING/STOPPED with retries left: the stop goes on by itself
 *               (a restart resumes STOPPING at its persisted step; a retry re-enters it).
 *   failed      FAILED out of STOPPING/STOPPED for good: only an operator can take it further.
 *   notStopped  anything else: the stop has not reached it (or it refused the stop).
 */
export type StopProgress = 'stopped' | 'stopping' | 'failed' | 'notStopped'

export type PartitionStopView = Pick<MirrorPartitionValue, 'state' | 'previousState' | 'retryAttempt' | 'stateEpoch'>

export function stopProgressOf(value: PartitionStopView): StopProgress {
  switch (value.state) {
    case 'STOPPED':
      return 'stopped'
    case 'STOPPING':
      return 'stopping'
    case 'FAILED':
      if (value.previousState !== 'STOPPING' && value.previousState !== 'STOPPED') return 'notStopped'
      return isRetryable(value) ? 'stopping' : 'failed'
    default:
      return 'notStopped'
  }
}

/**
 * Whether a restart must send the stop again to a partition of an unfinished operation. Cases:
 * - STOPPING or STOPPED: no; the partition's own restore finishes (or has finished) the sequence.
 * - a state the table lets no stop into (UNKNOWN): no; it is restored as any other, and the operation
 *   reports it not stopped.
 * - stateEpoch unchanged since the operation was accepted: yes; the stop never reached it, whatever state
 *   it was in (a partition FAILED out of an earlier stop included).
 * - otherwise: yes unless it is FAILED out of this stop (retries, or an operator, take it from there).
 *   Its stop cannot have finished and been undone meanwhile: partitions of a running operation cannot be
 *   started again (MirrorEngine.startTopics refuses).
 */
export function shouldStopAfterRestart(value: PartitionStopView, acceptedStateEpoch: number): boolean {
  if (value.state === 'STOPPING' || value.state === 'STOPPED') return false
  if (rulesFor(value.state, 'stopRequested').length === 0) return false
  if (value.stateEpoch === acceptedStateEpoch) return true
  return stopProgressOf(value) === 'notStopped'
}

/** A partition that is settled for its operation: nothing will change it without an operator. */
export function isSettled(progress: StopProgress): boolean {
  return progress === 'stopped' || progress === 'failed'
}
