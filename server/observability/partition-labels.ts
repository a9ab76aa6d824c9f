import 'server-only'
import { LabelText } from './exposition'

/**
 * The labels of per-partition series (`{mirror="dr",topic="orders",partition="3"}`, or `cluster=` for a
 * cluster's gauges), escaped once and reused by every later scrape: a partition's labels never change, and
 * writing 100,000 of them again at each scrape was most of its cost. A collection asks for the labels of the
 * partitions it reports, then calls `sweep()`; a topic a whole collection did not ask for (deleted, its mirror
 * or cluster removed) is forgotten, so the cache holds what the scrapes report and no more.
 */
export class PartitionLabels {
  private current = new Map<string, Map<string, LabelText[]>>()
  private previous = new Map<string, Map<string, LabelText[]>>()
  // Collectors ask partition after partition of one topic: the last row saves both map lookups.
  private last: { scope: string; topic: string; row: LabelText[] } | null = null

  constructor(private readonly scopeLabel: string) {}

  of(scope: string, topic: string, partition: number): LabelText {
    const last = this.last
    const row = last !== null && last.scope === scope && last.topic === topic ? last.row : this.row(scope, topic)
    return (row[partition] ??= LabelText.of({ [this.scopeLabel]: scope, topic, partition }))
  }

  /** Ends a collection: the next one starts from the rows this one asked for, the others are dropped. */
  sweep(): void {
    this.previous = this.current
    this.current = new Map()
    this.last = null
  }

  private row(scope: string, topic: string): LabelText[] {
    let topics = this.current.get(scope)
    if (topics === undefined) {
      topics = new Map()
      this.current.set(scope, topics)
    }
    let row = topics.get(topic)
    if (row === undefined) {
      row = this.previous.get(scope)?.get(topic) ?? []
      topics.set(topic, row)
    }
    this.last = { scope, topic, row }
    return row
  }
}
