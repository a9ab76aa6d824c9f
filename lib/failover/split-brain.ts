/**
 * The split-brain guard's decisions (lib/api/split-brain.ts is what it answers): which partitions of a
 * failed-over mirror are watched, which records on the old source count as producers' writes, and who those
 * producers are. The watch (server/engine/failover/split-brain-watch.ts) reads the old source and feeds
 * these functions.
 *
 * - Watched: a STOPPED partition, unless a mirror the other way (a failback) is rewriting the old source's log
 *   on purpose (not STOPPED), or has itself failed over since (STOPPED later than this one): then the old
 *   source is the active cluster again, producers belong there, and this guard retires.
 * - Counted: data records written at or after the failover's baseline. Control batches never count: commit and
 *   abort markers, and Mirrorboard's own MIRROR_PID_RESET (a failback mirrors the new source's markers and PID
 *   reset into the old source, and a failover of that failback writes its own); nor do batches of producer ids
 *   Mirrorboard itself writes with (drill or fence records). A log that shrank (truncated by a failback, or
 *   delete-records) is scanned again from where it now ends.
 * - Producers: every producer id seen in a counted batch, with its epoch, records, newest write and, where
 *   the cluster knows it, its transactional id.
 */
import type { SplitBrain, SplitBrainProducer } from '../api/split-brain'
import type { MirrorPartitionState } from '../mirror/states'

// WHICH PARTITIONS

export type GuardVerdict =
  /** STOPPED, and nothing the other way has taken over: writes to the old source are an accident. */
  | 'watch'
  /** Not STOPPED: the mirror still mirrors (or stops) here, nothing to guard. */
  | 'notStopped'
  /** A failback mirror is rewriting the old source's log on purpose. */
  | 'rewriting'
  /** The failback mirror failed over after this one: the old source is the active cluster again. */
  | 'retired'

export interface GuardedPartitionState {
  readonly state: MirrorPartitionState
  /** When it entered that state. */
  readonly stateSince: number
}

/** `reverse`: the same partition in a mirror the other way (destination → source), if there is one. */
export function guardVerdict(partition: GuardedPartitionState, reverse: GuardedPartitionState | undefined): GuardVerdict {
  if (partition.state !== 'STOPPED') return 'notStopped'
  if (reverse === undefined || reverse.state === 'UNKNOWN') return 'watch'
  if (reverse.state !== 'STOPPED') return 'rewriting'
  // Both stopped: whichever failed over last is where producers belong.
  return reverse.stateSince > partition.stateSince ? 'retired' : 'watch'
}

// WHAT COUNTS

/** A record batch header on the old source, as far as the guard reads it (lib/log/record-batch.ts `BatchHeader`). */
export interface BatchSummary {
  readonly baseOffset: number
  readonly lastOffset: number
  readonly recordCount: number
  readonly isControl: boolean
  readonly producerId: number
  readonly producerEpoch: number
  readonly maxTimestamp: number
}

export interface ProducerWrites {
  readonly producerId: number
  readonly producerEpoch: number
  readonly records: number
  readonly latestWriteAt: number | null
}

/** What the scan of one old-source partition has found beyond the baseline so far. */
export interface PartitionWrites {
  /** Offsets below this were scanned (or lie before the failover). */
  readonly scannedTo: number
  /** Data records counted as producers' writes. */
  readonly records: number
  /** Records left out as Mirrorboard's own (markers, PID resets, drill and fence records). */
  readonly ownRecords: number
  readonly latestWriteAt: number | null
  readonly producers: ReadonlyMap<number, ProducerWrites>
}

export function startWrites(from: number): PartitionWrites {
  return { scannedTo: from, records: 0, ownRecords: 0, latestWriteAt: null, producers: new Map() }
}

/**
 * Adds what batches read from `scannedTo` on say, in offset order. A batch that starts before `scannedTo` (a
 * fetch answers from the batch holding the offset) counts only its records from there on.
 */
export function addBatches(writes: PartitionWrites, batches: readonly BatchSummary[], ownProducerIds: ReadonlySet<number> = new Set()): PartitionWrites {
  let { scannedTo, records, ownRecords, latestWriteAt } = writes
  const producers = new Map(writes.producers)
  for (const batch of batches) {
    if (batch.lastOffset < scannedTo) continue
    const spanned = batch.lastOffset - batch.baseOffset + 1
    const count = Math.min(batch.recordCount, batch.lastOffset - Math.max(batch.baseOffset, scannedTo) + 1, spanned)
    scannedTo = batch.lastOffset + 1
    if (batch.isControl || (batch.producerId >= 0 && ownProducerIds.has(batch.producerId))) {
      ownRecords += count
      continue
    }
    records += count
    latestWriteAt = Math.max(latestWriteAt ?? batch.maxTimestamp, batch.maxTimestamp)
    const producer = producers.get(batch.producerId)
    producers.set(batch.producerId, {
      producerId: batch.producerId,
      producerEpoch: Math.max(producer?.producerEpoch ?? batch.producerEpoch, batch.producerEpoch),
      records: (producer?.records ?? 0) + count,
      latestWriteAt: Math.max(producer?.latestWriteAt ?? batch.maxTimestamp, batch.maxTimestamp),
    })
  }
  return { scannedTo, records, ownRecords, latestWriteAt, producers }
}

/**
 * The old source's log now ends at `logEndOffset`: below what was scanned, the log was cut (a failback's
 * truncation, delete-records) and what was counted may be gone, so the count starts again from the new end.
 */
export function afterLogEnd(writes: PartitionWrites, logEndOffset: number): PartitionWrites {
  return logEndOffset < writes.scannedTo ? startWrites(logEndOffset) : writes
}

// THE ANSWER

export interface WatchedPartition {
  readonly topic: string
  readonly partition: number
  readonly baselineLogEndOffset: number
  readonly since: number
  readonly logEndOffset: number
  readonly writes: PartitionWrites
}

/** Records counted on a partition: its producers' data records found beyond the failover. */
export function recordsWritten(partition: Pick<WatchedPartition, 'writes'>): number {
  return partition.writes.records
}

/** Offsets beyond what the scan has read so far (a burst larger than a round reads): not yet sorted into writes or own records. */
export function unscannedOffsets(partition: Pick<WatchedPartition, 'writes' | 'logEndOffset'>): number {
  return Math.max(0, partition.logEndOffset - partition.writes.scannedTo)
}

const PRODUCERS_SHOWN = 20

/** `transactionalIds`: what the cluster knows of the producer ids (embedded clusters know their transactional ids). */
export function splitBrainOf(
  oldSourceCluster: string,
  partitions: readonly WatchedPartition[],
  checkedAt: number | null,
  sourceReachable: boolean,
  transactionalIds: ReadonlyMap<number, string> = new Map(),
): SplitBrain {
  const topics = new Map<string, { recordsWritten: number; latestWriteAt: number | null; partitionsWritten: number }>()
  const producers = new Map<number, { producerId: number; producerEpoch: number; records: number; latestWriteAt: number | null; topics: Set<string> }>()
  let total = 0
  let own = 0
  let unscanned = 0
  let latest: number | null = null
  let since = Number.POSITIVE_INFINITY
  for (const partition of partitions) {
    since = Math.min(since, partition.since)
    own += partition.writes.ownRecords
    unscanned += unscannedOffsets(partition)
    const written = recordsWritten(partition)
    if (written === 0) continue
    total += written
    const topic = topics.get(partition.topic) ?? { recordsWritten: 0, latestWriteAt: null, partitionsWritten: 0 }
    topic.recordsWritten += written
    topic.partitionsWritten += 1
    const writtenAt = partition.writes.latestWriteAt
    if (writtenAt !== null) {
      topic.latestWriteAt = Math.max(topic.latestWriteAt ?? 0, writtenAt)
      latest = Math.max(latest ?? 0, writtenAt)
    }
    topics.set(partition.topic, topic)
    for (const found of partition.writes.producers.values()) {
      const producer = producers.get(found.producerId) ?? { producerId: found.producerId, producerEpoch: found.producerEpoch, records: 0, latestWriteAt: null, topics: new Set<string>() }
      producer.producerEpoch = Math.max(producer.producerEpoch, found.producerEpoch)
      producer.records += found.records
      if (found.latestWriteAt !== null) producer.latestWriteAt = Math.max(producer.latestWriteAt ?? 0, found.latestWriteAt)
      producer.topics.add(partition.topic)
      producers.set(found.producerId, producer)
    }
  }
  const named: SplitBrainProducer[] = [...producers.values()]
    .sort((a, b) => b.records - a.records || a.producerId - b.producerId)
    .slice(0, PRODUCERS_SHOWN)
    .map((producer) => ({
      producerId: producer.producerId < 0 ? null : producer.producerId,
      producerEpoch: producer.producerId < 0 ? null : producer.producerEpoch,
      transactionalId: transactionalIds.get(producer.producerId) ?? null,
      records: producer.records,
      latestWriteAt: producer.latestWriteAt,
      topics: [...producer.topics].sort(),
    }))
  return {
    oldSourceCluster,
    since: Number.isFinite(since) ? since : (checkedAt ?? 0),
    watchedPartitions: partitions.length,
    recordsWritten: total,
    latestWriteAt: latest,
    checkedAt,
    sourceReachable,
    topics: [...topics.entries()]
      .map(([topic, figures]) => ({ topic, ...figures }))
      .sort((a, b) => b.recordsWritten - a.recordsWritten || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
    producers: named,
    ownRecordsIgnored: own,
    unscannedOffsets: unscanned,
  }
}
