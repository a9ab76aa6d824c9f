import 'server-only'
import { LeaderEpochCache } from '@/lib/log/leader-epoch-cache'
import { splitBatches } from '@/lib/log/record-batch'
import type { BatchHeader } from '@/lib/log/types'
import { ClusterError } from '../errors'
import type { TopicPartition } from '../ports'
import { EmulatedProducers, type ProduceOutcome, type ProducedBatch } from './emulated-producer'
import type { KafkaSourceCluster } from './kafka-source'
import type { PartitionEmulation } from './kafka-mirror-state'
import { noteOn } from './kafka-mirror-state'
import { OffsetTranslation } from './offset-translation'
import { MAX_IN_FLIGHT } from './pipelined-producer'
import { acknowledgedLate } from './unacknowledged-produce'

/** What the mirror path needs of its host (kafka-mirror-host.ts), which runs it under the partition's lock. */
export interface MirrorPathHost {
  source(): KafkaSourceCluster
  producers(): EmulatedProducers
  brokerHighWatermark(tp: TopicPartition): Promise<number>
  /** The broker's log end at the start of this append: read with the last commit's marker (atomic appends), or now. */
  brokerEndAtStart(tp: TopicPartition): Promise<number>
  leaderOf(tp: TopicPartition): Promise<number>
  /** Throws TOPIC_READ_ONLY (and records why) when another client wrote to the mirror topic. */
  checkUntouched(e: PartitionEmulation, brokerEnd?: number): Promise<void>
  persist(e: PartitionEmulation): Promise<void>
  /** Atomic appends (issue #40): the batches produced in the partition's transaction, committed with `commit`. */
  atomic(): boolean
  /** Commits the partition's transaction with `e` as its emulation record (`holdsData`: its marker is counted in `e`). */
  commit(e: PartitionEmulation, holdsData: boolean): Promise<void>
  /** Waits until the last commit's COMMIT marker is in the partition (before another producer writes to it). */
  markerIn(tp: TopicPartition): Promise<unknown>
  /** Aborts the partition's transaction and drops its producer: the next write claims the id and reads the state again. */
  abandon(tp: TopicPartition): Promise<void>
}

/**
 * MirrorHost.appendMirroredBatches on a Kafka cluster (the host's emulation, DESIGN.md §5): source batches
 * produced in source order, batches outside transactions pipelined, transactional ones through the source
 * producer's own destination transaction, markers reproduced as commits and aborts; each answer's offsets
 * recorded in the translation, epochs in the epoch cache, and a produce whose answer was lost found again on
 * the broker instead of written twice. The partition's emulation is persisted whatever happens.
 *
 * Atomic appends (issue #40, `host.atomic()`): the batches outside source transactions go in a transaction of the
 * partition's transactional id, and the emulation record of what they reached (log end, translation, epochs) is
 * written in the same transaction and committed with them (Kafka Connect's exactly-once source tasks commit records
 * and offsets so, KIP-618): a writer that crashes, is fenced or fails mid-append leaves neither data without its
 * record nor a record without its data (the claim of the next writer aborts the transaction). Its COMMIT marker takes
 * one destination offset (the translation counts it). A source transaction's batches and markers go through that
 * source producer's own transactional producer (their markers must land where the source's did), so the partition's
 * transaction is committed before each of them and their record follows in a transaction of its own: not atomic with
 * their data. On failure nothing of the append is kept: `e` is what was last committed.
 */
export async function appendMirrored(
  host: MirrorPathHost,
  tp: TopicPartition,
  e: PartitionEmulation,
  records: Uint8Array,
): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }> {
  const batches = splitBatches(records)
  if (batches.length === 0) return { logEndOffset: e.logEndOffset, highWatermark: e.logEndOffset, lastBatchEpoch: new LeaderEpochCache(e.epochs).latestEpoch() }
  const first = batches[0]!.header
  const atomic = host.atomic()
  // Atomic appends: a transaction opened for this append (kafka-mirror-host.ts writablePartition) is aborted when the
  // append is refused before it starts, so no transaction of ours stays open past the append.
  const refuse = async (error: ClusterError): Promise<never> => {
    if (atomic && (await host.producers().holdsData(tp))) await host.abandon(tp)
    throw error
  }
  if (first.baseOffset < e.logEndOffset) {
    return refuse(new ClusterError('OFFSET_OUT_OF_RANGE', `batch at ${first.baseOffset} is below the log end offset ${e.logEndOffset} of ${tp.topic}-${tp.partition}`, { details: { logStartOffset: e.logStartOffset, logEndOffset: e.logEndOffset } }))
  }
  const highest = batches.reduce((max, { header }) => Math.max(max, header.partitionLeaderEpoch), -1)
  if (highest > e.leaderEpoch) {
    return refuse(new ClusterError('MIRROR_LEADER_EPOCH_EXCEEDED', `batch epoch ${highest} is above the leader epoch ${e.leaderEpoch} of ${tp.topic}-${tp.partition}`))
  }
  // Atomic appends: what was last committed, which a failure returns to (its transaction is aborted).
  let committed = atomic ? structuredClone(e) : null
  const translation = new OffsetTranslation(e.translation)
  const epochs = new LeaderEpochCache(e.epochs)
  const commitSoFar = async (): Promise<void> => {
    const holdsData = await host.producers().holdsData(tp)
    if (holdsData) {
      // Our COMMIT marker lands right after our last batch: the next source offset goes after it.
      e.destinationLogEndOffset += 1
      translation.record(e.logEndOffset, e.destinationLogEndOffset)
    }
    e.translation = translation.entries()
    e.epochs = epochs.entries()
    await host.commit(e, holdsData)
    committed = structuredClone(e)
  }
  const pending = batches.map(({ header, position }) => ({ header, bytes: records.subarray(position, position + header.sizeInBytes) }))
  const brokerEnd = e.readOnlyViolation === null ? await host.brokerEndAtStart(tp) : e.destinationLogEndOffset
  // A log end that is not ours (another client's write, a produce of ours found late) is handled below as without
  // atomic appends, by writes outside this append's transaction: one opened ahead for it is aborted first.
  if (atomic && brokerEnd !== e.destinationLogEndOffset && (await host.producers().holdsData(tp))) await host.abandon(tp)
  const late = await acknowledgedLate(host.source(), tp, e.destinationLogEndOffset, brokerEnd, pending)
  for (const { header, baseOffset, records: placed } of late) {
    for (const r of placed) translation.record(r.sourceOffset, r.destinationOffset)
    e.destinationLogEndOffset = baseOffset + placed.length
    if (header.partitionLeaderEpoch >= 0) epochs.assign(header.partitionLeaderEpoch, header.baseOffset)
    e.logEndOffset = header.lastOffset + 1
    translation.record(e.logEndOffset, e.destinationLogEndOffset)
  }
  if (late.length > 0) {
    noteOn(e, late[0]!.header.baseOffset, `source batches ${late[0]!.header.baseOffset}–${late.at(-1)!.header.lastOffset} were already on the broker (a produce whose answer was lost): kept, not produced again`)
    e.translation = translation.entries()
    e.epochs = epochs.entries()
    await host.producers().renewIdempotent(tp)
  }
  await host.checkUntouched(e, brokerEnd)
  // Each source batch, once the broker has answered it, in source order.
  const mirrored = (header: BatchHeader, produced?: ProducedBatch): void => {
    if (produced) {
      if (produced.records.length > 0 && produced.baseOffset !== e.destinationLogEndOffset) {
        e.readOnlyViolation = `the broker put source batch ${header.baseOffset} at ${produced.baseOffset}, after ${e.destinationLogEndOffset}: another client wrote to the read-only mirror topic meanwhile`
      }
      for (const r of produced.records) translation.record(r.sourceOffset, r.destinationOffset)
      if (produced.records.length > 0) e.destinationLogEndOffset = produced.baseOffset + produced.records.length
      if (produced.records.length < header.lastOffset - header.baseOffset + 1) {
        noteOn(e, header.baseOffset, `source batch ${header.baseOffset}–${header.lastOffset} holds ${produced.records.length} records (compacted): offsets are translated from here`)
      }
    }
    if (header.partitionLeaderEpoch >= 0) epochs.assign(header.partitionLeaderEpoch, header.baseOffset)
    e.logEndOffset = header.lastOffset + 1
    // The next source offset goes where the broker's log ends now (a record we could not write shifts it).
    translation.record(e.logEndOffset, e.destinationLogEndOffset)
  }
  // Batches outside transactions are pipelined (emulated-producer.ts); their answers are taken in order.
  const inFlight: Array<{ header: BatchHeader; outcome: Promise<ProduceOutcome> }> = []
  const settleOldest = async (): Promise<void> => {
    const { header, outcome } = inFlight.shift()!
    const settled = await outcome
    if (settled.ok) return mirrored(header, settled.produced)
    // Nothing recorded past the failure: what the later ones wrote is found again by the next append.
    await Promise.all(inFlight.splice(0).map((f) => f.outcome))
    await host.producers().recover(tp, settled)
    // A moved leader or a restarted broker: the next append asks for the partition's leader afresh.
    await host.source().metadata.refresh([tp.topic]).catch(() => undefined)
    throw settled.error
  }
  const settleAll = async (): Promise<void> => {
    while (inFlight.length > 0) await settleOldest()
  }
  let leader: number | null = null
  try {
    for (const { header, bytes: batch } of pending.slice(late.length)) {
      if (!header.isControl && !header.isTransactional) {
        leader ??= await host.leaderOf(tp)
        inFlight.push({ header, outcome: host.producers().startProduce(tp, leader, batch, header) })
        if (inFlight.length >= MAX_IN_FLIGHT) await settleOldest()
        continue
      }
      await settleAll()
      // Atomic appends: what the partition's transaction holds commits before another producer writes the partition.
      if (atomic) {
        await commitSoFar()
        await host.markerIn(tp)
      }
      if (header.isControl) {
        await mirrorControlBatch(host, tp, e, translation, batch, header)
        mirrored(header)
      } else {
        if (!e.openTransactions.some((t) => t.producerId === header.producerId)) {
          e.openTransactions.push({ producerId: header.producerId, producerEpoch: header.producerEpoch, firstOffset: header.baseOffset, records: 0 })
        }
        const produced = await host.producers().produceTransactional(tp, batch, header)
        // Counted, so a recovery knows how many of them retention may have taken before it could carry them.
        const open = e.openTransactions.find((t) => t.producerId === header.producerId)!
        if (open.records !== undefined) open.records += produced.records.length
        mirrored(header, produced)
      }
    }
    await settleAll()
    if (atomic) await commitSoFar()
  } catch (error) {
    // A failure before the pipeline drained (a marker, a transactional produce): none of ours stays in flight.
    await Promise.all(inFlight.splice(0).map((f) => f.outcome))
    if (committed) {
      // Nothing of it was committed after `committed`: aborted, and the next write claims the id and reads the state again.
      await host.abandon(tp)
      Object.assign(e, committed)
    }
    throw error
  } finally {
    if (!atomic) {
      e.translation = translation.entries()
      e.epochs = epochs.entries()
      await host.persist(e)
    }
  }
  if (e.readOnlyViolation !== null) throw new ClusterError('TOPIC_READ_ONLY', e.readOnlyViolation, { details: { ...tp } })
  return { logEndOffset: e.logEndOffset, highWatermark: e.logEndOffset, lastBatchEpoch: batches.at(-1)!.header.partitionLeaderEpoch }
}

async function mirrorControlBatch(host: MirrorPathHost, tp: TopicPartition, e: PartitionEmulation, translation: OffsetTranslation, batch: Uint8Array, header: Parameters<typeof EmulatedProducers.controlType>[1]): Promise<void> {
  const type = EmulatedProducers.controlType(batch, header)
  if (type === 'COMMIT' || type === 'ABORT') {
    const expected = e.destinationLogEndOffset
    if (await host.producers().end(tp, header.producerId, type, expected)) {
      translation.record(header.baseOffset, expected)
      e.destinationLogEndOffset = expected + 1
    } else noteOn(e, header.baseOffset, `${type} of source producer ${header.producerId} ends a transaction this mirror never saw a record of: not reproduced`)
    e.openTransactions = e.openTransactions.filter((t) => t.producerId !== header.producerId)
    return
  }
  if (type === 'MIRROR_PID_RESET') {
    e.pidResets.push(header.baseOffset)
    e.openTransactions = []
    await host.producers().forget(tp)
    noteOn(e, header.baseOffset, 'the source MIRROR_PID_RESET cannot be written by a client: recorded in the mirror state')
    return
  }
  noteOn(e, header.baseOffset, `control record ${type} cannot be written by a client: not reproduced`)
}

