/**
 * The impact preview's headline figures (UI.md §2 step 3: totals first, then per partition), from a
 * failover plan. `null` where the plan cannot know (the source did not answer for some partition), so the
 * page says "unknown" instead of showing a reassuring 0.
 */
import { totalAtRisk, type AtRisk } from '../mirror/at-risk'

export interface PlanTransaction {
  readonly producerId: number
  readonly producerEpoch: number
  readonly firstOffset: number
}

export interface PlanPartitionLike {
  readonly topic: string
  readonly partition: number
  readonly state: string
  readonly action?: 'stop' | 'stopInProgress' | 'alreadyStopped' | 'cannotStop'
  readonly mirroredOffset: number
  readonly sourceLogEndOffset: number | null
  readonly recordsAtRisk: number | null
  readonly timeAtRiskMs: number | null
  /** lib/mirror/at-risk.ts's figures (exact, or lower bounds from the last fetch when the source is silent); absent in older plans. */
  readonly atRisk?: AtRisk
  readonly transactionsToAbort: readonly PlanTransaction[]
  readonly consumerGroupsBehind: ReadonlyArray<{ readonly groupId: string; readonly committedOffset: number | null }>
}

export interface PlanTotals {
  readonly partitions: number
  /** Partitions the failover will stop (or whose stop is already under way). */
  readonly partitionsToStop: number
  readonly partitionsAlreadyStopped: number
  /** Sum over partitions; null when any partition's figure is unknown. */
  readonly recordsAtRisk: number | null
  /**
   * The same total as the mirror page's "at risk if failed over now" (lib/mirror/at-risk.ts's totalAtRisk): where
   * the source did not answer, a lower bound from the mirror's last fetch instead of "unknown".
   */
  readonly atRisk: AtRisk
  /** Partitions with at least one record at risk. */
  readonly partitionsWithRecordsAtRisk: number
  /** The oldest unmirrored record's age, over partitions; null when unknown for a partition with records at risk. */
  readonly maxTimeAtRiskMs: number | null
  readonly transactionsToAbort: number
  /** Distinct producer ids whose transactions will be aborted. */
  readonly producersToAbort: readonly number[]
  readonly partitionsWithTransactions: number
  /** Distinct consumer groups that resume behind their source position somewhere. */
  readonly consumerGroupsBehind: readonly string[]
  /** FAILED partitions the failover stops anyway (with what they mirrored before failing). */
  readonly failedPartitionsForced: number
}

export function isStopped(partition: Pick<PlanPartitionLike, 'action' | 'state'>): boolean {
  return partition.action === 'alreadyStopped' || (partition.action === undefined && partition.state === 'STOPPED')
}

export function willStop(partition: Pick<PlanPartitionLike, 'action' | 'state'>): boolean {
  if (partition.action !== undefined) return partition.action === 'stop' || partition.action === 'stopInProgress'
  return partition.state !== 'STOPPED' && partition.state !== 'UNKNOWN'
}

export function planTotals(partitions: readonly PlanPartitionLike[]): PlanTotals {
  let partitionsToStop = 0
  let partitionsAlreadyStopped = 0
  let recordsAtRisk: number | null = 0
  let partitionsWithRecordsAtRisk = 0
  let maxTimeAtRiskMs: number | null = 0
  let transactionsToAbort = 0
  let partitionsWithTransactions = 0
  let failedPartitionsForced = 0
  const producers = new Set<number>()
  const groups = new Set<string>()
  const risks: Array<AtRisk | null> = []
  for (const partition of partitions) {
    if (isStopped(partition)) partitionsAlreadyStopped += 1
    if (!willStop(partition)) continue
    partitionsToStop += 1
    if (partition.state === 'FAILED') failedPartitionsForced += 1
    risks.push(partition.atRisk ?? { records: partition.recordsAtRisk, timeMs: partition.timeAtRiskMs, known: partition.recordsAtRisk !== null, asOf: null })
    if (partition.recordsAtRisk === null) recordsAtRisk = null
    else {
      if (recordsAtRisk !== null) recordsAtRisk += partition.recordsAtRisk
      if (partition.recordsAtRisk > 0) partitionsWithRecordsAtRisk += 1
    }
    if (partition.timeAtRiskMs === null) {
      if (partition.recordsAtRisk !== 0) maxTimeAtRiskMs = null
    } else if (maxTimeAtRiskMs !== null) maxTimeAtRiskMs = Math.max(maxTimeAtRiskMs, partition.timeAtRiskMs)
    if (partition.transactionsToAbort.length > 0) partitionsWithTransactions += 1
    transactionsToAbort += partition.transactionsToAbort.length
    for (const transaction of partition.transactionsToAbort) producers.add(transaction.producerId)
    for (const group of partition.consumerGroupsBehind) groups.add(group.groupId)
  }
  return {
    partitions: partitions.length,
    partitionsToStop,
    partitionsAlreadyStopped,
    recordsAtRisk,
    atRisk: totalAtRisk(risks),
    partitionsWithRecordsAtRisk,
    maxTimeAtRiskMs,
    transactionsToAbort,
    producersToAbort: [...producers].sort((a, b) => a - b),
    partitionsWithTransactions,
    consumerGroupsBehind: [...groups].sort(),
    failedPartitionsForced,
  }
}

/** Partitions in the order an operator should read them: the most at risk first, then by name. */
export function byImpact(a: PlanPartitionLike, b: PlanPartitionLike): number {
  const risk = (b.recordsAtRisk ?? Number.MAX_SAFE_INTEGER) - (a.recordsAtRisk ?? Number.MAX_SAFE_INTEGER)
  if (risk !== 0) return risk
  const transactions = b.transactionsToAbort.length - a.transactionsToAbort.length
  if (transactions !== 0) return transactions
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition
}

/** Whether a partition has anything to show in the impact table beyond "nothing lost". */
export function hasImpact(partition: PlanPartitionLike): boolean {
  return (
    partition.recordsAtRisk !== 0 ||
    partition.transactionsToAbort.length > 0 ||
    partition.consumerGroupsBehind.length > 0 ||
    partition.state === 'FAILED'
  )
}
