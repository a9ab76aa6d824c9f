import { describe, expect, it } from 'vitest'
import { isStorageError } from './errors'
import type { ProducerBatch } from './producer-state'
import { ProducerStateManager } from './producer-state'
import { incrementSequence } from './record-batch'

function data(producerId: number, producerEpoch: number, baseSequence: number, baseOffset: number, count = 1, isTransactional = false): ProducerBatch {
  return { producerId, producerEpoch, baseSequence, lastSequence: incrementSequence(baseSequence, count - 1), baseOffset, lastOffset: baseOffset + count - 1, maxTimestamp: 1, isTransactional, isControl: false }
}

function marker(type: 'COMMIT' | 'ABORT', producerId: number, producerEpoch: number, offset: number, coordinatorEpoch = 0): ProducerBatch {
  return { producerId, producerEpoch, baseSequence: -1, lastSequence: -1, baseOffset: offset, lastOffset: offset, maxTimestamp: 1, isTransactional: true, isControl: true, control: { typeId: type === 'ABORT' ? 0 : 1, type, coordinatorEpoch } }
}

const pidReset = (offset: number): ProducerBatch => ({ producerId: -1, producerEpoch: -1, baseSequence: -1, lastSequence: -1, baseOffset: offset, lastOffset: offset, maxTimestamp: 1, isTransactional: false, isControl: true, control: { typeId: 7, type: 'MIRROR_PID_RESET' } })

function codeOf(run: () => void): string | undefined {
  try {
    run()
  } catch (error) {
    return isStorageError(error) ? error.code : 'untyped'
  }
  return undefined
}

describe('idempotent producers', () => {
  it('recognises a retry of any of the last 5 batches and gives its original offsets', () => {
    const state = new ProducerStateManager()
    for (let i = 0; i < 6; i++) state.apply(data(1, 0, i * 2, 100 + i * 2, 2), 0)
    expect(state.findDuplicate(1, 0, 10, 11)).toEqual({ baseOffset: 110, lastOffset: 111 })
    expect(state.findDuplicate(1, 0, 2, 3)).toEqual({ baseOffset: 102, lastOffset: 103 })
    expect(state.findDuplicate(1, 0, 0, 1)).toBeUndefined() // the 6th-newest is forgotten
    expect(state.findDuplicate(1, 1, 10, 11)).toBeUndefined() // other epoch
  })

  it('refuses a sequence gap and accepts the next sequence', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 0, 0, 0, 3), 0)
    expect(codeOf(() => state.checkClientBatch(data(1, 0, 4, 3)))).toBe('OUT_OF_ORDER_SEQUENCE')
    expect(codeOf(() => state.checkClientBatch(data(1, 0, 3, 3)))).toBeUndefined()
  })

  it('accepts a new epoch only from sequence 0 and fences older epochs', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 3, 0, 0, 3), 0)
    expect(codeOf(() => state.checkClientBatch(data(1, 4, 5, 3)))).toBe('OUT_OF_ORDER_SEQUENCE')
    expect(codeOf(() => state.checkClientBatch(data(1, 4, 0, 3)))).toBeUndefined()
    expect(codeOf(() => state.checkClientBatch(data(1, 2, 3, 3)))).toBe('INVALID_PRODUCER_EPOCH')
  })

  it('accepts any sequence from an unknown producer (Kafka, KIP-360)', () => {
    expect(codeOf(() => new ProducerStateManager().checkClientBatch(data(9, 0, 42, 0)))).toBeUndefined()
  })

  it('continues sequences across the int32 wrap', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 0, 2147483646, 0, 2), 0)
    expect(codeOf(() => state.checkClientBatch(data(1, 0, 0, 2)))).toBeUndefined()
  })
})

describe('transactions', () => {
  it('tracks open transactions in first-offset order and computes the LSO', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 0, 0, 10, 2, true), 0)
    state.apply(data(2, 0, 0, 12, 1, true), 0)
    state.apply(data(1, 0, 2, 13, 1, true), 0)
    expect(state.openTransactions()).toEqual([
      { producerId: 1, producerEpoch: 0, firstOffset: 10 },
      { producerId: 2, producerEpoch: 0, firstOffset: 12 },
    ])
    expect(state.lastStableOffset(20, 0)).toBe(10)
    const applied = state.apply(marker('ABORT', 1, 0, 14), 0)
    expect(applied.completed).toEqual({ producerId: 1, firstOffset: 10, lastOffset: 14, isAborted: true })
    expect(applied.lastStableOffset).toBe(12)
    expect(state.openTransactions().map((t) => t.producerId)).toEqual([2])
  })

  it('keeps a completed transaction holding the LSO until its marker is below the high watermark', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 0, 0, 0, 3, true), 0)
    state.apply(marker('COMMIT', 1, 0, 3), 2)
    expect(state.lastStableOffset(3, 0)).toBe(0)
    state.onHighWatermarkUpdated(4)
    expect(state.lastStableOffset(4, 0)).toBe(4)
  })

  it('refuses non-transactional data while the producer has a transaction open', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 0, 0, 0, 1, true), 0)
    expect(codeOf(() => state.checkClientBatch(data(1, 0, 1, 1, 1, false)))).toBe('INVALID_TXN_STATE')
  })

  it('fences markers with an older producer or coordinator epoch', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 2, 0, 0, 1, true), 0)
    state.apply(marker('COMMIT', 1, 2, 1, 5), 0)
    expect(codeOf(() => state.checkMarker(1, 1, 5))).toBe('INVALID_PRODUCER_EPOCH')
    expect(codeOf(() => state.checkMarker(1, 2, 4))).toBe('TRANSACTION_COORDINATOR_FENCED')
    expect(codeOf(() => state.checkMarker(1, 3, 5))).toBeUndefined()
  })

  it('treats a marker without data as closing nothing', () => {
    const state = new ProducerStateManager()
    expect(state.apply(marker('ABORT', 4, 0, 0), 0)).toEqual({})
    expect(state.entry(4)?.currentTxnFirstOffset).toBeNull()
  })
})

describe('MIRROR_PID_RESET', () => {
  it('clears every producer entry, open transactions included', () => {
    const state = new ProducerStateManager()
    state.apply(data(1, 5, 0, 0, 2), 0)
    state.apply(data(2, 0, 0, 2, 1, true), 0)
    state.apply(pidReset(3), 0)
    expect(state.producerCount).toBe(0)
    expect(state.openTransactions()).toEqual([])
    expect(state.lastStableOffset(4, 0)).toBe(4)
    // a producer reusing a mirrored id starts fresh: no fencing, any sequence
    expect(codeOf(() => state.checkClientBatch(data(1, 0, 0, 4)))).toBeUndefined()
  })
})

describe('snapshots', () => {
  it('restores the same entries, open transactions and LSO', () => {
    const state = new ProducerStateManager()
    state.apply(data(2, 0, 0, 12, 1, true), 0)
    state.apply(data(1, 0, 0, 10, 2, true), 0)
    state.apply(data(3, 1, 0, 13, 1), 0)
    const restored = ProducerStateManager.fromSnapshot(JSON.parse(JSON.stringify(state.snapshot(14))))
    expect(restored.entries()).toEqual(state.entries())
    expect(restored.openTransactions()).toEqual([
      { producerId: 1, producerEpoch: 0, firstOffset: 10 },
      { producerId: 2, producerEpoch: 0, firstOffset: 12 },
    ])
    expect(restored.lastStableOffset(14, 0)).toBe(10)
  })
})
