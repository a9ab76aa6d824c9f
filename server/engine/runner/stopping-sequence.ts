import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import { planStoppingAction, STOPPING_STEPS, stepNeedsObservation, type StoppingAction, type StoppingObservation, type StoppingStep } from '@/lib/mirror/stopping'
import type { MirrorHost, TopicPartition } from '@/server/cluster/ports'
import { changePartition } from '../state/partition-changes'
import type { PartitionRuntime } from '../types'

/** What the STOPPING sequence acts on: the destination and the runner's hooks. */
export interface StoppingSequenceEnvironment {
  host: MirrorHost
  /** Fault injection (tests, demo): called around each STOPPING action; may kill the process. */
  onStoppingAction?(phase: 'beforeAction' | 'afterAction', step: StoppingStep, topicPartition: TopicPartition): void | Promise<void>
  /** The partition left the fetcher: a waiting fetch round lets go of it. */
  fetcherChanged(): void
  /** Writes the step records dispatched with `deferPersist` that are not durable yet. */
  persistDeferred(): Promise<void>
  /**
   * Lifts the switchover fences this failover supersedes on the partition's topic (a failback's, lib/failover
   * fencesLiftedByFailover); idempotent. Called before STOPPED is recorded, so a crash before it is retried.
   */
  liftWriteFences?(topic: string): Promise<void>
}

/** The actions that change the destination log: every step recorded before them must be durable first. */
const LOG_ACTIONS: ReadonlySet<StoppingAction['kind']> = new Set(['bumpLeaderEpoch', 'appendAbortMarkers', 'appendPidReset'])

/**
 * Actions after which the next step plans from the same observation: they change neither the destination log
 * nor its metadata, and the partition's lock keeps everything else off a read-only topic's log meanwhile.
 * Not removeFetcher: an append it stops could have been answered just before (the position is read after it).
 * Observing at every step was six describes, epoch and transaction reads per partition, 60,000 for a failover
 * of 10,000.
 */
const OBSERVATION_KEEPING_ACTIONS: ReadonlySet<StoppingAction['kind']> = new Set(['persistPosition', 'skip'])

/** More rounds than steps: a step that does not converge is a bug, not a slow log. */
const MAX_STOPPING_ROUNDS = 16

/**
 * STOPPING (DESIGN.md §4), the failover's sequence for one partition: removeFetcher, persistPosition,
 * bumpEpoch, abortTransactions, pidReset, done. Each step is planned (lib/mirror/stopping.ts) from what the
 * log holds now and the persisted progress, executed, then recorded as done with a `stoppingStepCompleted`
 * event the runner persists; a crash between two of these resumes at the right step without writing any
 * marker twice. The runner calls this for the table's `runStoppingSequence` effect, the partition's lock held.
 *
 * Records, batched: a step whose action changed nothing durable (removeFetcher, persistPosition, a skip, and
 * a step whose marker is already in the log) is recorded in memory and written with the next record, which is
 * always written before the next action that changes the log (LOG_ACTIONS) and at the latest by STOPPED. So
 * the position is durable before the epoch is bumped or any marker appended (KIP-1279.md §4.1 step 2); a
 * crash before that record recaptures it from a log nothing was appended to since the fetcher left. Replayed
 * from an earlier record, the planner finds such a step done from the log again. A usual partition (no open
 * transaction, epoch already above) writes three records (STOPPING, the steps before the reset, STOPPED),
 * not seven.
 *
 * Reads: none before removeFetcher and done's describe only (`stepNeedsObservation`); one observation serves
 * the steps up to pidReset while nothing changes the log; the search for a MIRROR_PID_RESET only when the
 * sequence resumed at pidReset or later. Before that step is recorded no reset of this failover can exist:
 * the records before it are written before the reset is appended.
 */
export async function runStoppingSequence(
  env: StoppingSequenceEnvironment,
  runtime: PartitionRuntime,
  dispatch: (event: MirrorEvent, options: { deferPersist: boolean }) => Promise<unknown>,
): Promise<void> {
  const { host } = env
  const tp: TopicPartition = { topic: runtime.topic, partition: runtime.partition }
  const resumedAtReset = runtime.value.stopping !== null && STOPPING_STEPS.indexOf(runtime.value.stopping.step) >= STOPPING_STEPS.indexOf('pidReset')
  // The last observation, while nothing can have changed what it saw (see OBSERVATION_KEEPING_ACTIONS).
  let kept: StoppingObservation | null = null
  for (let round = 0; round < MAX_STOPPING_ROUNDS; round++) {
    const progress = runtime.value.stopping
    if (progress === null) throw new Error('STOPPING without progress')
    let observation: StoppingObservation | null = null
    if (stepNeedsObservation(progress.step)) {
      observation = kept ?? (await observeForStopping(host, runtime))
      if (progress.step === 'pidReset' && resumedAtReset) {
        // A log that was empty at the stop recorded (-1, -1); its reset, if written, is at or after offset 0.
        const searchFrom = Math.max(progress.lastMirrorPosition?.offset ?? 0, 0)
        observation = { ...observation, pidResetOffset: await host.findControlRecord(tp, 'MIRROR_PID_RESET', searchFrom) }
      }
    }
    const action = planStoppingAction(progress, observation)
    kept = OBSERVATION_KEEPING_ACTIONS.has(action.kind) ? observation : null
    if (action.kind === 'complete') {
      // The topic is about to be declared writable here: a fence left on it by the switchover this failover
      // reverses would refuse its clients for good. Lifted first, so STOPPED is never recorded over a fence.
      await env.liftWriteFences?.(tp.topic)
      refreshDestination(runtime, await host.describePartition(tp))
      return
    }
    if (LOG_ACTIONS.has(action.kind)) await env.persistDeferred()
    // A fault injection may hold the step here (an instance killed mid-STOPPING: server/ha/ha-failover-handover.integration.test.ts).
    const before = env.onStoppingAction?.('beforeAction', action.step, tp)
    if (before) await before
    // persistPosition and skip act on nothing: the position is persisted by the step's completion below, in the
    // partition's state record, before the bump (KIP-1279.md §4.1 step 2); that record is what replay, the
    // failback lookup and DescribeClusterMirrors read, so a separate position record would have no reader.
    switch (action.kind) {
      case 'removeFetcher':
        changePartition(runtime, { fetching: false })
        env.fetcherChanged()
        break
      case 'bumpLeaderEpoch':
        changePartition(runtime, { destinationLeaderEpoch: await host.bumpLeaderEpoch(tp, action.minimumEpoch) })
        break
      case 'appendAbortMarkers':
        await host.appendAbortMarkers(tp, action.transactions.map(({ producerId, producerEpoch }) => ({ producerId, producerEpoch })))
        break
      case 'appendPidReset':
        await host.appendMirrorPidReset(tp)
        break
    }
    const after = env.onStoppingAction?.('afterAction', action.step, tp)
    if (after) await after
    if (action.completesStep) {
      const completion = action.kind === 'persistPosition' ? { step: action.step, lastMirrorPosition: action.lastMirrorPosition } : { step: action.step }
      // An in-state update: no transition, so no reason of its own in the history.
      await dispatch({ type: 'stoppingStepCompleted', ...completion }, { deferPersist: true })
    }
  }
  throw new Error('the failover sequence did not converge')
}

/** What the next step is planned from: the destination log as it is now (after a crash, whatever landed). */
async function observeForStopping(host: MirrorHost, runtime: PartitionRuntime): Promise<StoppingObservation> {
  const tp: TopicPartition = { topic: runtime.topic, partition: runtime.partition }
  const [description, latestEpoch, openTransactions] = await Promise.all([host.describePartition(tp), host.latestEpoch(tp), host.openTransactions(tp)])
  refreshDestination(runtime, description)
  return { latestEpoch, logEndOffset: description.logEndOffset, leaderEpoch: description.leaderEpoch, openTransactions, pidResetOffset: null }
}

/** The destination's high watermark, log end and leader epoch as just described. */
export function refreshDestination(runtime: PartitionRuntime, description: { highWatermark: number; logEndOffset: number; leaderEpoch: number }): void {
  changePartition(runtime, { destinationHighWatermark: description.highWatermark, destinationLogEndOffset: description.logEndOffset, destinationLeaderEpoch: description.leaderEpoch })
}
