import { z } from 'zod'
import { Name, NonNegativeInt, PartitionIndex, Timestamp } from './common'

/**
 * The demo environment's endpoints (API.md "Demo environment"), served only when the server runs with
 * MIRRORBOARD_DEMO=1: workloads (live producers and consumer groups), faults (broker stops, link cuts,
 * unclean elections, hanging transactions) and narrated scenarios on clusters of their own.
 */

/** Ids the demo hands out (faults, runs): short, URL-safe. */
const DemoId = z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be 1 to 64 characters of a-z, 0-9 or "-"')

// STATUS

export const DemoStatus = z.object({
  status: z.enum(['starting', 'ready', 'failed']),
  /** Why the live clusters could not be set up; null unless failed. */
  error: z.string().nullable(),
  sourceCluster: Name,
  destinationCluster: Name,
  mirror: Name,
  topics: z.array(Name),
})
export type DemoStatus = z.infer<typeof DemoStatus>

/** Whether this caller may sign in with one click (demo mode, and a request from this machine to loopback). */
export const DemoSignIn = z.object({ oneClickSignIn: z.literal(true) })

// WORKLOADS

export const WorkloadKind = z.enum(['transactional', 'idempotent', 'plain', 'consumer'])
export type WorkloadKind = z.infer<typeof WorkloadKind>

/** Upper bound of a workload's rate; the embedded cluster fsyncs every batch, and the demo shares its machine. */
export const MAX_WORKLOAD_RATE = 2000

export const Workload = z.object({
  name: Name,
  cluster: Name,
  topic: Name,
  kind: WorkloadKind,
  /** Records per second produced, or consumed (and committed) for a consumer group. */
  ratePerSecond: NonNegativeInt.max(MAX_WORKLOAD_RATE),
  /** The rate of this moment: a producer's traffic swings around `ratePerSecond` (a compressed day, bursts); 0 while paused. */
  currentRatePerSecond: NonNegativeInt,
  paused: z.boolean(),
  /** The consumer group of a `consumer` workload; null for producers. */
  group: z.string().nullable(),
  /** A consumer group's records not yet read (last stable offset minus its position, summed over partitions, at its last read); null for producers. */
  behindRecords: NonNegativeInt.nullable(),
  description: z.string(),
  /** Records written (or consumed) since the server started. */
  recordsTotal: NonNegativeInt,
  /** The last failure (a stopped broker, a cut link), cleared by the next success. */
  lastError: z.string().nullable(),
})
export type Workload = z.infer<typeof Workload>

export const WorkloadList = z.object({ workloads: z.array(Workload) })
export type WorkloadList = z.infer<typeof WorkloadList>

export const WorkloadParams = z.object({ name: Name })

export const PatchWorkloadRequest = z.strictObject({
  ratePerSecond: NonNegativeInt.max(MAX_WORKLOAD_RATE).describe(`Records per second, 0 to ${MAX_WORKLOAD_RATE}.`),
})
export type PatchWorkloadRequest = z.infer<typeof PatchWorkloadRequest>

export const WorkloadResponse = z.object({ workload: Workload })

// FAULTS

export const FaultKind = z.enum(['stop-broker', 'start-broker', 'cut-link', 'heal-link', 'unclean-election', 'hanging-transaction', 'bit-rot'])
export type FaultKind = z.infer<typeof FaultKind>

export const FaultRequest = z.strictObject({
  kind: FaultKind,
  cluster: Name,
  broker: NonNegativeInt.max(2 ** 31 - 1).optional().describe('stop-broker, start-broker: the broker id.'),
  topic: Name.optional().describe('unclean-election, hanging-transaction, bit-rot: the topic.'),
  partition: PartitionIndex.optional().describe('unclean-election, hanging-transaction, bit-rot: the partition, 0 by default.'),
})
export type FaultRequest = z.infer<typeof FaultRequest>

/**
 * `active` until healed (a stopped broker, a cut link, a hanging transaction); `healed` after; `applied` for a
 * one-off event that nothing undoes (an unclean election: the lost records stay lost).
 */
export const FaultStatus = z.enum(['active', 'healed', 'applied'])

export const Fault = z.object({
  id: DemoId,
  kind: z.enum(['stop-broker', 'cut-link', 'unclean-election', 'hanging-transaction', 'bit-rot']),
  cluster: Name,
  broker: NonNegativeInt.nullable(),
  topic: Name.nullable(),
  partition: PartitionIndex.nullable(),
  /** bit-rot: the offset of the record whose value holds the flipped byte (what a verification must name). */
  offset: NonNegativeInt.optional(),
  status: FaultStatus,
  /** What the fault does, in a sentence. */
  summary: z.string(),
  /** What happened when it was applied (leaders moved, records lost, the transaction's producer id). */
  detail: z.string(),
  startedAt: Timestamp,
  healedAt: Timestamp.nullable(),
})
export type Fault = z.infer<typeof Fault>

export const FaultResponse = z.object({ fault: Fault })
export const FaultList = z.object({ faults: z.array(Fault) })
export const FaultParams = z.object({ id: DemoId })

// SCENARIOS

export const ScenarioName = z.enum(['kip-worked-example', 'source-lost', 'planned-switchover', 'unclean-election'])
export type ScenarioName = z.infer<typeof ScenarioName>

export const Scenario = z.object({
  name: ScenarioName,
  title: z.string(),
  description: z.string(),
  steps: z.array(z.object({ title: z.string() })),
})
export type Scenario = z.infer<typeof Scenario>

export const ScenarioList = z.object({ scenarios: z.array(Scenario) })
/** The name is checked by the handler, so an unknown scenario is a 404 rather than a validation error. */
export const ScenarioParams = z.object({ name: Name })

export const RunStatus = z.enum(['pending', 'running', 'succeeded', 'failed'])
export type RunStatus = z.infer<typeof RunStatus>

/** What a step shows: the page of that mirror, partition, cluster or failover operation. */
export const StepTarget = z.object({
  cluster: Name.nullable(),
  mirror: Name.nullable(),
  topic: Name.nullable(),
  partition: PartitionIndex.nullable(),
  operation: z.string().nullable(),
})
export type StepTarget = z.infer<typeof StepTarget>

export const RunStep = z.object({
  title: z.string(),
  /** What the step does while it runs; what it found once it ran. */
  narration: z.string(),
  status: RunStatus,
  /** When the step started (running) or finished; null while pending. */
  at: Timestamp.nullable(),
  target: StepTarget.nullable(),
})
export type RunStep = z.infer<typeof RunStep>

export const RunContext = z.object({
  sourceCluster: Name,
  destinationCluster: Name,
  mirror: Name,
  topic: Name,
})
export type RunContext = z.infer<typeof RunContext>

export const Run = z.object({
  id: DemoId,
  scenario: ScenarioName,
  status: RunStatus,
  context: RunContext,
  steps: z.array(RunStep),
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  /** Why the run failed; null otherwise. */
  error: z.string().nullable(),
})
export type Run = z.infer<typeof Run>

export const RunResponse = z.object({ run: Run })
export const RunList = z.object({ runs: z.array(Run) })
export const RunParams = z.object({ id: DemoId })
