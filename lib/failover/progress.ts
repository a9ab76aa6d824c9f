/**
 * Live failover progress, summarised (UI.md §2 step 5): a few partitions are listed one by one, thousands
 * are counted by STOPPING step, with the failed ones and the slow ones (the same step for longer than
 * `SLOW_STEP_MS`) listed by name. Step times are what this page saw: when it first saw a partition at its
 * current step.
 */
import { STOPPING_STEPS, type StoppingStep } from '../mirror/stopping'
import { TopicPartitionMap } from '../mirror/topic-partition'

export interface ProgressPartition {
  readonly topic: string
  readonly partition: number
  readonly step: StoppingStep
  readonly state: string
  readonly error: string | null
}

/**
 * When this page first saw each partition at its current step, index-aligned with the operation's partitions
 * (an operation's list never reorders). An array of numbers, not a map of keyed objects: a failover of 10,000
 * partitions updates it four times a second, and one entry per partition per event was the page's main
 * work while it showed progress.
 */
export interface StepTimes {
  readonly partitions: readonly ProgressPartition[]
  readonly since: Float64Array
}

/** A partition on the same step for longer than this is listed as slow. */
export const SLOW_STEP_MS = 5_000
/** How many slow and failed partitions are listed by name. */
export const LISTED_PARTITIONS = 20

/**
 * Step times after an update: kept for partitions whose step did not move, `now` for those whose did. A
 * progress event patches only the partitions that changed (lib/ui/operation-event.ts) and shares the others,
 * so most entries are the same object as before and are kept without looking at them.
 */
export function trackSteps(previous: StepTimes | null, partitions: readonly ProgressPartition[], now: number): StepTimes {
  const since = new Float64Array(partitions.length)
  if (previous !== null && previous.partitions.length === partitions.length) {
    for (let index = 0; index < partitions.length; index++) {
      const current = partitions[index]!
      const before = previous.partitions[index]!
      since[index] = before === current || (before.step === current.step && before.partition === current.partition && before.topic === current.topic) ? previous.since[index]! : now
    }
    return { partitions, since }
  }
  // Another list (the first one, or a different operation): matched by name.
  const byKey = new TopicPartitionMap<{ step: StoppingStep; since: number }>()
  if (previous !== null) previous.partitions.forEach((partition, index) => byKey.set(partition, { step: partition.step, since: previous.since[index]! }))
  partitions.forEach((partition, index) => {
    const seen = byKey.get(partition)
    since[index] = seen !== undefined && seen.step === partition.step ? seen.since : now
  })
  return { partitions, since }
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

/**
 * One pass, no allocation per partition: the page summarises 10,000 partitions at every event and every
 * second. Only the LISTED_PARTITIONS slowest become objects (kept sorted as they are found), not every slow one.
 */
export function summarizeProgress(partitions: readonly ProgressPartition[], times: StepTimes | null, now: number): ProgressSummary {
  const byStep = Object.fromEntries(STOPPING_STEPS.map((step) => [step, 0])) as Record<StoppingStep, number>
  const stepIndex = Object.fromEntries(STOPPING_STEPS.map((step, index) => [step, index])) as Record<StoppingStep, number>
  const aligned = times !== null && times.partitions.length === partitions.length
  const failed: ProgressPartition[] = []
  // The slowest so far, longest first, at most LISTED_PARTITIONS: [since, index] pairs.
  const slowest: Array<[number, number]> = []
  let slowCount = 0
  let failedCount = 0
  let stepsDone = 0
  const lastStep = STOPPING_STEPS.length - 1
  for (let index = 0; index < partitions.length; index++) {
    const partition = partitions[index]!
    byStep[partition.step] += 1
    stepsDone += stepIndex[partition.step]
    if (partition.state === 'FAILED' || partition.error !== null) {
      failedCount += 1
      if (failed.length < LISTED_PARTITIONS) failed.push(partition)
      continue
    }
    if (partition.step === 'done') continue
    const since = aligned ? times.since[index]! : now
    if (now - since <= SLOW_STEP_MS) continue
    slowCount += 1
    if (slowest.length === LISTED_PARTITIONS && since >= slowest[slowest.length - 1]![0]) continue
    let at = slowest.length
    while (at > 0 && slowest[at - 1]![0] > since) at -= 1
    slowest.splice(at, 0, [since, index])
    if (slowest.length > LISTED_PARTITIONS) slowest.pop()
  }
  return {
    total: partitions.length,
    done: byStep.done,
    byStep,
    failed,
    failedCount,
    slow: slowest.map(([since, index]) => ({ ...partitions[index]!, forMs: now - since })),
    slowCount,
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
