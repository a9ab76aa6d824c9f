import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { withTimeout } from '@/server/util/with-timeout'
import type { SplitBrain, SplitBrainFailover } from '@/lib/api/split-brain'
import {
  addBatches,
  afterLogEnd,
  guardVerdict,
  splitBrainOf,
  startWrites,
  type BatchSummary,
  type GuardedPartitionState,
  type PartitionWrites,
  type WatchedPartition,
} from '@/lib/failover/split-brain'
import { BATCH_HEADER_SIZE, batchSizeAt, readBatchHeader, viewOf } from '@/lib/log/record-batch'
import type { SourceCluster } from '@/server/cluster/ports'
import type { MetricFamily } from '@/server/observability/metrics'
import type { MirrorEngine } from '../engine'
import type { FailoverOperation } from '../types'

/**
 * The split-brain guard: after a failover, producers that still write to the old source are the classic
 * DR accident, and a failback truncates what they wrote. For every mirror with STOPPED partitions this
 * keeps reading the old source's log end offsets (one describe per mirror and round) and counts what was
 * appended since the failover.
 *
 * Since when: the source log end offset the failover's plan saw (the operation that stopped the
 * partition); with no such operation on record (it predates this process, or the source was unreachable
 * then) the first log end offset this watch saw, and `since` says when that was. Which partitions are
 * watched, which records count and who wrote them is decided in lib/failover/split-brain.ts: a failback
 * running on a partition, or one that failed over since, takes it out of the watch; markers and PID resets
 * never count; the batches read beyond the baseline name the producers.
 */

/** The headers of the whole batches in a fetch answer (a size-capped answer may end in a cut one). */
function completeBatches(bytes: Uint8Array): BatchSummary[] {
  const view = viewOf(bytes)
  const batches: BatchSummary[] = []
  let position = 0
  while (position + BATCH_HEADER_SIZE <= bytes.byteLength) {
    const size = batchSizeAt(view, position)
    if (size === undefined || size < BATCH_HEADER_SIZE || position + size > bytes.byteLength) break
    batches.push(readBatchHeader(view, position))
    position += size
  }
  return batches
}

const WATCH_INTERVAL_MS = 1_000
const DESCRIBE_TIMEOUT_MS = 2_000
const REPORT_EVERY_MS = 60_000
/** Bytes of old-source batches read per round: a burst of writes is sorted over a few seconds, never in one stall. */
const SCAN_BYTES_PER_ROUND = 4 * 1024 * 1024
const SCAN_BYTES_PER_PARTITION = 1024 * 1024
const NO_PRODUCER_IDS: ReadonlySet<number> = new Set()

interface WatchedMirror {
  oldSourceCluster: string
  partitions: TopicPartitionMap<WatchedPartition>
  checkedAt: number | null
  sourceReachable: boolean
  /** Transactional ids the old source's cluster named, by producer id. */
  transactionalIds: Map<number, string>
}

export interface SplitBrainWatchOptions {
  /** A cluster's source port (embedded or Kafka); undefined for a cluster that is not there or not open. */
  source: (cluster: string) => SourceCluster | undefined
  now?: () => number
  intervalMs?: number
  /** Where a failed round or read is reported (the old source unreachable shows in the answer too). */
  log?: (message: string, fields: Record<string, unknown>) => void
  /** Producer ids Mirrorboard itself writes with (drill or fence records): never counted as producers' writes. */
  ownProducerIds?: () => ReadonlySet<number>
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
    const partitions = [...watched.partitions.values()]
    return { ...splitBrainOf(watched.oldSourceCluster, partitions, watched.checkedAt, watched.sourceReachable, watched.transactionalIds), failover: this.failoverOf(name, partitions) }
  }

  /**
   * The newest failover or switchover that stopped any watched partition, and who confirmed it: the notice
   * names a person (or a token), never just "the mirror failed over".
   */
  private failoverOf(mirror: string, partitions: readonly WatchedPartition[]): SplitBrainFailover | null {
    const watched = TopicPartitionMap.of(partitions.map((partition) => [partition, true] as const))
    let newest: FailoverOperation | null = null
    for (const operation of this.engine.listOperations()) {
      if (operation.mirror !== mirror || (operation.kind !== 'failover' && operation.kind !== 'switchover')) continue
      if (!operation.partitions.some((partition) => watched.has(partition))) continue
      if (newest === null || operation.startedAt > newest.startedAt) newest = operation
    }
    if (newest === null) return null
    const requester = newest.requestedBy
    return {
      operationId: newest.id,
      kind: newest.kind,
      startedAt: newest.startedAt,
      requestedBy: requester === null ? null : { actor: requester.actor, ...(requester.actorName === undefined ? {} : { actorName: requester.actorName }), role: requester.role },
    }
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
    const reverse = this.reversePartitions(sourceCluster, destinationCluster)
    const stopped = this.engine
      .partitions(name, { state: 'STOPPED' })
      .filter((partition) => guardVerdict(partition, reverse.get(partition)) === 'watch')
    if (stopped.length === 0) {
      this.mirrors.delete(name)
      return
    }
    let watched = this.mirrors.get(name)
    if (watched === undefined) {
      watched = { oldSourceCluster: sourceCluster, partitions: new TopicPartitionMap(), checkedAt: null, sourceReachable: true, transactionalIds: new Map() }
      this.mirrors.set(name, watched)
    }
    const keep = TopicPartitionMap.of(stopped.map((partition) => [partition, true] as const))
    for (const [partition] of [...watched.partitions]) if (!keep.has(partition)) watched.partitions.delete(partition)

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
    const logEnds = new TopicPartitionMap<number>()
    for (const topic of described) for (const partition of topic.partitions) logEnds.set({ topic: topic.name, partition: partition.partition }, partition.logEndOffset)

    const baselines = stopped.some((partition) => !watched.partitions.has(partition)) ? this.failoverBaselines(name) : null
    let budget = SCAN_BYTES_PER_ROUND
    for (const partition of stopped) {
      const logEndOffset = logEnds.get(partition)
      if (logEndOffset === undefined) continue
      const current = watched.partitions.get(partition)
      const baseline = current === undefined ? baselines?.get(partition) : undefined
      const baselineLogEndOffset = current?.baselineLogEndOffset ?? baseline?.logEndOffset ?? logEndOffset
      let next: WatchedPartition = {
        topic: partition.topic,
        partition: partition.partition,
        baselineLogEndOffset,
        since: current?.since ?? baseline?.since ?? now,
        logEndOffset,
        writes: afterLogEnd(current?.writes ?? startWrites(Math.min(baselineLogEndOffset, logEndOffset)), logEndOffset),
      }
      if (next.writes.scannedTo < logEndOffset && budget > 0) {
        const scanned = await this.scan(source, next, Math.min(budget, SCAN_BYTES_PER_PARTITION))
        budget -= scanned.bytes
        next = { ...next, writes: scanned.writes }
      }
      watched.partitions.set(partition, next)
    }
    await this.nameProducers(source, watched)
  }

  /** The same partitions in mirrors the other way (destination → source of this mirror): failbacks. */
  private reversePartitions(sourceCluster: string, destinationCluster: string): TopicPartitionMap<GuardedPartitionState> {
    const partitions = new TopicPartitionMap<GuardedPartitionState>()
    for (const definition of this.engine.listMirrors()) {
      if (definition.sourceCluster !== destinationCluster || definition.destinationCluster !== sourceCluster) continue
      for (const partition of this.engine.partitions(definition.name)) {
        const known = partitions.get(partition)
        // Two failbacks of one partition (one deleted and made again): the newest state decides.
        if (known === undefined || partition.stateSince > known.stateSince) partitions.set(partition, { state: partition.state, stateSince: partition.stateSince })
      }
    }
    return partitions
  }

  /** The source log end offset each partition had when the latest failover that stopped it was planned. */
  private failoverBaselines(mirror: string): TopicPartitionMap<{ logEndOffset: number; since: number }> {
    const baselines = new TopicPartitionMap<{ logEndOffset: number; since: number }>()
    const operations = this.engine
      .listOperations()
      .filter((operation) => operation.mirror === mirror && operation.kind === 'failover')
      .sort((a, b) => a.startedAt - b.startedAt)
    for (const operation of operations) {
      const stopped = TopicPartitionMap.of(operation.partitions.map((partition) => [partition, true] as const))
      for (const planned of operation.plan.partitions) {
        if (!stopped.has(planned) || planned.sourceLogEndOffset === null) continue
        baselines.set(planned, { logEndOffset: planned.sourceLogEndOffset, since: operation.startedAt })
      }
    }
    return baselines
  }

  /**
   * Reads the old source's batches from where the scan stands, up to `maxBytes`, and sorts them into
   * producers' writes and Mirrorboard's own records (lib/failover/split-brain.ts). Headers only: nothing
   * is decompressed. A fetch answers below the high watermark, so a write not yet replicated waits a round.
   */
  private async scan(source: SourceCluster, partition: WatchedPartition, maxBytes: number): Promise<{ writes: PartitionWrites; bytes: number }> {
    let writes = partition.writes
    let bytes = 0
    try {
      while (writes.scannedTo < partition.logEndOffset && bytes < maxBytes) {
        const [result] = await withTimeout(
          source.fetch([{ topic: partition.topic, partition: partition.partition, fetchOffset: writes.scannedTo, lastFetchedEpoch: -1, maxBytes: maxBytes - bytes }], { maxBytes: maxBytes - bytes }),
          DESCRIBE_TIMEOUT_MS,
        )
        if (!result?.ok || result.records.byteLength === 0) break
        bytes += result.records.byteLength
        const batches = completeBatches(result.records)
        if (batches.length === 0) break
        const before = writes.scannedTo
        writes = addBatches(writes, batches, this.options.ownProducerIds?.() ?? NO_PRODUCER_IDS)
        if (writes.scannedTo === before) break
      }
    } catch (error) {
      // The next round reads on from where this one stopped.
      this.report('split-brain watch could not read the old source', { topic: partition.topic, partition: partition.partition, error })
    }
    return { writes, bytes }
  }

  /** Asks the old source's cluster for the transactional ids of producers not named yet, where it can say. */
  private async nameProducers(source: SourceCluster, watched: WatchedMirror): Promise<void> {
    if (source.transactionalIdsOf === undefined) return
    const unnamed = new Set<number>()
    for (const partition of watched.partitions.values()) {
      for (const producerId of partition.writes.producers.keys()) if (producerId >= 0 && !watched.transactionalIds.has(producerId)) unnamed.add(producerId)
    }
    if (unnamed.size === 0) return
    const named = await withTimeout(source.transactionalIdsOf([...unnamed]), DESCRIBE_TIMEOUT_MS).catch(() => null)
    for (const [producerId, transactionalId] of named ?? []) watched.transactionalIds.set(producerId, transactionalId)
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
    const splitBrain: MetricFamily = {
      name: 'mirrorboard_mirror_split_brain',
      help: 'Whether the old source of a failed-over mirror took records since the failover (1) or not (0); absent while no partition is watched.',
      type: 'gauge',
      samples: [],
    }
    for (const [mirror, watched] of this.mirrors) {
      const summary = this.forMirror(mirror)
      if (summary === null) continue
      splitBrain.samples.push({ labels: { mirror }, value: summary.recordsWritten > 0 ? 1 : 0 })
      const byTopic = new Map(summary.topics.map((topic) => [topic.topic, topic]))
      for (const topic of new Set([...watched.partitions.values()].map((partition) => partition.topic))) {
        const written = byTopic.get(topic)
        records.samples.push({ labels: { mirror, topic }, value: written?.recordsWritten ?? 0 })
        if (written?.latestWriteAt != null) latest.samples.push({ labels: { mirror, topic }, value: written.latestWriteAt / 1000 })
      }
    }
    return [records, latest, splitBrain]
  }
}
