import 'server-only'
import path from 'node:path'
import { z } from 'zod'
import type { Workload, WorkloadKind } from '@/lib/api/demo'
import { ApiError } from '@/lib/api/errors'
import { currentRate, type TrafficProfile } from '@/lib/demo/traffic'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '@/server/observability/logger'
import type { WorkloadClient } from './workload-clients'

/**
 * The demo's live workloads: each turns its rate into a budget of records every turn and gives it to its
 * client (workload-clients.ts), one call at a time, so a slow cluster (a stopped broker holding acks=all)
 * slows the workload instead of piling calls up. A producer's rate of the moment follows its traffic
 * profile (lib/demo/traffic.ts) around the rate set; a consumer group reads at its set rate, its capacity,
 * so it falls behind in a burst and catches up after. Rates and pauses are kept in `<dataDir>/demo/workloads.json`,
 * so a restart resumes as the operator left them.
 */

export interface WorkloadSpec {
  name: string
  cluster: string
  topic: string
  kind: WorkloadKind
  ratePerSecond: number
  /** How a producer's rate moves around `ratePerSecond` over time; null for a constant rate. */
  traffic: TrafficProfile | null
  group: string | null
  description: string
  client: WorkloadClient
}

/** How often each workload takes a turn. */
const TURN_MS = 250
/** Budget that may build up while a turn is slow: at most this many seconds of records at once. */
const MAX_BACKLOG_SECONDS = 2
/** How long a pause or a rate change waits for the workload's call in flight. */
const CHANGE_WAIT_MS = 2_000

const SettingsFile = z.object({
  version: z.literal(1),
  workloads: z.record(z.string(), z.object({ ratePerSecond: z.number().int().nonnegative(), paused: z.boolean() })),
})

interface Running {
  spec: WorkloadSpec
  ratePerSecond: number
  paused: boolean
  recordsTotal: number
  lastError: string | null
  credit: number
  lastTurnAt: number
  timer: NodeJS.Timeout | null
  turn: Promise<void> | null
}

export class Workloads {
  private readonly running = new Map<string, Running>()
  private readonly file: string
  private closed = false
  private saving: Promise<void> = Promise.resolve()

  constructor(
    dataDir: string,
    private readonly log: Logger,
    private readonly onChange: (workload: Workload) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.file = path.join(dataDir, 'demo', 'workloads.json')
  }

  /** Starts every workload, with the rates and pauses saved by an earlier run where there are any. */
  async start(specs: readonly WorkloadSpec[]): Promise<void> {
    const text = await readTextIfExists(this.file)
    const saved = text === undefined ? {} : SettingsFile.parse(JSON.parse(text)).workloads
    for (const spec of specs) {
      const settings = Object.hasOwn(saved, spec.name) ? saved[spec.name] : undefined
      const entry: Running = {
        spec,
        ratePerSecond: settings?.ratePerSecond ?? spec.ratePerSecond,
        paused: settings?.paused ?? false,
        recordsTotal: 0,
        lastError: null,
        credit: 0,
        lastTurnAt: this.now(),
        timer: null,
        turn: null,
      }
      this.running.set(spec.name, entry)
      this.schedule(entry)
    }
  }

  private schedule(entry: Running): void {
    if (this.closed) return
    entry.timer = setTimeout(() => {
      entry.timer = null
      entry.turn = this.turn(entry).finally(() => {
        entry.turn = null
        this.schedule(entry)
      })
    }, TURN_MS)
    entry.timer.unref()
  }

  private async turn(entry: Running): Promise<void> {
    const now = this.now()
    const elapsedSeconds = Math.max(0, now - entry.lastTurnAt) / 1000
    entry.lastTurnAt = now
    if (entry.paused || entry.ratePerSecond === 0) {
      entry.credit = 0
      return
    }
    const rate = currentRate(entry.ratePerSecond, entry.spec.traffic, now)
    entry.credit = Math.min(entry.credit + rate * elapsedSeconds, rate * MAX_BACKLOG_SECONDS)
    const budget = Math.floor(entry.credit)
    if (budget < 1) return
    try {
      const done = await entry.spec.client.step(budget)
      entry.credit = Math.max(0, entry.credit - Math.max(done, 1))
      entry.recordsTotal += done
      entry.lastError = null
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (entry.lastError !== message) this.log.warn('demo workload step failed', { workload: entry.spec.name, error: message })
      entry.lastError = message
      // What could not be written now is not owed later: a cluster back after a minute gets the rate, not a burst.
      entry.credit = 0
    }
  }

  private entry(name: string): Running {
    const entry = this.running.get(name)
    if (!entry) throw new ApiError('NOT_FOUND', `no workload ${JSON.stringify(name)}`, { details: { workload: name, workloads: [...this.running.keys()] } })
    return entry
  }

  private view(entry: Running): Workload {
    const { spec } = entry
    return {
      name: spec.name,
      cluster: spec.cluster,
      topic: spec.topic,
      kind: spec.kind,
      ratePerSecond: entry.ratePerSecond,
      currentRatePerSecond: entry.paused ? 0 : currentRate(entry.ratePerSecond, spec.traffic, this.now()),
      paused: entry.paused,
      group: spec.group,
      behindRecords: spec.client.behindRecords?.() ?? null,
      description: spec.description,
      recordsTotal: entry.recordsTotal,
      lastError: entry.lastError,
    }
  }

  list(): Workload[] {
    return [...this.running.values()].map((entry) => this.view(entry))
  }

  get(name: string): Workload {
    return this.view(this.entry(name))
  }

  async pause(name: string): Promise<Workload> {
    return this.change(name, (entry) => {
      entry.paused = true
    })
  }

  async resume(name: string): Promise<Workload> {
    return this.change(name, (entry) => {
      entry.paused = false
    })
  }

  async setRate(name: string, ratePerSecond: number): Promise<Workload> {
    return this.change(name, (entry) => {
      entry.ratePerSecond = ratePerSecond
    })
  }

  private async change(name: string, apply: (entry: Running) => void): Promise<Workload> {
    const entry = this.entry(name)
    apply(entry)
    entry.credit = 0
    await this.save()
    // A pause answers once the workload's call in flight has ended, so nothing is written after it; but not
    // later than CHANGE_WAIT_MS: an acks=all append held by a stopped broker may wait the request timeout.
    await Promise.race([entry.turn, new Promise((resolve) => setTimeout(resolve, CHANGE_WAIT_MS).unref())])
    const view = this.view(entry)
    this.onChange(view)
    return view
  }

  private save(): Promise<void> {
    const workloads = Object.fromEntries([...this.running.values()].map((entry) => [entry.spec.name, { ratePerSecond: entry.ratePerSecond, paused: entry.paused }]))
    const text = `${JSON.stringify({ version: 1, workloads }, null, 1)}\n`
    this.saving = this.saving.catch(() => undefined).then(() => writeFileAtomic(this.file, text, 0o644))
    return this.saving
  }

  async close(): Promise<void> {
    this.closed = true
    for (const entry of this.running.values()) if (entry.timer) clearTimeout(entry.timer)
    await Promise.all([...this.running.values()].map((entry) => entry.turn))
    await Promise.all([...this.running.values()].map((entry) => entry.spec.client.close().catch(() => undefined)))
    await this.saving.catch(() => undefined)
  }
}
