import 'server-only'
import { randomBytes } from 'node:crypto'
import { mkdir, readdir } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { Drill, type DrillList, type DrillPhase } from '@/lib/api/drills'
import { ApiError } from '@/lib/api/errors'
import { drillCadence } from '@/lib/drill/cadence'
import { JsonRecordStore } from '@/server/util/json-record-store'
import { runDrill, type RunnerEnvironment } from './drill-runner'
import { removeSandbox } from './sandbox'
import { SandboxSpare } from './sandbox-spare'

/**
 * The drills of every mirror (API.md §"Round 3"): accepted after the checks a request can fail (the mirror and
 * its topics exist, one of their partitions is MIRRORING, no drill of the mirror runs, no failover holds these
 * topics), kept durably, run in the background (drill-runner.ts), one at a time per mirror, cancellable, kept as
 * history. After a crash the next start finishes each drill that was running as failed and removes its sandbox,
 * and any sandbox directory left without a drill; the production mirror was never touched by one.
 *
 * Layout under `dir`: `records/<id>.json` (one per drill) and `sandboxes/<id>/` (a running drill's copy).
 */

export interface DrillsEnvironment extends RunnerEnvironment {
  /** A drill changed (the live stream's `drill` event). */
  emit(drill: Drill): void
  /** The mirror's `drillIntervalDays` objective; null when it sets none. */
  intervalDays(mirror: string): number | null
  /** The running failover that holds these topics of the mirror, if any (a drill waits for none: it is refused). */
  runningOperation(mirror: string, topics: readonly string[]): { id: string } | null
}

export interface DrillsOptions {
  /** How often the production mirror's lag is sampled while a drill runs. */
  lagSampleMs?: number
  /** Drills kept once finished, per mirror (the newest). */
  keepPerMirror?: number
  /**
   * Tests and the crash test's child: called at the start of each phase of every drill, with the write of the
   * drill's record in that phase (which the phase's work does not wait for: drill-runner.ts).
   */
  atPhase?(drill: Drill, phase: DrillPhase, saved: Promise<void>): Promise<void> | void
  /**
   * A spare sandbox process forked while no drill runs, taken by the next drill (sandbox-spare.ts); default on.
   * Off: each drill forks its own as it starts.
   */
  spareSandbox?: boolean
  /** How long after the start and after each drill the spare is forked (sandbox-spare.ts SPARE_DELAY_MS). */
  spareDelayMs?: number
}

export const StoredDrill = Drill.extend({ version: z.literal(1), sequence: z.number().int().nonnegative() })
export type StoredDrill = z.infer<typeof StoredDrill>

interface Running {
  readonly record: StoredDrill
  cancelled: boolean
  done: Promise<void>
}

export class Drills {
  private readonly byId = new Map<string, StoredDrill>()
  private readonly running = new Map<string, Running>()
  private nextSequence: number
  private closed = false
  /** The next drill's sandbox process (null: spares off). */
  readonly spare: SandboxSpare | null

  private constructor(
    private readonly dir: string,
    private readonly store: JsonRecordStore<StoredDrill>,
    private readonly env: DrillsEnvironment,
    private readonly options: DrillsOptions,
  ) {
    for (const record of [...store.loaded].sort((a, b) => a.sequence - b.sequence)) this.byId.set(record.id, record)
    this.nextSequence = Math.max(-1, ...store.loaded.map((record) => record.sequence)) + 1
    this.spare = options.spareSandbox === false ? null : new SandboxSpare(env.log, () => !this.closed && this.running.size === 0, options.spareDelayMs)
  }

  /**
   * Opens the drills of `dir`. A drill the last process left running is finished as failed and its sandbox
   * removed; so is any sandbox directory no running drill owns.
   */
  static async open(dir: string, env: DrillsEnvironment, options: DrillsOptions = {}): Promise<Drills> {
    const store = await JsonRecordStore.open(path.join(dir, 'records'), StoredDrill, { onDamagedFile: (info) => env.log('skipped a damaged drill record', info) })
    const drills = new Drills(dir, store, env, options)
    await drills.recover()
    drills.spare?.prepare()
    return drills
  }

  private sandboxDir(id: string): string {
    return path.join(this.dir, 'sandboxes', id)
  }

  private async recover(): Promise<void> {
    for (const record of this.byId.values()) {
      if (record.status !== 'running') continue
      await removeSandbox(this.sandboxDir(record.id))
      record.status = 'failed'
      record.stoppedIn = record.phase
      record.error = `the server stopped while the drill was ${record.phase === 'done' ? 'ending' : `in its ${record.phase} phase`}; its sandbox was removed when the server started again, and the mirror was not touched`
      record.phase = 'done'
      record.sandbox = { ...record.sandbox, removed: true }
      record.finishedAt = this.env.now()
      await this.store.save(record)
      this.env.log('drill ended by a restart', { drill: record.id, mirror: record.mirror })
    }
    const sandboxes = path.join(this.dir, 'sandboxes')
    await mkdir(sandboxes, { recursive: true })
    for (const name of await readdir(sandboxes)) {
      if (!this.running.has(name)) await removeSandbox(path.join(sandboxes, name))
    }
  }

  // STARTING

  async start(mirror: string, input: { topics?: readonly string[]; requestedBy: Drill['requestedBy'] }): Promise<Drill> {
    if (this.closed) throw new ApiError('SOURCE_UNAVAILABLE', 'the server is shutting down')
    const definition = this.env.engine.getMirror(mirror)
    const partitions = this.env.engine.partitions(mirror)
    const known = new Set(partitions.map((p) => p.topic))
    const unknown = (input.topics ?? []).filter((topic) => !known.has(topic))
    if (unknown.length > 0) throw new ApiError('NOT_FOUND', `mirror ${mirror} does not mirror ${unknown.map((topic) => JSON.stringify(topic)).join(', ')}`, { details: { topics: unknown } })
    const topics = input.topics === undefined ? definition.topics.filter((topic) => known.has(topic)) : [...new Set(input.topics)]
    const current = this.runningRecord(mirror)
    if (current !== undefined) throw new ApiError('CONFLICT', `drill ${current.record.id} of mirror ${mirror} is running; one drill at a time per mirror`, { details: { drill: current.record.id } })
    const selected = partitions.filter((p) => topics.includes(p.topic))
    if (!selected.some((p) => p.state === 'MIRRORING')) {
      const states = [...new Set(selected.map((p) => p.state))].join(', ') || 'none'
      throw new ApiError('INVALID_MIRROR_STATE', `no partition of ${topics.join(', ') || mirror} is MIRRORING (states: ${states}): a drill rehearses the failover of what is mirroring`, { details: { states: [...new Set(selected.map((p) => p.state))] } })
    }
    const operation = this.env.runningOperation(mirror, topics)
    if (operation !== null) throw new ApiError('CONFLICT', `operation ${operation.id} of mirror ${mirror} is running on these topics; drill after it ends`, { details: { operation: operation.id } })
    const id = `d-${randomBytes(6).toString('hex')}`
    const record: StoredDrill = {
      version: 1,
      sequence: this.nextSequence++,
      id,
      mirror,
      status: 'running',
      phase: 'copying',
      stoppedIn: null,
      startedAt: this.env.now(),
      finishedAt: null,
      rtoMs: null,
      rpo: { records: null, seconds: null },
      checks: [],
      partitions: [],
      topics,
      skipped: [],
      sandbox: { name: `drill-${id.slice(2)}`, copiedFrom: this.env.destination(definition.destinationCluster).kind === 'embedded' ? 'files' : 'brokerLog', removed: false, filesLinked: 0, bytesCopied: 0, emulation: [] },
      productionLag: null,
      requestedBy: input.requestedBy,
      error: null,
    }
    this.byId.set(id, record)
    await this.store.save(record)
    this.run(record)
    return this.get(id)
  }

  private run(record: StoredDrill): void {
    const running: Running = { record, cancelled: false, done: Promise.resolve() }
    this.running.set(record.id, running)
    this.env.emit(this.get(record.id))
    running.done = runDrill(record, this.env, {
      changed: () => this.changed(record),
      cancelled: () => running.cancelled,
      atPhase: this.options.atPhase ? (phase, saved) => this.options.atPhase!(this.get(record.id), phase, saved) : undefined,
      sandboxDir: this.sandboxDir(record.id),
      lagSampleMs: this.options.lagSampleMs ?? 250,
      sandboxProcess: this.spare === null ? undefined : (log) => this.spare!.take(log),
    })
      .catch((error: unknown) => {
        record.status = 'failed'
        record.error = error instanceof Error ? error.message : String(error)
      })
      .then(async () => {
        await this.changed(record)
        this.running.delete(record.id)
        // The next drill's process, forked while none runs (its fork is then no drill's stall).
        if (this.running.size === 0) this.spare?.prepare()
        await this.dropExpired(record.mirror)
      })
  }

  private async changed(record: StoredDrill): Promise<void> {
    this.env.emit(this.get(record.id))
    await this.store.save(record).catch((error: unknown) => this.env.log('drill write failed', { drill: record.id, error: String(error) }))
  }

  private async dropExpired(mirror: string): Promise<void> {
    const finished = [...this.byId.values()].filter((record) => record.mirror === mirror && record.status !== 'running').sort((a, b) => b.sequence - a.sequence)
    const expired = finished.slice(this.options.keepPerMirror ?? 100).map((record) => record.id)
    for (const id of expired) this.byId.delete(id)
    await this.store.remove(expired).catch(() => undefined)
  }

  // CANCELLING, CLOSING

  /** Stops a running drill at its next step; its sandbox is removed. CONFLICT once it has ended. */
  async cancel(id: string): Promise<Drill> {
    const { status } = this.get(id)
    const running = this.running.get(id)
    if (running === undefined) throw new ApiError('CONFLICT', `drill ${id} has already ended (${status})`, { details: { status } })
    running.cancelled = true
    await running.done
    return this.get(id)
  }

  /** Cancels what runs (its sandbox removed); the next start finds nothing left over. */
  async close(): Promise<void> {
    this.closed = true
    for (const running of this.running.values()) running.cancelled = true
    await Promise.all([...this.running.values()].map((running) => running.done))
    await this.spare?.close()
    await this.store.flush()
  }

  // READS

  get(id: string): Drill {
    const record = this.byId.get(id)
    if (record === undefined) throw new ApiError('NOT_FOUND', `no drill ${JSON.stringify(id)}`, { details: { id } })
    const { version: _version, sequence: _sequence, ...drill } = record
    return drill
  }

  /** A mirror's drills, newest first, and how recently one succeeded against its objective. */
  list(mirror: string, limit = 50): DrillList {
    const all = [...this.byId.values()].filter((record) => record.mirror === mirror).sort((a, b) => b.sequence - a.sequence)
    const cadence = this.cadence(mirror)
    return { drills: all.slice(0, limit).map((record) => this.get(record.id)), lastSucceededAt: cadence.lastSucceededAt, intervalDays: cadence.intervalDays, overdue: cadence.overdue }
  }

  cadence(mirror: string): ReturnType<typeof drillCadence> {
    const lastSucceededAt = [...this.byId.values()].filter((record) => record.mirror === mirror && record.status === 'succeeded').reduce<number | null>((latest, record) => Math.max(latest ?? 0, record.finishedAt ?? record.startedAt), null)
    return drillCadence({ lastSucceededAt, intervalDays: this.env.intervalDays(mirror), now: this.env.now() })
  }

  /** The running drill of a mirror, if any. */
  runningOf(mirror: string): Drill | null {
    const found = this.runningRecord(mirror)
    return found === undefined ? null : this.get(found.record.id)
  }

  /**
   * A drill of the mirror that has not ended. One that has (its status answered as succeeded, failed or
   * cancelled) no longer counts while its last write is still in flight: a client that saw it end may start
   * the next at once.
   */
  private runningRecord(mirror: string): Running | undefined {
    return [...this.running.values()].find((running) => running.record.mirror === mirror && running.record.status === 'running')
  }

  /** Resolves once the drill has ended (tests, scripts, the bench). */
  async settled(id: string): Promise<Drill> {
    await this.running.get(id)?.done
    return this.get(id)
  }
}
