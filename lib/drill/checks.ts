/**
 * What a drill (API.md §"Round 3" `POST /mirrors/{m}/drills`) checks on its copy after the real failover ran
 * there, each a pure judgement of what the server read: did the markers land where the plan said, does a
 * read_committed reader see exactly the committed data, are the consumer groups' offsets present and inside the
 * log. The checks that write (producers), or that look at the source and the production mirror, are judged
 * from their outcomes the same way (`check`).
 */

import { decodeBatchRecords, readControlInfo } from '../log/record-batch'
import type { BatchHeader } from '../log/types'

export type DrillCheckName =
  | 'markers-as-planned'
  | 'read-committed'
  | 'group-offsets'
  | 'idempotent-producer'
  | 'transactional-producer'
  | 'source-untouched'
  | 'production-kept-mirroring'

export interface DrillCheck {
  readonly name: DrillCheckName
  readonly ok: boolean
  readonly detail: string
}

/** The records of a partition as the server reads them (the API's records view). */
export interface CheckedRecord {
  readonly offset: number
  readonly type: string
  readonly producerId: number | null
  readonly transactional: boolean
}

export function check(name: DrillCheckName, problems: readonly string[], passed: string): DrillCheck {
  const shown = problems.slice(0, 5)
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : ''
  return { name, ok: problems.length === 0, detail: problems.length === 0 ? passed : `${shown.join('; ')}${more}` }
}

// MARKERS

export interface PlannedPartition {
  readonly topic: string
  readonly partition: number
  /**
   * The last mirror position the failover captured; its offset is where the first marker goes. Null when the
   * log was empty at the stop (the engine records (-1, -1), "no history"): the markers start at offset 0.
   */
  readonly position: { readonly epoch: number; readonly offset: number } | null
  /** The plan's transactions to abort, in the order it gave them. */
  readonly transactionsToAbort: ReadonlyArray<{ readonly producerId: number; readonly firstOffset: number }>
  /** The copy's records from the position on. */
  readonly records: readonly CheckedRecord[]
}

/**
 * What STOPPING must have written after the last mirror position (KIP-1279.md §4.1): one ABORT per planned
 * transaction, in the plan's order (by first offset), at consecutive offsets, then one MIRROR_PID_RESET. Returns
 * null when the partition's log says exactly that, else what differs.
 */
export function markerProblem(planned: PlannedPartition): string | null {
  const name = `${planned.topic}-${planned.partition}`
  const from = Math.max(0, planned.position?.offset ?? 0)
  const written = planned.records.filter((record) => record.offset >= from && record.type !== 'DATA')
  const expected = [...planned.transactionsToAbort].sort((a, b) => a.firstOffset - b.firstOffset || a.producerId - b.producerId)
  for (const [index, transaction] of expected.entries()) {
    const marker = written[index]
    const at = from + index
    if (marker === undefined) return `${name}: no ABORT for producer ${transaction.producerId} (planned at ${at})`
    if (marker.type !== 'ABORT' || marker.producerId !== transaction.producerId || marker.offset !== at) {
      return `${name}: ${marker.type} of producer ${marker.producerId ?? 'none'} at ${marker.offset} where the plan put ABORT of producer ${transaction.producerId} at ${at}`
    }
  }
  const reset = written[expected.length]
  const resetAt = from + expected.length
  if (reset === undefined || reset.type !== 'MIRROR_PID_RESET' || reset.offset !== resetAt) {
    return `${name}: ${reset === undefined ? 'no MIRROR_PID_RESET' : `${reset.type} at ${reset.offset}`} where the MIRROR_PID_RESET belongs (${resetAt})`
  }
  const extra = written.slice(expected.length + 1).find((record) => record.type === 'ABORT' || record.type === 'MIRROR_PID_RESET')
  if (extra !== undefined) return `${name}: a second ${extra.type} at ${extra.offset}`
  return null
}

/** "ABORT 4001 at 3, ABORT 4002 at 4, MIRROR_PID_RESET at 5": what a partition's markers are, in log order. */
export function describeMarkers(records: readonly CheckedRecord[], from: number): string {
  const markers = records.filter((record) => record.offset >= from && record.type !== 'DATA')
  return markers.map((record) => (record.type === 'MIRROR_PID_RESET' ? `MIRROR_PID_RESET at ${record.offset}` : `${record.type} ${record.producerId ?? ''} at ${record.offset}`.replace('  ', ' '))).join(', ') || 'no markers'
}

// READ_COMMITTED

/**
 * The data offsets a read_committed reader must see in `records` (a window of the log, every record of it in
 * offset order): a record outside a transaction at once, a transactional one when the next marker of its
 * producer is a COMMIT, never when it is an ABORT or there is none yet (the transaction is open). Computed
 * from the records alone, independently of the log's own last stable offset and aborted-transaction index.
 */
export function expectedCommitted(records: readonly CheckedRecord[]): number[] {
  const committed: number[] = []
  const pending = new Map<number, number[]>()
  for (const record of records) {
    if (record.type === 'DATA') {
      if (!record.transactional || record.producerId === null) committed.push(record.offset)
      else {
        let list = pending.get(record.producerId)
        if (!list) pending.set(record.producerId, (list = []))
        list.push(record.offset)
      }
      continue
    }
    if (record.producerId === null) continue
    const list = pending.get(record.producerId) ?? []
    pending.delete(record.producerId)
    if (record.type === 'COMMIT') committed.push(...list)
  }
  return committed.sort((a, b) => a - b)
}

/** Null when `seen` (what read_committed answered, data only) is exactly `expected`; else the first differences. */
export function committedProblem(name: string, expected: readonly number[], seen: readonly number[]): string | null {
  const wanted = new Set(expected)
  const got = new Set(seen)
  const missing = expected.filter((offset) => !got.has(offset))
  const unexpected = seen.filter((offset) => !wanted.has(offset))
  if (missing.length === 0 && unexpected.length === 0) return null
  const parts: string[] = []
  if (missing.length > 0) parts.push(`committed offsets not seen: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? '…' : ''}`)
  if (unexpected.length > 0) parts.push(`aborted or open offsets seen: ${unexpected.slice(0, 5).join(', ')}${unexpected.length > 5 ? '…' : ''}`)
  return `${name}: ${parts.join('; ')}`
}

// GROUP OFFSETS

export interface GroupOffsetOnCopy {
  readonly groupId: string
  readonly topic: string
  readonly partition: number
  /** The production destination's committed offset. */
  readonly offset: number
  /** What the copy holds for it (null: absent). */
  readonly onCopy: number | null
  readonly logStartOffset: number
  readonly logEndOffset: number
}

/** Null when the copy holds the group's offset and it lies within the copy's log. */
export function groupOffsetProblem(group: GroupOffsetOnCopy): string | null {
  const where = `group ${group.groupId} on ${group.topic}-${group.partition}`
  if (group.onCopy === null) return `${where}: offset ${group.offset} is not on the copy`
  if (group.onCopy !== group.offset) return `${where}: ${group.onCopy} on the copy, ${group.offset} on the destination`
  if (group.onCopy < group.logStartOffset || group.onCopy > group.logEndOffset) return `${where}: offset ${group.onCopy} is outside the log [${group.logStartOffset}, ${group.logEndOffset}]`
  return null
}

// THE SOURCE UNTOUCHED

/**
 * What one batch the source took after the copy was taken says of the drill (`batch` = exactly its bytes):
 * null when it cannot be the drill's, else why it is. Only a failover writes a MIRROR_PID_RESET, and the drill's
 * producers key every record with the drill's id, so either on the source means the copy reached it. A
 * compressed batch is not the drill's (its producers write uncompressed) and is not decoded.
 */
export function sourceBatchProblem(where: string, batch: Uint8Array, header: BatchHeader, drillId: string): string | null {
  if (header.isControl) {
    return readControlInfo(batch, header).type === 'MIRROR_PID_RESET' ? `${where}: a MIRROR_PID_RESET at ${header.baseOffset}, written after the copy was taken` : null
  }
  if (header.compression !== 'none') return null
  const key = new TextEncoder().encode(drillId)
  const found = decodeBatchRecords(batch, header).find((record) => record.key !== null && record.key.length === key.length && record.key.every((byte, i) => byte === key[i]))
  return found === undefined ? null : `${where}: a record keyed ${drillId} (the drill's producers' key) at ${found.offset}`
}
