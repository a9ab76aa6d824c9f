/**
 * A mirror's lag history per topic (GET /mirrors/{m}/lag?by=topic): each topic's partitions folded into one
 * series on the step's buckets, offset lag summed, time lag the worst partition's. The mirror page's chart
 * shows nothing finer, and the per-partition answer of a 2,000-partition mirror is 2.4 MB of JSON that a
 * phone parsed and folded on its main thread while the page loaded (Lighthouse's total blocking time).
 * lib/ui/lag-series.ts folds per-partition series the same way, so the chart draws the same lines from either.
 */

/** `[bucket start, offsetLag, timeLagMs]`; null where no partition of the topic had a figure. */
export type TopicLagPoint = [time: number, offsetLag: number | null, timeLagMs: number | null]

export interface TopicLagSeries {
  readonly topic: string
  /** How many partitions were folded in. */
  readonly partitions: number
  readonly points: TopicLagPoint[]
}

type PointIn = readonly [time: number, offsetLag: number | null, timeLagMs: number | null]

function bucketOf(time: number, stepMs: number): number {
  return Math.floor(time / stepMs) * stepMs
}

/** Folds per-partition series into one per topic, in the order the topics first appear; points ascending. */
export function lagByTopic(series: ReadonlyArray<{ readonly topic: string; readonly points: readonly PointIn[] }>, stepMs: number): TopicLagSeries[] {
  const topics = new Map<string, { partitions: number; buckets: Map<number, TopicLagPoint> }>()
  for (const { topic, points } of series) {
    let entry = topics.get(topic)
    if (entry === undefined) topics.set(topic, (entry = { partitions: 0, buckets: new Map() }))
    entry.partitions += 1
    for (const [time, offsetLag, timeLagMs] of points) {
      const start = bucketOf(time, stepMs)
      const bucket = entry.buckets.get(start)
      if (bucket === undefined) {
        entry.buckets.set(start, [start, offsetLag, timeLagMs])
        continue
      }
      if (offsetLag !== null) bucket[1] = (bucket[1] ?? 0) + offsetLag
      if (timeLagMs !== null) bucket[2] = bucket[2] === null ? timeLagMs : Math.max(bucket[2], timeLagMs)
    }
  }
  return [...topics].map(([topic, { partitions, buckets }]) => ({ topic, partitions, points: [...buckets.values()].sort((a, b) => a[0] - b[0]) }))
}
