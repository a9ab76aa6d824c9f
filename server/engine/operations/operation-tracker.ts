import 'server-only'
// Over 400 lines on purpose: an operation's whole life (accept, a switchover's phases before its stops, drive, follow its partitions, recover after a restart or take over from another instance, finish or roll back, history) over one tracked record; split, that record and its bookkeeping would be shared between files.
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { randomUUID } from 'node:crypto'
import type { FailoverPlan as ApiFailoverPlan } from '@/lib/api/mirrors'
import type { OperationChange } from '@/lib/api/operations'
import { canRollBack, type SwitchoverPhase } from '@/lib/failover/switchover'
import { EngineError } from '../errors'
import type { FailoverOperation, OperationPartition, OperationRequester, PartitionRuntime } from '../types'
import { OPERATION_KIND_RULES, type OperationKind, type OperationKindRules } from './operation-kinds'
import { DEFAULT_RETENTION, expiredOperations, STORED_OPERATION_VERSION, type OperationStore, type RetentionPolicy, type StoredOperation } from './operation-store'

/**
 * The engine's operations: accepted durably before the caller hears 202, run to the end, rebuilt after a
 * restart, kept as history once finished (API.md "Operations").
 *
 * Life of an operation:
 *   accept    its record (plan, partitions with their stateEpoch, who, when) is written to the store;
 *   run       the engine sends every partition the stop (the "drive"); while it does, the operation runs;
 *   settle    after the drive, it waits for partitions whose stop goes on by itself (a STOPPING retried
 *             after a failure) and follows them through their transitions and the engine's ticks;
 *   finish    once every partition is settled, its outcome is computed from the partitions and frozen;
 *             the stream hears `finished` then, and those awaiting it once the record is written.
 * After a crash, `recover` rebuilds each unfinished operation from its record and the partitions' replayed
 * states (operation-progress.ts) and drives it again; a finished one comes back as it was written.
 * Outcomes are functions of the partitions' durable states (a partition's finish time is when it entered
 * its final state), so an operation whose finish was not yet written when the process died finishes after
 * the restart with the same outcome and times it would have had.
 */

export interface TrackerEnvironment {
  now(): number
  log(message: string, fields: Record<string, unknown>): void
  emit(operation: FailoverOperation, change: OperationChange): void
  /** The partition's runtime; undefined when its mirror no longer has it. */
  partition(mirror: string, topic: string, partition: number): PartitionRuntime | undefined
  /** Sends each partition the operation's event (bounded concurrency); `onEach` after each partition's dispatch ends. */
  send(kind: OperationKind, mirror: string, runtimes: PartitionRuntime[], onEach: (runtime: PartitionRuntime) => void): Promise<void>
  /**
   * A planned switchover's phases before its stops (server/engine/switchover/switchover-phases.ts), from the
   * phase its record holds: `stop` once the source is fenced and drained, `rolledBack` once it rolled back,
   * `interrupted` when the engine closes meanwhile (the record resumes the phase after the restart).
   */
  beforeStops?(operation: FailoverOperation, hooks: PhaseHooks): Promise<'stop' | 'rolledBack' | 'interrupted'>
  /** Before a switchover's outcome is frozen: what it lost, measured (switchover.recordsLost). */
  measureLoss?(operation: FailoverOperation): Promise<void>
  /** Resolves once the work queued on these partitions so far (a transition's effects) has run. */
  quiet?(runtimes: PartitionRuntime[]): Promise<void>
}

/** What a switchover's phases need of the tracker. */
export interface PhaseHooks {
  /** Writes the record as it is now (a phase change); resolves once durable. */
  save(): Promise<void>
  /** Tells listeners the operation moved. */
  progress(): void
  /** Why the operator cancelled it, once they have; null otherwise. */
  cancelRequest(): string | null
}

export interface AcceptInput {
  kind: OperationKind
  mirror: string
  plan: ApiFailoverPlan
  requestedBy: OperationRequester | null
  /** Failing warning gates the operator forced past when confirming (kept in the report). */
  forcedGates?: string[]
  runtimes: PartitionRuntime[]
  type?: FailoverOperation['type']
  /** A switchover's progress as accepted (phase fenceSource). */
  switchover?: FailoverOperation['switchover']
}

export interface OperationFilter {
  status?: FailoverOperation['status'] | undefined
  mirror?: string | undefined
  limit?: number | undefined
}

/** Progress events are coalesced: one per interval and the last one, not one per partition. */
const PROGRESS_INTERVAL_MS = 250

interface Tracked {
  readonly operation: FailoverOperation
  readonly rules: OperationKindRules
  readonly sequence: number
  /** Parallel to operation.partitions. */
  readonly acceptedStateEpochs: number[]
  readonly byPartition: TopicPartitionMap<number>
  /** Entries not settled yet, once the drive has ended; null while driving and after finishing. */
  unsettled: Set<number> | null
  /** Resolves when the drive and whatever finishing it led to have ended. */
  done: Promise<void>
  finishing: Promise<void> | null
  lastProgressAt: number
  /** A switchover the operator cancelled: the reason its rollback gives. */
  cancelRequest: string | null
  /** Its mirror went to another instance (issue #40): nothing more is driven, written or told for it here. */
  released: boolean
}


export class OperationTracker {
  /** By acceptance order, oldest first. */
  private readonly tracked = new Map<string, Tracked>()
  /** Running and past their drive: what partition events and ticks are looked at for (history is not). */
  private readonly waiting = new Set<Tracked>()
  private nextSequence: number
  private readonly retention: RetentionPolicy
  /** Unfinished operations of mirrors another instance ran when this one started: resumed if their mirror is adopted. */
  private readonly leftAtStart = new Map<string, StoredOperation>()

  constructor(
    private readonly store: OperationStore,
    private readonly env: TrackerEnvironment,
    options: { retention?: RetentionPolicy } = {},
  ) {
    this.retention = options.retention ?? DEFAULT_RETENTION
    this.nextSequence = (store.loaded.at(-1)?.sequence ?? -1) + 1
  }

  // ACCEPT AND RUN

  /**
   * Writes the operation durably, then starts sending its event to `runtimes`. Resolves once it is durable.
   * Refused (CONFLICT, naming it) while a running operation holds any of the partitions: one operation at a
   * time on a partition, whoever asks (the API, the demo, a script).
   */
  async accept(input: AcceptInput): Promise<FailoverOperation> {
    this.refuseIfHeld(input.mirror, input.runtimes)
    const operation: FailoverOperation = {
      id: randomUUID(),
      kind: input.kind,
      mirror: input.mirror,
      status: 'running',
      startedAt: this.env.now(),
      finishedAt: null,
      requestedBy: input.requestedBy,
      ...(input.forcedGates === undefined ? {} : { forcedGates: [...input.forcedGates] }),
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.switchover === undefined ? {} : { switchover: structuredClone(input.switchover) }),
      resumedAt: [],
      plan: input.plan,
      partitions: input.runtimes.map((runtime) => ({
        topic: runtime.topic,
        partition: runtime.partition,
        step: runtime.value.stopping?.step ?? null,
        state: runtime.value.state,
        error: null,
        finishedAt: null,
      })),
    }
    const tracked = this.track(operation, this.nextSequence++, input.runtimes.map((runtime) => runtime.value.stateEpoch))
    // The promise of the 202: once this resolves, a crash at any instant still ends in this operation.
    await this.store.save(this.recordOf(tracked))
    this.tracked.set(operation.id, tracked)
    this.env.emit(operation, 'accepted')
    this.drive(tracked, input.runtimes)
    return operation
  }

  /**
   * Rebuilds every operation the store holds. Unfinished ones are driven again: their partitions still in
   * a pre-stop state get the stop now, those in STOPPING finish through their own restore. Returns the
   * partitions it stops, which the engine must not restore to their pre-stop work (a MIRRORING partition
   * would fetch again before its stop arrives). Call once, after the partitions are replayed.
   */
  recover(leftToOthers: (mirror: string) => boolean = () => false): Set<PartitionRuntime> {
    const stopping = new Set<PartitionRuntime>()
    const resumed: Array<{ tracked: Tracked; runtimes: PartitionRuntime[] }> = []
    for (const record of this.store.loaded) {
      // Its mirror runs elsewhere now: the instance that adopts it resumes it (from the shared record), not this one.
      if (record.status === 'running' && leftToOthers(record.mirror)) {
        this.leftAtStart.set(record.id, record)
        continue
      }
      const resume = this.rebuild(record)
      if (resume === null) continue
      for (const runtime of resume.runtimes) stopping.add(runtime)
      resumed.push(resume)
    }
    for (const resume of resumed) this.resume(resume, 'operation resumed after a restart')
    return stopping
  }

  /**
   * Takes over the operations of `mirror`, just adopted from another instance (issue #40): its unfinished ones are
   * rebuilt from their last shared record and driven again exactly as a restart resumes them (`recover`), its
   * finished ones kept as history. Returns the partitions it stops, which the engine must not restore. Call once
   * the mirror's partitions are in the engine's state, before they are restored.
   */
  async adopt(mirror: string): Promise<Set<PartitionRuntime>> {
    const shared = this.store.shared
    const candidates = new Map<string, StoredOperation>()
    for (const record of this.leftAtStart.values()) if (record.mirror === mirror) candidates.set(record.id, record)
    if (shared !== null) {
      // Fenced before it is read: a paused previous owner that wakes up cannot write its stale view over ours.
      await shared.claim?.(mirror).catch((error: unknown) => this.env.log('the shared operations of the mirror could not be claimed', { mirror, error: String(error) }))
      const records = await shared.ofMirror(mirror).catch((error: unknown) => {
        this.env.log('the shared operations could not be read; resuming what this instance knows', { mirror, error: String(error) })
        return shared.all().filter((record) => record.mirror === mirror)
      })
      for (const record of records) candidates.set(record.id, record)
    }
    const stopping = new Set<PartitionRuntime>()
    const resumed: Array<{ tracked: Tracked; runtimes: PartitionRuntime[] }> = []
    for (const record of [...candidates.values()].sort((a, b) => a.startedAt - b.startedAt)) {
      this.leftAtStart.delete(record.id)
      if (this.tracked.has(record.id)) continue
      const resume = this.rebuild({ ...record, sequence: this.nextSequence++ })
      if (resume === null) continue
      for (const runtime of resume.runtimes) stopping.add(runtime)
      resumed.push(resume)
    }
    for (const resume of resumed) this.resume(resume, 'operation taken over with its mirror')
    return stopping
  }

  /**
   * `mirror` went to another instance: its running operations are no longer driven, written or told from here (the
   * new owner resumes them from their shared record); this instance forgets them, so reads go to the shared record.
   */
  release(mirror: string): void {
    for (const [id, tracked] of this.tracked) {
      if (tracked.operation.mirror !== mirror || tracked.operation.status !== 'running') continue
      tracked.released = true
      tracked.unsettled = null
      this.waiting.delete(tracked)
      this.tracked.delete(id)
      this.env.log('operation left to the mirror’s new owner', { operation: id, mirror })
    }
  }

  /** Tracks `record`; for an unfinished one, the partitions its resume must send the stop again. */
  private rebuild(record: StoredOperation): { tracked: Tracked; runtimes: PartitionRuntime[] } | null {
    const tracked = this.track(operationOf(record), record.sequence, record.partitions.map((partition) => partition.acceptedStateEpoch))
    this.tracked.set(record.id, tracked)
    if (record.status !== 'running') return null
    const runtimes: PartitionRuntime[] = []
    // Fenced or draining: its partitions mirror on (restored like every other partition) until its phases say stop.
    if (!beforeStopping(record.switchover?.phase)) {
      record.partitions.forEach((entry, index) => {
        const runtime = this.env.partition(record.mirror, entry.topic, entry.partition)
        if (runtime && tracked.rules.resendAfterRestart(runtime.value, tracked.acceptedStateEpochs[index]!)) runtimes.push(runtime)
      })
    }
    tracked.operation.resumedAt.push(this.env.now())
    return { tracked, runtimes }
  }

  private resume({ tracked, runtimes }: { tracked: Tracked; runtimes: PartitionRuntime[] }, message: string): void {
    this.env.log(message, { operation: tracked.operation.id, mirror: tracked.operation.mirror, stopsSentAgain: runtimes.length })
    // The resume is history too, written before the stops go out again; the operation goes on whether
    // or not the write lands.
    const written = this.store.save(this.recordOf(tracked)).catch((error: unknown) => this.env.log('operation write failed', { operation: tracked.operation.id, error: String(error) }))
    this.env.emit(tracked.operation, 'resumed')
    this.drive(tracked, runtimes, written)
  }

  private drive(tracked: Tracked, runtimes: PartitionRuntime[], after: Promise<void> = Promise.resolve()): void {
    const { operation } = tracked
    const onEach = (runtime: PartitionRuntime) => {
      if (tracked.released) return
      const index = tracked.byPartition.get(runtime)
      if (index !== undefined) this.refreshEntry(tracked, index)
      const now = this.env.now()
      if (now - tracked.lastProgressAt < PROGRESS_INTERVAL_MS) return
      tracked.lastProgressAt = now
      this.env.emit(operation, 'progress')
    }
    tracked.done = after
      .then(() => this.beforeStops(tracked, runtimes))
      .then(async (next) => {
        if (next === 'interrupted' || tracked.released) return
        if (next === 'rolledBack') return this.finishRolledBack(tracked)
        await this.env.send(operation.kind, operation.mirror, next, onEach).catch((error: unknown) => this.env.log('operation drive failed', { operation: operation.id, error: String(error) }))
        if (tracked.released) return
        return this.driveEnded(tracked)
      })
      .catch((error: unknown) => this.env.log('operation drive failed', { operation: operation.id, error: String(error) }))
  }

  /**
   * A switchover's phases before its stops; the partitions to stop once they say so. Entering `stopping`
   * is written (with each partition's stateEpoch as it is now, which the restart rule compares with) before
   * any stop is sent, so a restart from here on resumes the stops as a failover's.
   */
  private async beforeStops(tracked: Tracked, runtimes: PartitionRuntime[]): Promise<PartitionRuntime[] | 'rolledBack' | 'interrupted'> {
    const { operation } = tracked
    const switchover = operation.switchover
    if (switchover === undefined || !beforeStopping(switchover.phase) || this.env.beforeStops === undefined) return runtimes
    const outcome = await this.env.beforeStops(operation, {
      save: () => (tracked.released ? Promise.resolve() : this.store.save(this.recordOf(tracked))),
      progress: () => this.env.emit(operation, 'progress'),
      cancelRequest: () => tracked.cancelRequest,
    })
    if (tracked.released) return 'interrupted'
    if (outcome !== 'stop') return outcome
    const stops: PartitionRuntime[] = []
    operation.partitions.forEach((entry, index) => {
      const runtime = this.env.partition(operation.mirror, entry.topic, entry.partition)
      if (runtime === undefined) return
      tracked.acceptedStateEpochs[index] = runtime.value.stateEpoch
      stops.push(runtime)
    })
    switchover.phase = 'stopping'
    await this.store.save(this.recordOf(tracked))
    this.env.emit(operation, 'progress')
    return stops
  }

  /** A switchover that rolled back: its partitions mirror on; the outcome says why (switchover.reason). */
  private finishRolledBack(tracked: Tracked): Promise<void> {
    if (tracked.released) return Promise.resolve()
    if (tracked.finishing) return tracked.finishing
    const { operation } = tracked
    const now = this.env.now()
    operation.partitions.forEach((entry, index) => {
      this.refreshEntry(tracked, index)
      entry.finishedAt = now
    })
    operation.finishedAt = now
    // Not `failed`: the rollback protected the data (nothing lost, mirroring as before); the reason stays in switchover.reason.
    operation.status = 'rolledBack'
    return this.freeze(tracked)
  }

  /**
   * Cancels a planned switchover that has not begun to stop: its phases roll back at their next look (the
   * source unfenced, the mirror mirroring as before). CONFLICT for anything else: a failover cannot be
   * undone, nor a switchover already stopping.
   */
  cancel(id: string, by: string): FailoverOperation {
    const tracked = this.tracked.get(id)
    if (!tracked) throw new EngineError('NOT_FOUND', `operation ${id} not found`)
    const { operation } = tracked
    if (operation.status !== 'running') throw new EngineError('CONFLICT', `operation ${id} has already ${operation.status}`)
    const phase = operation.switchover?.phase
    if (phase === undefined) throw new EngineError('CONFLICT', `operation ${id} is an unplanned failover: its stops cannot be cancelled`)
    if (!canRollBack(phase)) throw new EngineError('CONFLICT', `the switchover ${id} is in phase ${phase}: it can no longer roll back`, { details: { phase } })
    tracked.cancelRequest ??= `cancelled by ${by}`
    this.env.emit(operation, 'progress')
    return operation
  }

  /** Every partition has had its stop; from here the operation waits for those still stopping. */
  private driveEnded(tracked: Tracked): Promise<void> {
    const unsettled = new Set<number>()
    tracked.operation.partitions.forEach((_, index) => {
      if (!this.refreshEntry(tracked, index, { driveEnded: true })) unsettled.add(index)
    })
    tracked.unsettled = unsettled
    if (unsettled.size === 0) return this.finish(tracked)
    this.waiting.add(tracked)
    this.env.emit(tracked.operation, 'progress')
    return Promise.resolve()
  }

  // FOLLOWING PARTITIONS

  /** A partition of a running operation moved: it may have settled. */
  onPartitionTransition(mirror: string, topic: string, partition: number): void {
    for (const tracked of this.waiting) {
      if (tracked.unsettled === null || tracked.operation.mirror !== mirror) continue
      const index = tracked.byPartition.get({ topic, partition })
      if (index === undefined || !tracked.unsettled.has(index)) continue
      this.recheck(tracked, [index])
    }
  }

  /**
   * Looks again at every unsettled partition: a failure can become final without a transition (retries
   * exhausted, a non-retryable error recorded in FAILED), which no partition event announces.
   */
  checkUnsettled(): void {
    for (const tracked of this.waiting) {
      if (tracked.unsettled !== null && tracked.unsettled.size > 0) this.recheck(tracked, [...tracked.unsettled])
    }
  }

  private recheck(tracked: Tracked, indexes: number[]): void {
    const unsettled = tracked.unsettled
    if (unsettled === null) return
    for (const index of indexes) if (this.refreshEntry(tracked, index, { driveEnded: true })) unsettled.delete(index)
    if (unsettled.size === 0) void this.finish(tracked)
  }

  /**
   * Reads one entry from its partition; returns whether the partition is settled for the operation. After
   * the drive, a partition the stop never reached (or that refused it) is settled as not stopped.
   */
  private refreshEntry(tracked: Tracked, index: number, options: { driveEnded?: boolean } = {}): boolean {
    const entry = tracked.operation.partitions[index]!
    const runtime = this.env.partition(tracked.operation.mirror, entry.topic, entry.partition)
    if (!runtime) {
      entry.error ??= `mirror ${tracked.operation.mirror} no longer has partition ${entry.topic}-${entry.partition}`
      entry.finishedAt ??= this.env.now()
      return true
    }
    const value = runtime.value
    const progress = tracked.rules.progress(value)
    entry.state = value.state
    entry.step = value.stopping?.step ?? null
    entry.error = value.error
    const settled = tracked.rules.isSettled(progress) || (options.driveEnded === true && progress === 'notStopped')
    // A partition that refused the stop has been in its state since before the operation began.
    entry.finishedAt = settled ? Math.max(value.stateSince, tracked.operation.startedAt) : null
    if (settled && progress === 'notStopped') entry.error ??= `the stop was not applied in state ${value.state}`
    return settled
  }

  // FINISHING

  private finish(tracked: Tracked): Promise<void> {
    if (tracked.released) return Promise.resolve()
    if (tracked.finishing) return tracked.finishing
    const { operation } = tracked
    tracked.unsettled = null
    this.waiting.delete(tracked)
    // A partition is settled by its transition's event, before that transition's effects have run: the last
    // STOPPED partition of a topic lifts the topic's read-only flag after it. The outcome waits for them, so a
    // failover that says succeeded has a writable destination (a producer started on "succeeded" was refused).
    const runtimes = operation.partitions.flatMap((entry) => this.env.partition(operation.mirror, entry.topic, entry.partition) ?? [])
    const quiet = this.env.quiet?.(runtimes)
    if (quiet === undefined) return this.conclude(tracked)
    tracked.finishing = quiet.then(() => this.conclude(tracked))
    return tracked.finishing
  }

  private conclude(tracked: Tracked): Promise<void> {
    if (tracked.released) return Promise.resolve()
    const { operation } = tracked
    const outcome = () => {
      const finishedAt = operation.partitions.reduce<number | null>((latest, entry) => (entry.finishedAt === null ? latest : Math.max(latest ?? entry.finishedAt, entry.finishedAt)), null)
      operation.finishedAt = Math.max(finishedAt ?? this.env.now(), operation.startedAt)
      operation.status = tracked.rules.succeeded(operation.partitions.map((entry) => entry.state)) ? 'succeeded' : 'failed'
      const switchover = operation.switchover
      if (switchover === undefined) return
      switchover.stoppedAt = operation.status === 'succeeded' ? operation.finishedAt : null
      // Nothing lost is the promise of a planned switchover: measured, never assumed.
      const lost = switchover.recordsLost?.total ?? null
      if (operation.status === 'succeeded' && lost !== 0) {
        operation.status = 'failed'
        switchover.reason ??= lost === null ? 'the records lost could not be measured (the source did not answer)' : `${lost} records were not mirrored`
      }
      if (operation.status === 'succeeded') switchover.phase = 'done'
    }
    if (operation.switchover !== undefined && this.env.measureLoss !== undefined) {
      // The source is read first (the old source stays fenced, so what it holds stands); the outcome waits for it.
      tracked.finishing = this.env
        .measureLoss(operation)
        .catch((error: unknown) => this.env.log('switchover loss measurement failed', { operation: operation.id, error: String(error) }))
        .then(() => {
          outcome()
          return this.freeze(tracked)
        })
      return tracked.finishing
    }
    outcome()
    return this.freeze(tracked)
  }

  /** Writes the outcome set on the operation, tells listeners, then prunes history. */
  private freeze(tracked: Tracked): Promise<void> {
    if (tracked.released) return Promise.resolve()
    const { operation } = tracked
    tracked.unsettled = null
    this.waiting.delete(tracked)
    const written = this.store.save(this.recordOf(tracked))
    // Told now, not once the record is durable: GET /operations/{id} answers the frozen outcome from here on,
    // and a crash before the write lands finishes the operation again after the restart with the same
    // outcome and times (see above). The write queues behind every other file write of the process: at the
    // end of a 10,000-partition failover it landed 54 s after the outcome was known, and the wizard showed
    // progress all that time (scripts/bench/ui-failover.ts).
    this.env.emit(operation, 'finished')
    const finishing = written
      .catch((error: unknown) => this.env.log('operation write failed', { operation: operation.id, error: String(error) }))
      .then(() => this.dropExpired())
      .catch((error: unknown) => this.env.log('operation history pruning failed', { error: String(error) }))
    tracked.finishing ??= finishing
    return finishing
  }

  private async dropExpired(): Promise<void> {
    const newestFirst = [...this.tracked.values()].reverse().map((tracked) => tracked.operation)
    const expired = expiredOperations(newestFirst, this.env.now(), this.retention)
    if (expired.length === 0) return
    for (const id of expired) this.tracked.delete(id)
    await this.store.remove(expired)
  }

  // READS

  /** One operation: as this instance runs or keeps it, else as its shared record last said (another instance's). */
  get(id: string): FailoverOperation {
    const tracked = this.tracked.get(id)
    if (tracked) return this.current(tracked)
    const shared = this.store.shared?.find(id) ?? null
    if (shared === null) throw new EngineError('NOT_FOUND', `operation ${id} not found`)
    return operationOf(shared)
  }

  /** Whether this instance runs or keeps the operation (not only knows its shared record). */
  holds(id: string): boolean {
    return this.tracked.has(id)
  }

  /** Newest first: this instance's operations, and with shared operations every other instance's as last recorded. */
  list(filter: OperationFilter = {}): FailoverOperation[] {
    const found: FailoverOperation[] = []
    const matches = (operation: { mirror: string; status: FailoverOperation['status'] }) =>
      (filter.mirror === undefined || operation.mirror === filter.mirror) && (filter.status === undefined || operation.status === filter.status)
    const all = [...this.tracked.values()]
    for (let index = all.length - 1; index >= 0; index--) {
      const tracked = all[index]!
      if (matches(tracked.operation)) found.push(this.current(tracked))
    }
    const shared = this.store.shared
    if (shared === null) return found.slice(0, filter.limit ?? found.length)
    for (const record of shared.all()) if (!this.tracked.has(record.id) && matches(record)) found.push(operationOf(record))
    // Stable: this instance's own order (acceptance) is kept among operations that share a millisecond.
    return found.sort((a, b) => b.startedAt - a.startedAt).slice(0, filter.limit ?? found.length)
  }

  /** Resolves once the drive has ended, and the outcome is durable if that finished it (tests, scripts). */
  async awaitOperation(id: string): Promise<FailoverOperation> {
    const tracked = this.tracked.get(id)
    if (!tracked) throw new EngineError('NOT_FOUND', `operation ${id} not found`)
    await tracked.done
    await tracked.finishing
    return this.current(tracked)
  }

  /**
   * The running operation of `mirror` that holds any partition of `topics` (any of its partitions when absent),
   * oldest first; null when none does.
   */
  running(mirror: string, topics?: readonly string[]): FailoverOperation | null {
    const wanted = topics === undefined ? null : new Set(topics)
    for (const tracked of this.tracked.values()) {
      const { operation } = tracked
      if (operation.status !== 'running' || operation.mirror !== mirror) continue
      if (wanted === null || operation.partitions.some((entry) => wanted.has(entry.topic))) return this.current(tracked)
    }
    return null
  }

  /** CONFLICT, naming it, while a running operation of `mirror` holds any partition of `topics` (any of its partitions when absent). */
  refuseIfRunning(mirror: string, topics?: readonly string[]): void {
    const running = this.running(mirror, topics)
    if (running !== null) throw stillRunning(running)
  }

  /** CONFLICT, naming it, while a running operation of `mirror` holds any of `partitions`. */
  private refuseIfHeld(mirror: string, partitions: ReadonlyArray<{ topic: string; partition: number }>): void {
    for (const tracked of this.tracked.values()) {
      const { operation } = tracked
      if (operation.status !== 'running' || operation.mirror !== mirror) continue
      if (partitions.some((partition) => tracked.byPartition.has(partition))) throw stillRunning(operation)
    }
  }

  /** Ids of running operations that cover `topic` of `mirror`. */
  runningOn(mirror: string, topic: string): string[] {
    const ids: string[] = []
    for (const tracked of this.tracked.values()) {
      if (tracked.operation.status !== 'running' || tracked.operation.mirror !== mirror) continue
      if (tracked.operation.partitions.some((entry) => entry.topic === topic)) ids.push(tracked.operation.id)
    }
    return ids
  }

  async close(): Promise<void> {
    await Promise.all([...this.tracked.values()].map(async (tracked) => (await tracked.done, await tracked.finishing)))
    await this.store.flush()
  }

  /** A running operation reads its partitions now; a finished one is as it was frozen. */
  private current(tracked: Tracked): FailoverOperation {
    if (tracked.operation.status === 'running' && tracked.unsettled === null) {
      tracked.operation.partitions.forEach((_, index) => this.refreshEntry(tracked, index))
    }
    return tracked.operation
  }

  private track(operation: FailoverOperation, sequence: number, acceptedStateEpochs: number[]): Tracked {
    return {
      operation,
      rules: OPERATION_KIND_RULES[operation.kind],
      sequence,
      acceptedStateEpochs,
      byPartition: TopicPartitionMap.of(operation.partitions.map((entry, index) => [entry, index] as const)),
      unsettled: null,
      done: Promise.resolve(),
      finishing: null,
      lastProgressAt: 0,
      cancelRequest: null,
      released: false,
    }
  }

  private recordOf(tracked: Tracked): StoredOperation {
    const { operation } = tracked
    return {
      version: STORED_OPERATION_VERSION,
      sequence: tracked.sequence,
      id: operation.id,
      kind: operation.kind,
      mirror: operation.mirror,
      status: operation.status,
      startedAt: operation.startedAt,
      finishedAt: operation.finishedAt,
      requestedBy: operation.requestedBy,
      ...(operation.forcedGates === undefined ? {} : { forcedGates: [...operation.forcedGates] }),
      ...(operation.type === undefined ? {} : { type: operation.type }),
      ...(operation.switchover === undefined ? {} : { switchover: structuredClone(operation.switchover) }),
      resumedAt: [...operation.resumedAt],
      plan: operation.plan,
      partitions: operation.partitions.map((entry: OperationPartition, index) => ({ ...entry, acceptedStateEpoch: tracked.acceptedStateEpochs[index]! })),
    }
  }
}

/** The refusal of a second operation over partitions a running one holds: a client can follow the one named. */
function stillRunning(operation: FailoverOperation): EngineError {
  return new EngineError('CONFLICT', `${operation.kind} ${operation.id} of mirror ${operation.mirror} is still running; follow it instead of starting another`, {
    details: { operation: operation.id },
  })
}

/** A switchover phase in which its partitions have not been sent their stops. */
function beforeStopping(phase: SwitchoverPhase | undefined): boolean {
  return phase === 'fenceSource' || phase === 'drain' || phase === 'rollingBack' || phase === 'rolledBack'
}

function operationOf(record: StoredOperation): FailoverOperation {
  return {
    id: record.id,
    kind: record.kind,
    mirror: record.mirror,
    status: record.status,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    requestedBy: record.requestedBy,
    ...(record.forcedGates === undefined ? {} : { forcedGates: [...record.forcedGates] }),
    ...(record.type === undefined ? {} : { type: record.type }),
    ...(record.switchover === undefined ? {} : { switchover: structuredClone(record.switchover) }),
    resumedAt: [...record.resumedAt],
    plan: record.plan,
    partitions: record.partitions.map(({ topic, partition, step, state, error, finishedAt }) => ({ topic, partition, step, state, error, finishedAt })),
  }
}
