import 'server-only'
// Over 400 lines on purpose: the one place a partition's event becomes a transition, its state write (saved, deferred, or shown unsaved while the store does not answer) and its effects; the pieces share the runner's per-partition bookkeeping (unpersisted, persistScheduled, readOnlyWitness).
import { describeReplicaWait, replicaConvergence } from '@/lib/mirror/replica-convergence'
import { STATE_METADATA } from '@/lib/mirror/state-metadata'
import type { StoppingStep } from '@/lib/mirror/stopping'
import { effectsOnRestore, transition, type MirrorEffect, type TransitionContext } from '@/lib/mirror/transition'
import type { MirrorEvent } from '@/lib/mirror/events'
import type { FailureCode } from '@/lib/mirror/failure-code'
import type { MirrorHost, SourceCluster, TopicPartition } from '@/server/cluster/ports'
import { classifyEffectError, classifyStateWriteError, failureCodeOf } from '../failure-classification'
import { partitionStateWrite, reReadFencedPartition, type FencedReRead } from '../state/state-fencing'
import { changePartition } from '../state/partition-changes'
import { fencedEntriesOf, type MirrorStateStore } from '../state/state-store'
import type { WakeUpReason } from './partition-timer'
import { refreshDestination, runStoppingSequence } from './stopping-sequence'
import type { EngineEvent, MirrorDefinition, PartitionRuntime } from '../types'

/** What a runner needs from the engine around it. */
export interface RunnerEnvironment {
  now(): number
  /**
   * The partition has work at `at` (a retry due at retryAt; a restore after a failed state write or a
   * replica convergence to check, at the next tick): the tick wakes only such partitions, when due.
   */
  wakeUp(runtime: PartitionRuntime, reason: WakeUpReason, at: number): void
  context(mirror: MirrorDefinition, runtime: PartitionRuntime): TransitionContext
  source(mirror: MirrorDefinition): SourceCluster
  host(mirror: MirrorDefinition): MirrorHost
  store(mirror: MirrorDefinition): MirrorStateStore
  /** Partitions of the same topic in the same mirror: the read-only flag is per topic. */
  topicPartitions(mirror: MirrorDefinition, topic: string): PartitionRuntime[]
  /** The mirror's runtime of one partition, undefined when it has none. */
  partition(mirror: MirrorDefinition, topic: string, partition: number): PartitionRuntime | undefined
  /** Loop check, reverse-mirror check and last mirror position lookup (KIP-1279.md §3.4). */
  lookUpLastMirrorPosition(mirror: MirrorDefinition, runtime: PartitionRuntime): Promise<MirrorEvent>
  emit(event: EngineEvent): void
  /** Fault injection (tests, demo): called around each STOPPING action; may kill the process. */
  onStoppingAction?(phase: 'beforeAction' | 'afterAction', step: StoppingStep, topicPartition: TopicPartition): void | Promise<void>
  log(message: string, fields: Record<string, unknown>): void
  /** A partition started or stopped fetching. */
  fetcherChanged?(mirror: MirrorDefinition): void
  /** Lifts the switchover fences a failover of `mirror` supersedes on `topic` (at its destination). */
  liftWriteFences?(mirror: MirrorDefinition, topic: string): Promise<void>
}

/** A chain of follow-up events longer than this is a bug in the table, not progress. */
const MAX_CHAINED_EVENTS = 64
/** How often a FAILED shown before `__mirror_state` took it is written again while the store does not answer. */
export const UNSAVED_STATE_RETRY_MS = 1_000
/** Effects that touch no cluster: a FAILED whose other effects are only these may be shown before it is saved. */
const IN_MEMORY_EFFECTS: ReadonlySet<MirrorEffect['kind']> = new Set(['persistState', 'removeFetcher', 'scheduleRetry', 'cancelScheduledRetry'])
/** The lock of a partition nothing has queued work for yet: one object, so settle() sees it unchanged. */
const UNLOCKED: Promise<void> = Promise.resolve()

/**
 * The only place that executes the effects `transition()` returns. Every accepted transition is
 * persisted to `__mirror_state` before any other effect touches a cluster; effects run in order, and
 * an effect with `then` dispatches that event when its work is done.
 */
export class PartitionRunner {
  /**
   * Each partition's lock: serialises every change of the partition (API calls, the fetch loop and retries
   * never interleave). A scheduling matter, not partition state: kept here, not on the runtime.
   */
  private readonly locks = new WeakMap<PartitionRuntime, Promise<void>>()
  /** Lock tails not settled yet: what settle() waits for, without a walk over every partition. */
  private readonly pending = new Set<Promise<void>>()
  /**
   * Partitions whose value is ahead of their `__mirror_state` record by STOPPING steps that changed nothing
   * durable (see `persistDeferred`); the next write of the partition carries them.
   */
  private readonly unpersisted = new WeakSet<PartitionRuntime>()
  /** Partitions with a `persist` wake-up pending: one per unsaved FAILED, however often its failure is updated. */
  private readonly persistScheduled = new WeakSet<PartitionRuntime>()
  /**
   * Per mirror and topic, a partition last seen read-only: what `clearReadOnly` asks first. Every partition of a
   * stopping topic asked "are all of them stopped?" by a scan, 500,000 state reads for a 1,000-partition topic;
   * the witness answers no at once while it is still read-only, and a scan (from the end, where the partitions
   * stopped last are) only looks for the next one.
   */
  private readonly readOnlyWitness = new WeakMap<MirrorDefinition, Map<string, PartitionRuntime>>()

  constructor(private readonly env: RunnerEnvironment) {}

  /** Runs `work` with this partition's lock held, so nothing else changes the partition meanwhile. */
  withLock<T>(runtime: PartitionRuntime, work: () => Promise<T>): Promise<T> {
    const result = (this.locks.get(runtime) ?? UNLOCKED).then(work)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.locks.set(runtime, tail)
    this.pending.add(tail)
    void tail.then(() => this.pending.delete(tail))
    return result
  }

  /** Resolves once no partition has work queued, including work queued while waiting (restores, failovers, API requests). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending])
  }

  /**
   * Dispatches an event and its follow-ups; the caller holds the lock. Returns whether the first was accepted.
   * `deferPersist` (the STOPPING sequence's step records, nothing else): an in-state update of the first event
   * whose only effect is its record is applied without writing it; `persistDeferred` writes it before
   * anything touches the destination, and any later write of the partition carries it.
   */
  async dispatch(mirror: MirrorDefinition, runtime: PartitionRuntime, event: MirrorEvent, reason?: string, options: { deferPersist?: boolean } = {}): Promise<boolean> {
    const queue: Array<{ event: MirrorEvent; reason: string }> = [{ event, reason: reason ?? event.type }]
    let first = true
    let firstAccepted = false
    for (let handled = 0; queue.length > 0; handled++) {
      if (handled > MAX_CHAINED_EVENTS) throw new Error(`event chain too long for ${runtime.topic}-${runtime.partition}`)
      const next = queue.shift()!
      const followUps = await this.apply(mirror, runtime, next.event, next.reason, { deferPersist: first && options.deferPersist === true })
      if (first) firstAccepted = followUps !== null
      first = false
      if (followUps) queue.push(...followUps)
    }
    return firstAccepted
  }

  /**
   * Brings a scheduled retry forward to `at`, never later (runner/early-retries.ts): the cause it waits out is gone.
   * The retry's wake-up checks its state epoch as ever, so a partition that left FAILED meanwhile ignores it.
   */
  retryEarly(runtime: PartitionRuntime, at: number): boolean {
    if (runtime.retryAt === null || runtime.retryAt <= at) return false
    changePartition(runtime, { retryAt: at })
    this.env.wakeUp(runtime, 'retry', at)
    return true
  }

  /** Puts a partition back to work from its last durable state, as after a restart. */
  async restore(mirror: MirrorDefinition, runtime: PartitionRuntime): Promise<void> {
    await this.resume(mirror, runtime, effectsOnRestore(runtime.value, this.env.context(mirror, runtime)))
  }

  /** Effects that put a partition restored from `__mirror_state` back to work (no persisting: nothing changed). */
  async resume(mirror: MirrorDefinition, runtime: PartitionRuntime, effects: readonly MirrorEffect[]): Promise<void> {
    const followUps = await this.runEffects(mirror, runtime, effects)
    for (const followUp of followUps) await this.dispatch(mirror, runtime, followUp.event, followUp.reason)
  }

  /**
   * Writes the record that `dispatch(..., { deferPersist: true })` left out, if any: the partition's value as
   * it is now. The STOPPING sequence calls it before each action that changes the destination log, so what
   * the log shows is never ahead of a recorded step the action depends on. Throws when the write fails.
   */
  async persistDeferred(mirror: MirrorDefinition, runtime: PartitionRuntime): Promise<void> {
    if (!this.unpersisted.has(runtime)) return
    // In-state updates keep the stateEpoch: the stored record's epoch is the one this write expects.
    await this.env.store(mirror).write([partitionStateWrite(mirror, runtime, runtime.value, runtime.failureCode)])
    this.unpersisted.delete(runtime)
  }

  private async apply(
    mirror: MirrorDefinition,
    runtime: PartitionRuntime,
    event: MirrorEvent,
    reason: string,
    { afterFencing = false, deferPersist = false }: { afterFencing?: boolean; deferPersist?: boolean } = {},
  ): Promise<Array<{ event: MirrorEvent; reason: string }> | null> {
    const ctx = this.env.context(mirror, runtime)
    const result = transition(runtime.value, event, ctx)
    if (result.outcome === 'ignored') {
      // 'noChange' is the partition already being what the event asks for: the syncs say it again every
      // interval to a FAILED partition, and logging each one buried the server's log (one line a second).
      if (result.reason !== 'noChange') this.env.log('event ignored', { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, state: runtime.value.state, event: event.type, why: result.reason })
      return null
    }
    const from = runtime.value.state
    const effects = result.effects
    const failureCode = nextFailureCode(runtime, result.next, event)
    let durable = runtime.stateDurable
    if (deferPersist && result.outcome === 'updated' && effects.length === 1 && effects[0]?.kind === 'persistState') {
      // A STOPPING step that changed nothing durable: a crash before its record plans the step again from the
      // log and finds it done. Seven records per partition made a 10,000-partition failover write 70,000.
      this.unpersisted.add(runtime)
    } else if (effects[0]?.kind === 'persistState') {
      // Durable before anything else happens: a crash after this point replays into the new state.
      try {
        await this.env.store(mirror).write([partitionStateWrite(mirror, runtime, result.next, failureCode)])
        // The record holds the whole value, deferred steps included, and supersedes a FAILED not saved.
        this.unpersisted.delete(runtime)
        durable = true
      } catch (error) {
        if (!afterFencing && fencedEntriesOf(error) !== null) {
          // A stale writer (KIP-1279.md §5.3): the stored state is authoritative; decide the event again from it, once.
          const changed = this.adopt(mirror, runtime, await reReadFencedPartition(this.env.store(mirror), this.env.host(mirror), mirror, runtime))
          this.env.log('state write fenced; re-read', { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, event: event.type, error: String(error), storedState: runtime.value.state, stateEpoch: runtime.value.stateEpoch })
          const followUps = await this.apply(mirror, runtime, event, reason, { afterFencing: true })
          // The event no longer applies to the stored state: that state's own work resumes on the next tick.
          if (followUps === null && changed) {
            changePartition(runtime, { needsRestore: true })
            this.env.wakeUp(runtime, 'restore', this.env.now())
          }
          return followUps
        }
        const fields = { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, event: event.type, error: String(error) }
        if (isShowableUnsaved(result.next, effects)) {
          // The store (the destination, or its disk) does not answer, so nothing here can be made durable; yet
          // an operator must see the FAILED and why, not the last saved MIRRORING. Nothing acts on FAILED for
          // safety and its effects touch no cluster, so it is applied and shown, marked not saved, and written
          // as soon as the store answers (or superseded by the next transition's record). A restart meanwhile
          // resumes from the saved state.
          durable = false
          this.schedulePersist(runtime)
          this.env.log('state write failed; FAILED shown, not saved yet', fields)
        } else if (event.type === 'retryDue' && runtime.value.state === 'FAILED') {
          // A retry that cannot be recorded did not happen: one more failed attempt (counted, backed off, shown),
          // not the same attempt again every tick.
          this.env.log('state write failed; retry not recorded', fields)
          return [{ event: { type: 'failed', ...classifyStateWriteError(error) }, reason: 'retry could not be recorded' }]
        } else {
          // Nothing happened: the partition stays in its last durable state, whose effects the engine
          // runs again on its next tick (as after a restart).
          changePartition(runtime, { needsRestore: true })
          this.env.wakeUp(runtime, 'restore', this.env.now())
          this.env.log('state write failed', fields)
          return null
        }
      }
    }
    if (result.outcome === 'transitioned') {
      // The retry the effects below will schedule, said with the transition (the effects run after its event).
      const retry = effects.find((effect) => effect.kind === 'scheduleRetry')
      const nextRetryAt = retry === undefined ? null : this.env.now() + retry.delayMs
      this.recordTransition(mirror, runtime, from, result.to, result.next, failureCode, reason, durable, nextRetryAt)
    }
    else changePartition(runtime, { value: result.next, failureCode, stateDurable: durable })
    return this.runEffects(mirror, runtime, effects)
  }

  /**
   * Writes a FAILED that was shown before the store took it (PartitionRuntime.stateDurable); the caller holds
   * the lock. While the store still does not answer, it is tried again later; a newer record of another
   * writer (fenced) is the partition's state from then on, as after a restart.
   */
  async persistUnsavedState(mirror: MirrorDefinition, runtime: PartitionRuntime): Promise<void> {
    this.persistScheduled.delete(runtime)
    if (runtime.stateDurable) return
    const fields = { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, state: runtime.value.state }
    try {
      await this.env.store(mirror).write([partitionStateWrite(mirror, runtime, runtime.value, runtime.failureCode)])
    } catch (error) {
      if (fencedEntriesOf(error) !== null) {
        const reRead = await reReadFencedPartition(this.env.store(mirror), this.env.host(mirror), mirror, runtime).catch(() => undefined)
        if (reRead !== undefined) {
          const changed = this.adopt(mirror, runtime, reRead)
          this.env.log('unsaved state fenced; re-read', { ...fields, error: String(error), storedState: runtime.value.state })
          changePartition(runtime, { stateDurable: true, ...(changed ? { needsRestore: true } : {}) })
          if (changed) this.env.wakeUp(runtime, 'restore', this.env.now())
          return
        }
      }
      this.schedulePersist(runtime)
      this.env.log('state write failed; FAILED still not saved', { ...fields, error: String(error) })
      return
    }
    this.unpersisted.delete(runtime)
    changePartition(runtime, { stateDurable: true })
    const { state, stateEpoch } = runtime.value
    // Not a transition: the notice that what was shown is now saved (clients refetch the partition).
    this.env.emit({ type: 'partition', mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, from: state, to: state, at: this.env.now(), reason: 'state saved', stateEpoch, stateDurable: true })
    this.env.log('unsaved state written', fields)
  }

  private schedulePersist(runtime: PartitionRuntime): void {
    if (this.persistScheduled.has(runtime)) return
    this.persistScheduled.add(runtime)
    this.env.wakeUp(runtime, 'persist', this.env.now() + UNSAVED_STATE_RETRY_MS)
  }

  /**
   * Takes the stored record read back after a fenced write (lib/mirror/adoption.ts): a state that moved is a
   * transition in the history and on the stream like any other. Returns whether the stored state differs from
   * what the runtime held (its work must then be restored).
   */
  private adopt(mirror: MirrorDefinition, runtime: PartitionRuntime, reRead: FencedReRead | null): boolean {
    if (reRead === null) return false
    const { adoption, failureCode } = reRead
    if (adoption.outcome === 'transitioned') this.recordTransition(mirror, runtime, adoption.from, adoption.to, adoption.next, failureCode, adoption.reason, true, null)
    else changePartition(runtime, { value: adoption.next, failureCode, stateDurable: true })
    return adoption.outcome !== 'unchanged'
  }

  /** The new value and its history entry in one change, then the engine event. */
  private recordTransition(
    mirror: MirrorDefinition,
    runtime: PartitionRuntime,
    from: PartitionRuntime['value']['state'],
    to: PartitionRuntime['value']['state'],
    value: PartitionRuntime['value'],
    failureCode: FailureCode | null,
    reason: string,
    durable: boolean,
    nextRetryAt: number | null,
  ): void {
    const at = value.stateSince
    const { error, retryAttempt } = value
    // The failure details go with the transition: the partition itself keeps only the last one.
    const transition = {
      from,
      to,
      at,
      reason,
      ...(to === 'FAILED' && error !== null ? { error } : {}),
      ...(retryAttempt !== 0 ? { retryAttempt } : {}),
    }
    changePartition(runtime, { value, failureCode, transition, stateDurable: durable })
    this.env.emit({
      type: 'partition',
      mirror: mirror.name,
      topic: runtime.topic,
      partition: runtime.partition,
      from,
      to,
      at,
      reason,
      stateEpoch: runtime.value.stateEpoch,
      // The row's failure details as GET .../partitions has them, so a table patched from this event alone says why
      // a partition FAILED and when it retries (without them, partitions that failed after the page loaded read "failed").
      error: value.error,
      failureCode: to === 'FAILED' ? failureCode : null,
      retryAttempt: value.retryAttempt,
      nextRetryAt: to === 'FAILED' ? nextRetryAt : null,
      ...(durable ? {} : { stateDurable: false }),
    })
  }

  private async runEffects(mirror: MirrorDefinition, runtime: PartitionRuntime, effects: readonly MirrorEffect[]): Promise<Array<{ event: MirrorEvent; reason: string }>> {
    const followUps: Array<{ event: MirrorEvent; reason: string }> = []
    for (const effect of effects) {
      try {
        const followUp = await this.runEffect(mirror, runtime, effect)
        if (followUp) followUps.push(followUp)
      } catch (error) {
        // The remaining effects depend on this one; the partition fails and retries per the table.
        const failure = classifyEffectError(effect.kind, error)
        this.env.log('effect failed', { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, effect: effect.kind, error: failure.error })
        return [{ event: { type: 'failed', ...failure }, reason: `${effect.kind} failed` }]
      }
    }
    return followUps
  }

  private async runEffect(mirror: MirrorDefinition, runtime: PartitionRuntime, effect: MirrorEffect): Promise<{ event: MirrorEvent; reason: string } | null> {
    const tp: TopicPartition = { topic: runtime.topic, partition: runtime.partition }
    const host = this.env.host(mirror)
    switch (effect.kind) {
      case 'persistState':
        return null
      case 'setReadOnly':
        await host.setReadOnly(runtime.topic, true, mirror.name)
        return null
      case 'clearReadOnly': {
        // The flag is per topic: lift it only once every partition of the topic has stopped.
        if (this.readOnlyPartitionOf(mirror, runtime.topic) === undefined) await host.setReadOnly(runtime.topic, false, null)
        return null
      }
      case 'startFetcher':
        changePartition(runtime, { fetching: true })
        this.env.fetcherChanged?.(mirror)
        return null
      case 'removeFetcher':
        changePartition(runtime, { fetching: false })
        this.env.fetcherChanged?.(mirror)
        return effect.then ? { event: { type: effect.then }, reason: 'fetcher removed' } : null
      case 'lookUpLastMirrorPosition':
        return { event: await this.env.lookUpLastMirrorPosition(mirror, runtime), reason: 'last mirror position looked up' }
      case 'truncate': {
        const before = (await this.describePartition(host, tp)).logEndOffset
        const removed =
          effect.truncateTo === null
            ? (await host.truncateFullyAndStartAt(tp, effect.fetchOffset)).removedRecords
            : (await host.truncateTo(tp, effect.truncateTo)).removedRecords
        const after = await this.describePartition(host, tp)
        this.refreshDestination(runtime, after)
        this.env.log('truncated', { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, from: before, to: after.logEndOffset, removed })
        return {
          event: { type: 'truncationCompleted', offset: after.logEndOffset, recordsRemoved: removed, reason: effect.reason },
          reason: `truncated to ${after.logEndOffset} (${removed} records removed, ${effect.reason})`,
        }
      }
      case 'awaitReplicaConvergence': {
        // Each replica's own log end and epoch, not the ISR: a stopped broker stays in the ISR for a while.
        const { leader, replicas } = await host.describeReplicas(tp)
        const convergence = replicaConvergence(leader, replicas)
        if (convergence.converged) {
          changePartition(runtime, { awaitingConvergence: false })
          return { event: { type: 'replicasConverged' }, reason: `every replica holds the truncated log (offset ${convergence.logEndOffset}, epoch ${convergence.latestEpoch})` }
        }
        // A replica is down, behind or not truncated yet: the engine's tick asks again until it holds the truncated log.
        if (!runtime.awaitingConvergence) this.env.log('waiting for replicas', { mirror: mirror.name, topic: runtime.topic, partition: runtime.partition, waitingFor: describeReplicaWait(convergence) })
        changePartition(runtime, { awaitingConvergence: true })
        this.env.wakeUp(runtime, 'convergence', this.env.now())
        return null
      }
      case 'bumpLeaderEpoch': {
        // An epoch the destination already has (a new leader's, server/engine/runner/leadership-watch.ts) is not asked for again.
        const leaderEpoch = runtime.destinationLeaderEpoch >= effect.minimumEpoch ? runtime.destinationLeaderEpoch : await host.bumpLeaderEpoch(tp, effect.minimumEpoch)
        changePartition(runtime, { destinationLeaderEpoch: leaderEpoch })
        return effect.then ? { event: { type: effect.then, leaderEpoch }, reason: `leader epoch raised to ${leaderEpoch}` } : null
      }
      case 'runStoppingSequence':
        await runStoppingSequence(
          {
            host,
            onStoppingAction: this.env.onStoppingAction,
            fetcherChanged: () => this.env.fetcherChanged?.(mirror),
            persistDeferred: () => this.persistDeferred(mirror, runtime),
            liftWriteFences: this.env.liftWriteFences ? (topic) => this.env.liftWriteFences!(mirror, topic) : undefined,
          },
          runtime,
          (event, options) => this.dispatch(mirror, runtime, event, undefined, options),
        )
        return { event: { type: 'stopCompleted' }, reason: 'failover sequence finished' }
      case 'scheduleRetry':
        changePartition(runtime, { retryAt: this.env.now() + effect.delayMs, retryStateEpoch: effect.stateEpoch })
        this.env.wakeUp(runtime, 'retry', this.env.now() + effect.delayMs)
        return null
      case 'cancelScheduledRetry':
        changePartition(runtime, { retryAt: null, retryStateEpoch: null })
        return null
    }
  }

  /** A partition of the topic whose state keeps the topic read-only, or undefined when none does. */
  private readOnlyPartitionOf(mirror: MirrorDefinition, topic: string): PartitionRuntime | undefined {
    let witnesses = this.readOnlyWitness.get(mirror)
    if (!witnesses) this.readOnlyWitness.set(mirror, (witnesses = new Map()))
    const witness = witnesses.get(topic)
    // A deleted partition's runtime is no witness: it must still be the mirror's.
    if (witness && STATE_METADATA[witness.value.state].readOnly && this.env.partition(mirror, topic, witness.partition) === witness) return witness
    const found = this.env.topicPartitions(mirror, topic).findLast((other) => STATE_METADATA[other.value.state].readOnly)
    if (found) witnesses.set(topic, found)
    else witnesses.delete(topic)
    return found
  }

  private describePartition(host: MirrorHost, tp: TopicPartition) {
    return host.describePartition(tp)
  }

  private refreshDestination(runtime: PartitionRuntime, description: { highWatermark: number; logEndOffset: number; leaderEpoch: number }): void {
    refreshDestination(runtime, description)
  }
}

/**
 * The failure code the partition keeps after `event` moved it to `next`: none once the failure details are
 * cleared, the event's own when it recorded a failure (a new message, or FAILED entered), else the one it had.
 */
function nextFailureCode(runtime: PartitionRuntime, next: PartitionRuntime['value'], event: MirrorEvent): FailureCode | null {
  if (next.error === null) return null
  const recorded = next.error !== runtime.value.error || (next.state === 'FAILED' && runtime.value.state !== 'FAILED')
  return recorded ? (failureCodeOf(event) ?? runtime.failureCode) : runtime.failureCode
}

/** A FAILED (entered, or its failure updated) whose effects touch no cluster: safe to show before it is saved. */
function isShowableUnsaved(next: PartitionRuntime['value'], effects: readonly MirrorEffect[]): boolean {
  return next.state === 'FAILED' && effects.every((effect) => IN_MEMORY_EFFECTS.has(effect.kind))
}
