/**
 * Live failover progress, summarised (UI.md §2 step 5): a few partitions are listed one by one, thousands
 * are counted by STOPPING step, with the failed ones and the slow ones (the same step for longer than
 * `SLOW_STEP_MS`) listed by name. Step times are what this page saw: when it first saw a partition at its
 * current step.
 */
import { STOPPING_STEPS, type StoppingStep } from '../mirror/stopping'

export interface ProgressPartition {
  readonly topic: string
  readonly partition: number
  readonly step: StoppingStep
  readonly state: string
  readonly error: string | null
}

export interface StepSeen {
  readonly step: StoppingStep
  readonly since: number
}

/** A partition on the same step for longer than this is listed as slow. */
export const SLOW_STEP_MS = 5_000
/** How many slow and failed partitions are listed by name. */
export const LISTED_PARTITIONS = 20

export function partitionKey(partition: Pick<ProgressPartition, 'topic' | 'partition'>): string {
  return `${partition.topic}\u0000${partition.partition}`
}

/** Step times after an update: kept for partitions whose step did not move, `now` for those whose did. */
export function trackSteps(previous: ReadonlyMap<string, StepSeen>, partitions: readonly ProgressPartition[], now: number): Map<string, StepSeen> {
  const next = new Map<string, StepSeen>()
  for (const partition of partitions) {
    const key = partitionKey(partition)
    const seen = previous.get(key)
    next.set(key, seen !== undefined && seen.step === partition.step ? seen : { step: partition.step, since: now })
  }
  return next
}

export interface SlowPartition extends ProgressPartition {
  readonly forMs: number
}

export interface ProgressSummary {
  readonly total: number
  readonly done: number
  /** Partitions at each step (the step each performs next; `done` once STOPPED). */
  readonly byStep: Readonly<Record<StoppingStep, number>>
  /** FAILED partitions and those with an error, by name, at most LISTED_PARTITIONS. */
  readonly failed: readonly ProgressPartition[]
  readonly failedCount: number
  /** Not done, on the same step for longer than SLOW_STEP_MS, longest first. */
  readonly slow: readonly SlowPartition[]
  readonly slowCount: number
  /** 0–1: steps completed over steps to do. */
  readonly fraction: number
}

export function summarizeProgress(partitions: readonly ProgressPartition[], seen: ReadonlyMap<string, StepSeen>, now: number): ProgressSummary {
  const byStep = Object.fromEntries(STOPPING_STEPS.map((step) => [step, 0])) as Record<StoppingStep, number>
  const failed: ProgressPartition[] = []
  const slow: SlowPartition[] = []
  let failedCount = 0
  let stepsDone = 0
  const lastStep = STOPPING_STEPS.length - 1
  for (const partition of partitions) {
    byStep[partition.step] += 1
    stepsDone += STOPPING_STEPS.indexOf(partition.step)
    if (partition.state === 'FAILED' || partition.error !== null) {
      failedCount += 1
      if (failed.length < LISTED_PARTITIONS) failed.push(partition)
      continue
    }
    if (partition.step === 'done') continue
    const since = seen.get(partitionKey(partition))?.since ?? now
    if (now - since > SLOW_STEP_MS) slow.push({ ...partition, forMs: now - since })
  }
  slow.sort((a, b) => b.forMs - a.forMs)
  return {
    total: partitions.length,
    done: byStep.done,
    byStep,
    failed,
    failedCount,
    slow: slow.slice(0, LISTED_PARTITIONS),
    slowCount: slow.length,
    fraction: partitions.length === 0 ? 1 : stepsDone / (partitions.length * lastStep),
  }
}

/** What the STOPPING steps do, in operators' words. */
export const STEP_DESCRIPTIONS = {
  removeFetcher: 'Remove the fetcher: nothing more is copied from the source',
  persistPosition: 'Persist the last mirror position (epoch, offset) for a later failback',
  bumpEpoch: 'Raise the leader epoch above every mirrored epoch: stale producers are fenced',
  abortTransactions: 'Append an ABORT marker for every transaction still open',
  pidReset: 'Append the MIRROR_PID_RESET record: producer state starts empty',
  done: 'STOPPED: the topic is writable on the destination',
} as const satisfies Record<StoppingStep, string>
