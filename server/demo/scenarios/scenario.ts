import 'server-only'
import type { RunContext, ScenarioName, StepTarget } from '@/lib/api/demo'
import { ApiError } from '@/lib/api/errors'
import type { ClusterLinks } from '@/server/cluster/links'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { Drills } from '@/server/drills/drills'
import type { MirrorEngine } from '@/server/engine/engine'
import type { Verifier } from '@/server/verification/verifier'
import type { FailoverOperation, PartitionSnapshot } from '@/server/engine/types'

/**
 * What a narrated scenario is made of. A scenario builds clusters of its own (named after its run, so a run
 * interrupted by a crash leaves nothing in the way of the next), then walks through its steps; each step
 * does its work, checks what the KIP says must come out, and narrates what it found. A check that fails
 * fails the step and the run, with the reason.
 */

export interface ScenarioEnvironment {
  clusters: ClusterRegistry
  engine: MirrorEngine
  links: ClusterLinks
  drills: Drills
  verifier: Verifier
}

export interface StepContext extends ScenarioEnvironment {
  names: RunContext
  /** Aborted when the server shuts down: waits end at once. */
  signal: AbortSignal
}

export interface StepOutcome {
  narration: string
  target?: StepTarget
}

export interface ScenarioStep {
  title: string
  /** Shown while the step runs. */
  intro: string
}

export interface ScenarioDefinition {
  name: ScenarioName
  title: string
  description: string
  /** Names of the run's clusters and mirror start with it. */
  prefix: string
  topic: string
  steps: readonly ScenarioStep[]
  /** One run's step functions, in the order of `steps`, closing over that run's state. */
  plan(context: StepContext): ScenarioPlan
}

export interface ScenarioPlan {
  steps: ReadonlyArray<() => Promise<StepOutcome>>
  /** Runs after the last step, or after a failed one: ends what the run started in the background. */
  cleanup?: () => Promise<void>
}

export function target(fields: Partial<StepTarget>): StepTarget {
  return { cluster: null, mirror: null, topic: null, partition: null, operation: null, ...fields }
}

/** A scenario's own check: what the KIP says must happen did not. */
export function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ApiError('CONFLICT', message)
}

const POLL_MS = 100

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes; the error says what was last seen. */
export async function waitFor<T>(
  context: Pick<StepContext, 'signal'>,
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; lastSeen?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  for (;;) {
    if (context.signal.aborted) throw new ApiError('CONFLICT', `stopped while waiting for ${what}: the server is shutting down`)
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() >= deadline) {
      throw new ApiError('CONFLICT', `timed out waiting for ${what}${options.lastSeen ? ` (last seen: ${options.lastSeen()})` : ''}`)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/**
 * Waits until operation `id` has finished. The engine's awaitOperation resolves when every partition has had its
 * stop; a partition still retrying its stop (a FAILED one whose source is gone, a broker down) leaves the
 * operation running after that, and a scenario that read its status then saw "running" (the source-lost
 * scenario failed so now and then).
 */
export async function waitForOperation(context: StepContext, id: string): Promise<FailoverOperation> {
  await context.engine.awaitOperation(id)
  return waitFor(context, `operation ${id} to finish`, () => {
    const operation = context.engine.getOperation(id)
    return operation.status === 'running' ? undefined : operation
  }, { timeoutMs: 60_000, lastSeen: () => context.engine.getOperation(id).partitions.map((p) => `${p.topic}-${p.partition} ${p.state}${p.error ? ` (${p.error})` : ''}`).join(', ') })
}

function describePartitions(partitions: ReadonlyArray<Readonly<PartitionSnapshot>>): string {
  return partitions.map((p) => `${p.topic}-${p.partition} ${p.state}${p.error ? ` (${p.error})` : ''} at ${p.destinationLogEndOffset}`).join(', ') || 'no partitions'
}

/** Waits until every partition of `mirror` (of `topic`, when given) satisfies `ready`. */
export function waitForPartitions(
  context: StepContext,
  mirror: string,
  what: string,
  ready: (partition: Readonly<PartitionSnapshot>) => boolean,
  options: { topic?: string; timeoutMs?: number } = {},
): Promise<ReadonlyArray<Readonly<PartitionSnapshot>>> {
  const read = () => context.engine.partitions(mirror, options.topic === undefined ? {} : { topic: options.topic })
  return waitFor(
    context,
    what,
    () => {
      const partitions = read()
      return partitions.length > 0 && partitions.every(ready) ? partitions : undefined
    },
    { timeoutMs: options.timeoutMs, lastSeen: () => describePartitions(read()) },
  )
}

/** Waits until the destination holds everything the source has (log end offsets equal, lag 0). */
export async function waitForCaughtUp(context: StepContext, mirror: string, sourceCluster: string, topic: string): Promise<number> {
  const source = context.clusters.embedded(sourceCluster)
  let total = 0
  await waitFor(
    context,
    `${mirror} to catch up on ${topic}`,
    async () => {
      const ends = new Map((await source.describeTopic(topic)).partitions.map((p) => [p.partition, p.logEndOffset]))
      const partitions = context.engine.partitions(mirror, { topic })
      const caughtUp = partitions.length === ends.size && partitions.every((p) => p.state === 'MIRRORING' && p.destinationLogEndOffset === ends.get(p.partition))
      total = [...ends.values()].reduce((sum, end) => sum + end, 0)
      return caughtUp ? true : undefined
    },
    { lastSeen: () => describePartitions(context.engine.partitions(mirror, { topic })) },
  )
  return total
}

export type TableRow = [offset: number, type: string, producerId: number | null, content: string | null]

/** A partition's log as the KIP's worked example tables show it: offset, type, producer id, key=value. */
export async function logTable(context: Pick<ScenarioEnvironment, 'clusters'>, cluster: string, topic: string, partition: number): Promise<TableRow[]> {
  const page = await context.clusters.embedded(cluster).readRecords(topic, partition, { fromOffset: 0, limit: 1000 })
  return page.records.map((r) => [r.offset, r.type, r.producerId, r.key === null ? null : `${r.key}=${r.value}`])
}

export function formatTable(rows: readonly TableRow[]): string {
  return rows.map(([offset, type, producerId, content]) => [offset, type, producerId ?? '—', content ?? ''].join(' ').trim()).join(' · ')
}

export function sameTable(actual: readonly TableRow[], expected: readonly TableRow[]): boolean {
  return JSON.stringify(actual) === JSON.stringify(expected)
}

/** Creates the run's two clusters (3 brokers each) through the registry, so they show up on every page. */
export async function createClusterPair(
  context: StepContext,
  options: { source?: { firstProducerId?: number; transactionTimeoutMs?: number }; destination?: { firstProducerId?: number } } = {},
): Promise<void> {
  await context.clusters.create({ name: context.names.sourceCluster, kind: 'embedded', brokers: 3, ...options.source })
  await context.clusters.create({ name: context.names.destinationCluster, kind: 'embedded', brokers: 3, ...options.destination })
}
