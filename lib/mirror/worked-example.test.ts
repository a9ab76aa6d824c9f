import { describe, expect, it } from 'vitest'
import { planStoppingAction } from './stopping'
import { WORKED_EXAMPLE } from './worked-example'

/**
 * The fixture that lib, server and e2e tests check the engine against is only right if it is the KIP's
 * example: these rows are copied from /work/shared/kip-1279-excerpt.txt's three tables, so an edit of the
 * fixture that the other tests would follow unnoticed fails here.
 */

const row = (offset: number, type: string, producerId: number | null, key: string | null = null, value: string | null = null) => ({ offset, type, producerId, key, value })

describe('WORKED_EXAMPLE (KIP-1279 excerpt, "source cluster log at the time of failure")', () => {
  it('holds the source log of the excerpt, row by row', () => {
    expect(WORKED_EXAMPLE.sourceLog).toEqual([
      row(0, 'DATA', 4001, 'A', '1'),
      row(1, 'DATA', 4001, 'B', '2'),
      row(2, 'DATA', 4002, 'X', '9'),
      row(3, 'COMMIT', 4001),
      row(4, 'DATA', 4003, 'Y', '5'),
      row(5, 'DATA', null, 'Z', '10'),
    ])
  })

  it('writes that log with three transactional producers, the mirror stopping after offset 2', () => {
    expect(WORKED_EXAMPLE.topic).toBe('orders')
    expect(WORKED_EXAMPLE.producerIds).toEqual([4001, 4002, 4003])
    expect(WORKED_EXAMPLE.transactionalIds).toHaveLength(3)
    expect(new Set(WORKED_EXAMPLE.transactionalIds).size).toBe(3)
    expect(WORKED_EXAMPLE.sourceFirstProducerId).toBe(4001)
    expect(WORKED_EXAMPLE.destinationFirstProducerId).not.toBe(WORKED_EXAMPLE.sourceFirstProducerId)
    expect(WORKED_EXAMPLE.stepsBeforeMirroring).toEqual([
      { kind: 'send', producer: 0, records: [{ key: 'A', value: '1' }, { key: 'B', value: '2' }] },
      { kind: 'send', producer: 1, records: [{ key: 'X', value: '9' }] },
    ])
    expect(WORKED_EXAMPLE.stepsAfterPause).toEqual([
      { kind: 'commit', producer: 0 },
      { kind: 'send', producer: 2, records: [{ key: 'Y', value: '5' }] },
      { kind: 'produce', records: [{ key: 'Z', value: '10' }] },
    ])
    expect(WORKED_EXAMPLE.mirroredLogEndOffset).toBe(3)
  })

  it('has the destination log the excerpt shows after STOPPING: ABORT 4001 at 3, ABORT 4002 at 4, then the reset record', () => {
    expect(WORKED_EXAMPLE.destinationLogAfterFailover).toEqual([
      row(0, 'DATA', 4001, 'A', '1'),
      row(1, 'DATA', 4001, 'B', '2'),
      row(2, 'DATA', 4002, 'X', '9'),
      row(3, 'ABORT', 4001),
      row(4, 'ABORT', 4002),
      row(5, 'MIRROR_PID_RESET', null),
    ])
  })

  it('names the transactions STOPPING aborts, in the order planStoppingAction writes their markers', () => {
    expect(WORKED_EXAMPLE.openTransactionsAtFailover).toEqual([
      { producer: 0, producerId: 4001, producerEpoch: 0, firstOffset: 0 },
      { producer: 1, producerId: 4002, producerEpoch: 0, firstOffset: 2 },
    ])
    const action = planStoppingAction(
      { step: 'abortTransactions', lastMirrorPosition: { epoch: 0, offset: WORKED_EXAMPLE.mirroredLogEndOffset } },
      { latestEpoch: 0, logEndOffset: 3, leaderEpoch: 1, openTransactions: [...WORKED_EXAMPLE.openTransactionsAtFailover].reverse(), pidResetOffset: null },
    )
    expect(action.kind === 'appendAbortMarkers' ? action.transactions.map((t) => t.producerId) : action.kind).toEqual(
      WORKED_EXAMPLE.destinationLogAfterFailover.filter((record) => record.type === 'ABORT').map((record) => record.producerId),
    )
  })

  it('cuts the old source back to offset 3 on failback, removing its COMMIT, Y and Z', () => {
    expect(WORKED_EXAMPLE.failbackTruncationOffset).toBe(3)
    expect(WORKED_EXAMPLE.failbackRemovedRecords).toBe(3)
    expect(WORKED_EXAMPLE.sourceLog.slice(WORKED_EXAMPLE.failbackTruncationOffset).map((record) => record.type)).toEqual(['COMMIT', 'DATA', 'DATA'])
  })
})
