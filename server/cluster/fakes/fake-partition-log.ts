import 'server-only'
import { crc32cJs } from '@/lib/log/crc32c-js'
import { CONTROL_TYPE_IDS, encodeBatch, encodeControlBatch, mirrorPidResetValue, endTxnMarkerValue, readControlInfo, splitBatches } from '@/lib/log/record-batch'
import type { BatchHeader, ControlType, RecordInput } from '@/lib/log/types'
import type { EpochEndOffset, OpenTransaction, PartitionDescription } from '../ports'

interface StoredBatch {
  header: BatchHeader
  bytes: Uint8Array
  control: ControlType | 'CONTROL' | null
}

const UNDEFINED: EpochEndOffset = { leaderEpoch: -1, endOffset: -1 }

/**
 * One partition's log in memory, for the port fakes: whole v2 batches (real bytes, so the engine's batch
 * parsing runs as against a cluster), the leader epoch, the epoch history the batches carry, and the open
 * transactions their producer ids leave. No replicas: the high watermark is the log end offset.
 */
export class FakePartitionLog {
  private batches: StoredBatch[] = []
  logStartOffset = 0
  logEndOffset = 0
  leaderEpoch = 0
  leader = 1

  describe(partition: number): PartitionDescription {
    return {
      partition,
      leader: this.leader,
      replicas: [this.leader],
      isr: this.leader < 0 ? [] : [this.leader],
      leaderEpoch: this.leaderEpoch,
      logStartOffset: this.logStartOffset,
      highWatermark: this.logEndOffset,
      lastStableOffset: this.lastStableOffset(),
      logEndOffset: this.logEndOffset,
    }
  }

  /** A producer's append at the leader: one batch at the log end, in the current leader epoch. */
  appendRecords(records: readonly RecordInput[], options: { timestamp: number; producerId?: number; producerEpoch?: number; transactional?: boolean }): void {
    const bytes = encodeBatch(
      {
        baseOffset: this.logEndOffset,
        partitionLeaderEpoch: this.leaderEpoch,
        producerId: options.producerId ?? -1,
        producerEpoch: options.producerEpoch ?? -1,
        baseSequence: options.producerId === undefined ? -1 : 0,
        isTransactional: options.transactional ?? false,
        timestamp: options.timestamp,
        records,
      },
      crc32cJs,
    )
    this.appendBytes(bytes)
  }

  appendControl(type: ControlType, producer: { producerId: number; producerEpoch: number }, timestamp: number): number {
    const offset = this.logEndOffset
    const value = type === 'MIRROR_PID_RESET' ? mirrorPidResetValue() : endTxnMarkerValue(0)
    this.appendBytes(
      encodeControlBatch(
        { baseOffset: offset, partitionLeaderEpoch: this.leaderEpoch, producerId: producer.producerId, producerEpoch: producer.producerEpoch, isTransactional: type !== 'MIRROR_PID_RESET', timestamp, typeId: CONTROL_TYPE_IDS[type], value },
        crc32cJs,
      ),
    )
    return offset
  }

  /** Appends concatenated batches as they are (a mirror's append); batches must continue the log end. */
  appendBytes(records: Uint8Array): void {
    for (const { header, position } of splitBatches(records, crc32cJs)) {
      if (header.baseOffset < this.logEndOffset) throw new Error(`batch at ${header.baseOffset} is below the log end offset ${this.logEndOffset}`)
      if (header.partitionLeaderEpoch > this.leaderEpoch) throw new Error(`batch epoch ${header.partitionLeaderEpoch} is above the leader epoch ${this.leaderEpoch}`)
      const bytes = records.slice(position, position + header.sizeInBytes)
      this.batches.push({ header, bytes, control: header.isControl ? readControlInfo(bytes, header).type : null })
      this.logEndOffset = header.lastOffset + 1
    }
  }

  /** Whole batches from `fetchOffset`, at least one, up to `maxBytes` after the first. */
  read(fetchOffset: number, maxBytes: number): Uint8Array {
    const chosen: Uint8Array[] = []
    let size = 0
    for (const batch of this.batches) {
      if (batch.header.lastOffset < fetchOffset) continue
      if (chosen.length > 0 && size + batch.bytes.byteLength > maxBytes) break
      chosen.push(batch.bytes)
      size += batch.bytes.byteLength
    }
    const out = new Uint8Array(size)
    let position = 0
    for (const bytes of chosen) {
      out.set(bytes, position)
      position += bytes.byteLength
    }
    return out
  }

  /** The first record's timestamp at or after `offset`, or null at the log end. */
  timestampAt(offset: number): number | null {
    return this.batches.find((batch) => batch.header.lastOffset >= offset)?.header.baseTimestamp ?? null
  }

  latestEpoch(): number {
    return this.batches.at(-1)?.header.partitionLeaderEpoch ?? -1
  }

  /** The leader epoch in force at `offset` (the last epoch that started at or before it), -1 before any. */
  epochForOffset(offset: number): number {
    let epoch = -1
    for (const { header } of this.batches) {
      if (header.baseOffset > offset) break
      epoch = header.partitionLeaderEpoch
    }
    return epoch
  }

  /** KIP-101 as Kafka's LeaderEpochFileCache.endOffsetFor answers it, over the epochs the batches carry. */
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    const starts: Array<{ epoch: number; startOffset: number }> = []
    for (const { header } of this.batches) {
      if (starts.at(-1)?.epoch !== header.partitionLeaderEpoch) starts.push({ epoch: header.partitionLeaderEpoch, startOffset: header.baseOffset })
    }
    if (epoch < 0 || starts.length === 0) return UNDEFINED
    const latest = starts.at(-1)!
    if (epoch >= latest.epoch) return epoch === latest.epoch ? { leaderEpoch: epoch, endOffset: this.logEndOffset } : UNDEFINED
    const higher = starts.findIndex((entry) => entry.epoch > epoch)
    const floor = higher > 0 ? starts[higher - 1]! : null
    return floor ? { leaderEpoch: floor.epoch, endOffset: starts[higher]!.startOffset } : { leaderEpoch: epoch, endOffset: starts[0]!.startOffset }
  }

  truncateTo(offset: number): number {
    const kept = this.batches.filter((batch) => batch.header.lastOffset < offset)
    const removed = this.batches.length - kept.length
    this.batches = kept
    this.logEndOffset = Math.max(this.logStartOffset, Math.min(this.logEndOffset, offset))
    return removed
  }

  truncateFullyAndStartAt(offset: number): number {
    const removed = this.batches.length
    this.batches = []
    this.logStartOffset = offset
    this.logEndOffset = offset
    return removed
  }

  deleteRecordsBefore(offset: number): void {
    this.batches = this.batches.filter((batch) => batch.header.lastOffset >= offset)
    this.logStartOffset = Math.max(this.logStartOffset, offset)
  }

  findControlRecord(type: ControlType, fromOffset: number): number | null {
    return this.batches.find((batch) => batch.control === type && batch.header.baseOffset >= fromOffset)?.header.baseOffset ?? null
  }

  /** Transactions with data and no marker yet, as producer state replayed from the batches would hold them. */
  openTransactions(): OpenTransaction[] {
    const open = new Map<number, OpenTransaction>()
    for (const { header, control } of this.batches) {
      if (control === 'MIRROR_PID_RESET') open.clear()
      else if (control === 'ABORT' || control === 'COMMIT') open.delete(header.producerId)
      else if (header.isTransactional && !open.has(header.producerId)) open.set(header.producerId, { producerId: header.producerId, producerEpoch: header.producerEpoch, firstOffset: header.baseOffset })
    }
    return [...open.values()].sort((a, b) => a.firstOffset - b.firstOffset || a.producerId - b.producerId)
  }

  private lastStableOffset(): number {
    return this.openTransactions()[0]?.firstOffset ?? this.logEndOffset
  }
}
