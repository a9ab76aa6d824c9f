import 'server-only'
import { StorageError } from '@/lib/log/errors'
import { CONTROL_TYPE_IDS, encodeControlBatch, endTxnMarkerValue, mirrorPidResetValue, readBatchHeader, readControlInfo, splitBatches, viewOf } from '@/lib/log/record-batch'
import type { ControlInfo, ControlType } from '@/lib/log/types'
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from '@/lib/log/types'
import { crc32c } from './crc32c'
import type { PreparedBatch } from './local-log'
import { INT16_MAX, INT32_MAX, requireInteger } from './partition-log-config'
import type { AppendControlOptions } from './types'

/**
 * The batches an append writes, checked and encoded before the log takes them (partition-log.ts writes them):
 * a follower's fetched bytes split and checked against the log's end and epochs, a control record encoded.
 */

/** A follower's batches as fetched: whole, CRC-checked, continuing the log, never below its latest epoch. */
export function followerBatches(records: Uint8Array, log: { logEndOffset: number; latestEpoch: number; allowOffsetGaps: boolean }): PreparedBatch[] {
  const scanned = splitBatches(records, crc32c)
  const prepared: PreparedBatch[] = []
  let expected = log.logEndOffset
  let latestEpoch = log.latestEpoch
  for (const { header, position } of scanned) {
    const offsetOk = log.allowOffsetGaps ? header.baseOffset >= expected : header.baseOffset === expected
    if (!offsetOk) {
      throw new StorageError('INVALID_RECORD', `batch base offset ${header.baseOffset} does not continue the log (expected ${log.allowOffsetGaps ? 'at least ' : ''}${expected})`)
    }
    if (header.partitionLeaderEpoch >= 0 && header.partitionLeaderEpoch < latestEpoch) {
      throw new StorageError('INVALID_RECORD', `batch at offset ${header.baseOffset} has leader epoch ${header.partitionLeaderEpoch}, below the log's latest epoch ${latestEpoch}`)
    }
    latestEpoch = Math.max(latestEpoch, header.partitionLeaderEpoch)
    const bytes = records.subarray(position, position + header.sizeInBytes)
    let control: ControlInfo | undefined
    if (header.isControl) {
      try {
        control = readControlInfo(bytes, header)
      } catch (cause) {
        throw new StorageError('CORRUPT_RECORD', `control batch at offset ${header.baseOffset} cannot be decoded`, { cause })
      }
    }
    prepared.push({ header, bytes, control })
    expected = header.lastOffset + 1
  }
  return prepared
}

/**
 * A control batch at `baseOffset`: the MIRROR_PID_RESET record (no producer), or a transaction marker whose
 * producer, epoch and coordinator epoch `checkMarker` accepts against the producer state.
 */
export function controlBatch(
  type: ControlType,
  options: AppendControlOptions,
  at: { baseOffset: number; leaderEpoch: number; timestamp: number; checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number): void },
): PreparedBatch {
  const typeId = CONTROL_TYPE_IDS[type]
  if (typeId === undefined) throw new StorageError('VALIDATION_FAILED', `unknown control type ${String(type)}`)
  const { baseOffset, leaderEpoch: partitionLeaderEpoch, timestamp } = at
  let bytes: Uint8Array
  let control: ControlInfo
  if (type === 'MIRROR_PID_RESET') {
    control = { typeId, type }
    bytes = encodeControlBatch(
      { baseOffset, partitionLeaderEpoch, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH, isTransactional: false, timestamp, typeId, value: mirrorPidResetValue() },
      crc32c,
    )
  } else {
    const producerId = requireInteger('producerId', options.producerId, 0)
    const producerEpoch = requireInteger('producerEpoch', options.producerEpoch, 0, INT16_MAX)
    const coordinatorEpoch = requireInteger('coordinatorEpoch', options.coordinatorEpoch ?? 0, 0, INT32_MAX)
    at.checkMarker(producerId, producerEpoch, coordinatorEpoch)
    control = { typeId, type, coordinatorEpoch }
    bytes = encodeControlBatch({ baseOffset, partitionLeaderEpoch, producerId, producerEpoch, isTransactional: true, timestamp, typeId, value: endTxnMarkerValue(coordinatorEpoch) }, crc32c)
  }
  return { header: readBatchHeader(viewOf(bytes)), bytes, control }
}
