import { describe, expect, it } from 'vitest'
import { crc32cJs } from './crc32c-js'
import { encodeBatch, encodeControlBatch, endTxnMarkerValue, readBatchHeader, viewOf } from './record-batch'
import { committedRecords, decodeRecords, type BatchWithBytes } from './records-view'

function batch(bytes: Uint8Array): BatchWithBytes {
  return { ...readBatchHeader(viewOf(bytes)), raw: bytes }
}
const data = (baseOffset: number, values: string[], producerId = -1, transactional = false) =>
  batch(encodeBatch({ baseOffset, partitionLeaderEpoch: 0, producerId, producerEpoch: producerId < 0 ? -1 : 0, baseSequence: producerId < 0 ? -1 : baseOffset, isTransactional: transactional, timestamp: 1, records: values.map((value) => ({ value })) }, crc32cJs))
const endTxn = (offset: number, producerId: number, typeId: 0 | 1) =>
  batch(encodeControlBatch({ baseOffset: offset, partitionLeaderEpoch: 0, producerId, producerEpoch: 0, isTransactional: true, timestamp: 1, typeId, value: endTxnMarkerValue(0) }, crc32cJs))

// offsets: 0 plain, 1-2 txn P1 (aborted at 5), 3 txn P2 (committed at 6), 4 txn P1, 5 ABORT P1, 6 COMMIT P2, 7 plain
const batches = [data(0, ['a']), data(1, ['p1-a', 'p1-b'], 1, true), data(3, ['p2-a'], 2, true), data(4, ['p1-c'], 1, true), endTxn(5, 1, 0), endTxn(6, 2, 1), data(7, ['z'])]
const values = (records: Iterable<{ value: Uint8Array | null }>) => [...records].map((r) => new TextDecoder().decode(r.value!))

describe('records views', () => {
  it('read_uncommitted view returns every record with its type', () => {
    expect([...decodeRecords(batches)].map((r) => [r.offset, r.type])).toEqual([
      [0, 'DATA'], [1, 'DATA'], [2, 'DATA'], [3, 'DATA'], [4, 'DATA'], [5, 'ABORT'], [6, 'COMMIT'], [7, 'DATA'],
    ])
    expect([...decodeRecords(batches, { includeControl: false, fromOffset: 2 })].map((r) => r.offset)).toEqual([2, 3, 4, 7])
  })

  it('read_committed view drops aborted transactional data and control records', () => {
    expect(values(committedRecords({ batches, abortedTransactions: [{ producerId: 1, firstOffset: 1 }] }))).toEqual(['a', 'p2-a', 'z'])
  })

  it('without aborted transactions every data record is committed', () => {
    expect(values(committedRecords({ batches, abortedTransactions: [] }))).toEqual(['a', 'p1-a', 'p1-b', 'p2-a', 'p1-c', 'z'])
  })
})
