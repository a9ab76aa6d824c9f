import 'server-only'
import path from 'node:path'
import { z } from 'zod'
import { Run, type Scenario } from '@/lib/api/demo'
import { ApiError } from '@/lib/api/errors'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '@/server/observability/logger'
import type { ScenarioDefinition, ScenarioEnvironment } from './scenarios/scenario'

/**
 * Runs of the narrated scenarios. A run is written to `<dataDir>/demo/runs.json` before its 202 and after
 * every step, so a reader always sees where it is. A run that was pending or running when the process ended
 * is marked failed at the next start, with the step it stopped in: its clusters are left as they were (they
 * belong to that run alone) and the next run of the scenario builds new ones under new names.
 */

const RunsFile = z.object({ version: z.literal(1), nextSequence: z.number().int().positive(), runs: z.array(Run) })

/** Runs kept in the file (the newest); older ones' clusters stay, their narration goes. */
const KEPT_RUNS = 50

export class ScenarioRuns {
  private runs: Run[] = []
  private nextSequence = 1
  private readonly file: string
  private readonly inFlight = new Map<string, Promise<void>>()
  private readonly abort = new AbortController()
  private saving: Promise<void> = Promise.resolve()

  constructor(
    private readonly deps: ScenarioEnvironment & { dataDir: string; log: Logger; now?: () => number; onChange?: (run: Run) => void },
    private readonly scenarios: readonly ScenarioDefinition[],
  ) {
    this.file = path.join(deps.dataDir, 'demo', 'runs.json')
  }

  private now(): number {
    return (this.deps.now ?? Date.now)()
  }

  /** Loads earlier runs; any that was still going when the process ended is failed with the reason. */
  async load(): Promise<void> {
    const text = await readTextIfExists(this.file)
    if (text === undefined) return
    const stored = RunsFile.parse(JSON.parse(text))
    this.nextSequence = stored.nextSequence
    const now = this.now()
    let interrupted = false
    this.runs = stored.runs.map((run) => {
      if (run.status !== 'pending' && run.status !== 'running') return run
      interrupted = true
      const index = run.steps.findIndex((step) => step.status === 'running' || step.status === 'pending')
      const where = index < 0 ? 'after its last step' : `in step ${index + 1} (${run.steps[index]!.title})`
      const reason = `the server stopped ${where}; the run cannot continue. Its clusters are left as they were; run the scenario again to start on new clusters.`
      return {
        ...run,
        status: 'failed',
        finishedAt: now,
        error: reason,
        steps: run.steps.map((step, i) => (i === index ? { ...step, status: 'failed', at: now, narration: `${step.narration} Interrupted: ${reason}` } : step)),
      }
    })
    if (interrupted) await this.save()
  }

  catalog(): Scenario[] {
    return this.scenarios.map(({ name, title, description, steps }) => ({ name, title, description, steps: steps.map(({ title: stepTitle }) => ({ title: stepTitle })) }))
  }

  list(): Run[] {
    return [...this.runs].reverse()
  }

  get(id: string): Run {
    const run = this.runs.find((candidate) => candidate.id === id)
    if (!run) throw new ApiError('NOT_FOUND', `no scenario run ${JSON.stringify(id)}`, { details: { id } })
    return run
  }

  /** Starts a run in the background and answers once it is written down (the 202). */
  async start(name: string): Promise<Run> {
    const scenario = this.scenarios.find((candidate) => candidate.name === name)
    if (!scenario) {
      throw new ApiError('NOT_FOUND', `no scenario ${JSON.stringify(name)}`, { details: { scenario: name, scenarios: this.scenarios.map((s) => s.name) } })
    }
    if (this.abort.signal.aborted) throw new ApiError('SOURCE_UNAVAILABLE', 'the server is shutting down')
    const busy = this.runs.find((run) => run.scenario === scenario.name && (run.status === 'pending' || run.status === 'running'))
    if (busy) throw new ApiError('CONFLICT', `scenario ${name} is already running (run ${busy.id})`, { details: { run: busy.id } })
    // Names no cluster or mirror has yet, even if runs.json was lost while the clusters stayed.
    const taken = new Set([...this.deps.clusters.names(), ...this.deps.engine.listMirrors().map((m) => m.name)])
    let base = `${scenario.prefix}-${this.nextSequence++}`
    while (taken.has(base) || taken.has(`${base}-source`) || taken.has(`${base}-destination`)) base = `${scenario.prefix}-${this.nextSequence++}`
    const run: Run = {
      id: `${base}-${Date.now().toString(36)}`,
      scenario: scenario.name,
      status: 'pending',
      context: { sourceCluster: `${base}-source`, destinationCluster: `${base}-destination`, mirror: base, topic: scenario.topic },
      steps: scenario.steps.map((step) => ({ title: step.title, narration: step.intro, status: 'pending', at: null, target: null })),
      startedAt: this.now(),
      finishedAt: null,
      error: null,
    }
    this.runs.push(run)
    if (this.runs.length > KEPT_RUNS) this.runs.splice(0, this.runs.length - KEPT_RUNS)
    await this.save()
    this.deps.onChange?.(run)
    const execution = this.execute(scenario, run.id).finally(() => this.inFlight.delete(run.id))
    this.inFlight.set(run.id, execution)
    return run
  }

  /** Resolves when the run has ended (tests and scripts). */
  async settled(id: string): Promise<Run> {
    await this.inFlight.get(id)
    return this.get(id)
  }

  private async update(id: string, change: (run: Run) => Run): Promise<void> {
    const index = this.runs.findIndex((run) => run.id === id)
    if (index < 0) return
    const run = change(this.runs[index]!)
    this.runs[index] = run
    await this.save()
    this.deps.onChange?.(run)
  }

  private updateStep(id: string, stepIndex: number, patch: Partial<Run['steps'][number]>, runPatch: Partial<Run> = {}): Promise<void> {
    return this.update(id, (run) => ({ ...run, ...runPatch, steps: run.steps.map((step, i) => (i === stepIndex ? { ...step, ...patch } : step)) }))
  }

  private async execute(scenario: ScenarioDefinition, id: string): Promise<void> {
    const { context: names } = this.get(id)
    const plan = scenario.plan({ clusters: this.deps.clusters, engine: this.deps.engine, links: this.deps.links, drills: this.deps.drills, verifier: this.deps.verifier, names, signal: this.abort.signal })
    try {
      for (const [index, step] of plan.steps.entries()) {
        await this.updateStep(id, index, { status: 'running', at: this.now() }, { status: 'running' })
        let outcome
        try {
          outcome = await step()
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error)
          const intro = scenario.steps[index]!.intro
          await this.updateStep(id, index, { status: 'failed', at: this.now(), narration: `${intro} Failed: ${message}` }, { status: 'failed', finishedAt: this.now(), error: `step ${index + 1} (${scenario.steps[index]!.title}) failed: ${message}` })
          this.deps.log.warn('demo scenario step failed', { run: id, scenario: scenario.name, step: index + 1, error: message })
          return
        }
        await this.updateStep(id, index, { status: 'succeeded', at: this.now(), narration: outcome.narration, target: outcome.target ?? null })
      }
      await this.update(id, (run) => ({ ...run, status: 'succeeded', finishedAt: this.now() }))
    } finally {
      await plan.cleanup?.().catch((error: unknown) => this.deps.log.warn('demo scenario cleanup failed', { run: id, error }))
    }
  }

  private save(): Promise<void> {
    const text = `${JSON.stringify({ version: 1, nextSequence: this.nextSequence, runs: this.runs }, null, 1)}\n`
    this.saving = this.saving.catch(() => undefined).then(() => writeFileAtomic(this.file, text, 0o644))
    return this.saving
  }

  /** Ends waits of runs in flight; what they have not finished stays running in the file and fails at the next start. */
  async close(): Promise<void> {
    this.abort.abort()
    await Promise.all(this.inFlight.values())
    await this.saving.catch(() => undefined)
  }
}
