import 'server-only'
import { withTimeout } from '@/server/util/with-timeout'
import type { SplitBrain } from '@/lib/api/split-brain'
import { splitBrainOf, type WatchedPartition } from '@/lib/failover/split-brain'
import { splitBatches } from '@/lib/log/record-batch'
import type { SourceCluster } from '@/server/cluster/ports'
import type { MetricFamily } from '@/server/observability/metrics'
import type { MirrorEngine } from '../engine'

/**
 * The split-brain guard: after a failover, producers that still write to the old source are the classic
 * DR accident, and a failback truncates what they wrote. For every mirror with STOPPED partitions this
 * keeps reading the old source's log end offsets (one describe per mirror and round) and counts what was
 * appended since the failover.
 *
 * Since when: the source log end offset the failover's plan saw (the operation that stopped the
 * partition); with no such operation on record (it predates this process, or the source was unreachable
 * then) the first log end offset this watch saw, and `since` says when that was. A partition leaves the
 * watch when it is no longer STOPPED, or when a failback mirror (new source → old source) is running on
 * it: then the old source's log is being rewritten on purpose.
 */

const WATCH_INTERVAL_MS = 1_000
const DESCRIBE_TIMEOUT_MS = 2_000
const REPORT_EVERY_MS = 60_000

interface WatchedMirror {
  oldSourceCluster: string
  partitions: Map<string, WatchedPartition>
  checkedAt: number | null
  sourceReachable: boolean
}

export interface SplitBrainWatchOptions {
  /** A cluster's source port (embedded or Kafka); undefined for a cluster that is not there or not open. */
  source: (cluster: string) => SourceCluster | undefined
  now?: () => number
  intervalMs?: number
  /** Where a failed round or read is reported (the old source unreachable shows in the answer too). */
  log?: (message: string, fields: Record<string, unknown>) => void
}

/**
 * The composition root (server/runtime.ts) runs one watch per engine and hands it to the API, which answers
 * `splitBrain` in mirror summaries from it.
 */
export function startSplitBrainWatch(engine: MirrorEngine, options: SplitBrainWatchOptions): SplitBrainWatch {
  const watch = new SplitBrainWatch(engine, options)
  watch.start()
  return watch
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`
}

export class SplitBrainWatch {
  private readonly mirrors = new Map<string, WatchedMirror>()
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private readonly now: () => number
  private readonly reported = new Map<string, number>()

  constructor(
    private readonly engine: MirrorEngine,
    private readonly options: SplitBrainWatchOptions,
  ) {
    this.now = options.now ?? Date.now
  }

  start(): void {
    this.stopped = false
    const loop = () => {
      if (this.stopped) return
      this.check()
        .catch((error: unknown) => this.report('split-brain watch round failed', { error }))
        .finally(() => {
          if (this.stopped) return
          this.timer = setTimeout(loop, this.options.intervalMs ?? WATCH_INTERVAL_MS)
          this.timer.unref?.()
        })
    }
    loop()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  forMirror(name: string): SplitBrain | null {
    const watched = this.mirrors.get(name)
    if (watched === undefined || watched.partitions.size === 0) return null
    return splitBrainOf(watched.oldSourceCluster, [...watched.partitions.values()], watched.checkedAt, watched.sourceReachable)
  }

  /** One round over every mirror (the loop calls it every second; tests call it directly). */
  async check(): Promise<void> {
    const definitions = this.engine.listMirrors()
    const names = new Set(definitions.map((definition) => definition.name))
    for (const name of this.mirrors.keys()) if (!names.has(name)) this.mirrors.delete(name)
    for (const definition of definitions) {
      try {
        await this.checkMirror(definition.name, definition.sourceCluster, definition.destinationCluster)
      } catch (error) {
        // One mirror's trouble (deleted mid-round, its cluster gone) never stops the others' watch.
        this.report('split-brain check of a mirror failed', { mirror: definition.name, error })
      }
    }
  }

  private async checkMirror(name: string, sourceCluster: string, destinationCluster: string): Promise<void> {
    const rewriting = this.failbackPartitions(sourceCluster, destinationCluster)
    const stopped = this.engine.partitions(name, { state: 'STOPPED' }).filter((partition) => !rewriting.has(keyOf(partition.topic, partition.partition)))
    if (stopped.length === 0) {
      this.mirrors.delete(name)
      return
    }
    let watched = this.mirrors.get(name)
    if (watched === undefined) {
      watched = { oldSourceCluster: sourceCluster, partitions: new Map(), checkedAt: null, sourceReachable: true }
      this.mirrors.set(name, watched)
    }
    const keep = new Set(stopped.map((partition) => keyOf(partition.topic, partition.partition)))
    for (const key of watched.partitions.keys()) if (!keep.has(key)) watched.partitions.delete(key)

    const source = this.options.source(sourceCluster)
    const topics = [...new Set(stopped.map((partition) => partition.topic))]
    let described: Awaited<ReturnType<SourceCluster['describeTopics']>> | null = null
    if (source !== undefined) {
      described = await withTimeout(source.describeTopics(topics), DESCRIBE_TIMEOUT_MS).catch((error: unknown) => {
        this.report('split-brain watch could not describe the old source', { mirror: name, cluster: sourceCluster, error })
        return null
      })
    }
    watched.sourceReachable = described !== null
    if (described === null || source === undefined) return
    const now = this.now()
    watched.checkedAt = now
    const logEnds = new Map<string, number>()
    for (const topic of described) for (const partition of topic.partitions) logEnds.set(keyOf(topic.name, partition.partition), partition.logEndOffset)

    const baselines = stopped.some((partition) => !watched.partitions.has(keyOf(partition.topic, partition.partition))) ? this.failoverBaselines(name) : null
    const grown: WatchedPartition[] = []
    for (const partition of stopped) {
      const key = keyOf(partition.topic, partition.partition)
      const logEndOffset = logEnds.get(key)
      if (logEndOffset === undefined) continue
      const current = watched.partitions.get(key)
      if (current === undefined) {
        const baseline = baselines?.get(key)
        watched.partitions.set(key, {
          topic: partition.topic,
          partition: partition.partition,
          baselineLogEndOffset: baseline?.logEndOffset ?? logEndOffset,
          since: baseline?.since ?? now,
          logEndOffset,
          latestWriteAt: null,
        })
        if (baseline !== undefined && logEndOffset > baseline.logEndOffset) grown.push(watched.partitions.get(key)!)
        continue
      }
      if (logEndOffset !== current.logEndOffset) {
        const next = { ...current, logEndOffset }
        watched.partitions.set(key, next)
        if (logEndOffset > current.baselineLogEndOffset) grown.push(next)
      } else if (current.latestWriteAt === null && logEndOffset > current.baselineLogEndOffset) {
        // The last write was above the high watermark when first read (a fetch answers below it only): read again.
        grown.push(current)
      }
    }
    for (const partition of grown) {
      const latestWriteAt = await this.lastRecordTimestamp(source, partition)
      if (latestWriteAt !== null) watched.partitions.set(keyOf(partition.topic, partition.partition), { ...partition, latestWriteAt })
    }
  }

  /** Partitions of a failback mirror (destination → source of this mirror) that are not STOPPED. */
  private failbackPartitions(sourceCluster: string, destinationCluster: string): Set<string> {
    const keys = new Set<string>()
    for (const definition of this.engine.listMirrors()) {
      if (definition.sourceCluster !== destinationCluster || definition.destinationCluster !== sourceCluster) continue
      for (const partition of this.engine.partitions(definition.name)) {
        if (partition.state !== 'STOPPED') keys.add(keyOf(partition.topic, partition.partition))
      }
    }
    return keys
  }

  /** The source log end offset each partition had when the latest failover that stopped it was planned. */
  private failoverBaselines(mirror: string): Map<string, { logEndOffset: number; since: number }> {
    const baselines = new Map<string, { logEndOffset: number; since: number }>()
    const operations = this.engine
      .listOperations()
      .filter((operation) => operation.mirror === mirror && operation.kind === 'failover')
      .sort((a, b) => a.startedAt - b.startedAt)
    for (const operation of operations) {
      const stopped = new Set(operation.partitions.map((partition) => keyOf(partition.topic, partition.partition)))
      for (const planned of operation.plan.partitions) {
        const key = keyOf(planned.topic, planned.partition)
        if (!stopped.has(key) || planned.sourceLogEndOffset === null) continue
        baselines.set(key, { logEndOffset: planned.sourceLogEndOffset, since: operation.startedAt })
      }
    }
    return baselines
  }

  private async lastRecordTimestamp(source: SourceCluster, partition: WatchedPartition): Promise<number | null> {
    try {
      const [result] = await withTimeout(
        source.fetch([{ topic: partition.topic, partition: partition.partition, fetchOffset: partition.logEndOffset - 1, lastFetchedEpoch: -1, maxBytes: 1 }], { maxBytes: 1 }),
        DESCRIBE_TIMEOUT_MS,
      )
      if (!result?.ok || result.records.byteLength === 0) return null
      const batches = splitBatches(result.records)
      const last = batches.at(-1)
      return last === undefined ? null : Number(last.header.maxTimestamp)
    } catch (error) {
      this.report('split-brain watch could not read the last record written', { topic: partition.topic, partition: partition.partition, error })
      return null
    }
  }

  /** The same failure is reported once a minute, not every round. */
  private report(message: string, fields: Record<string, unknown>): void {
    const error = fields.error instanceof Error ? fields.error.message : String(fields.error)
    const key = `${message}|${String(fields.mirror ?? fields.topic ?? '')}|${error}`
    const now = this.now()
    const last = this.reported.get(key)
    if (last !== undefined && now - last < REPORT_EVERY_MS) return
    if (this.reported.size > 1_000) this.reported.clear()
    this.reported.set(key, now)
    this.options.log?.(message, { ...fields, error })
  }

  metrics(): MetricFamily[] {
    const records: MetricFamily = {
      name: 'mirrorboard_split_brain_records',
      help: 'Records written to the old source of a failed-over mirror since the failover (a failback truncates them).',
      type: 'gauge',
      samples: [],
    }
    const latest: MetricFamily = {
      name: 'mirrorboard_split_brain_latest_write_timestamp_seconds',
      help: 'Time of the newest record written to the old source since the failover.',
      type: 'gauge',
      samples: [],
    }
    for (const [mirror, watched] of this.mirrors) {
      const summary = this.forMirror(mirror)
      if (summary === null) continue
      const byTopic = new Map(summary.topics.map((topic) => [topic.topic, topic]))
      for (const topic of new Set([...watched.partitions.values()].map((partition) => partition.topic))) {
        const written = byTopic.get(topic)
        records.samples.push({ labels: { mirror, topic }, value: written?.recordsWritten ?? 0 })
        if (written?.latestWriteAt != null) latest.samples.push({ labels: { mirror, topic }, value: written.latestWriteAt / 1000 })
      }
    }
    return [records, latest]
  }
}
