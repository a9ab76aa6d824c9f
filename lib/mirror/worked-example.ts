/**
 * KIP-1279's worked example (kip-1279-excerpt.txt) as data, the one copy that lib, server and e2e tests
 * drive and check against. On the source, with producer ids allocated from 4001:
 *   0 DATA 4001 A=1 · 1 DATA 4001 B=2 · 2 DATA 4002 X=9 · 3 COMMIT 4001 · 4 DATA 4003 Y=5 · 5 DATA none Z=10
 * The mirror copies offsets 0–2 (transactions 4001 and 4002 open there), then fails over: the destination
 * appends ABORT 4001 at 3, ABORT 4002 at 4 and the MIRROR_PID_RESET record at 5. A failback cuts the old
 * source back to offset 3 (losing its COMMIT and the two records after it) and mirrors those markers.
 */

export type WorkedExampleRecordType = 'DATA' | 'COMMIT' | 'ABORT' | 'MIRROR_PID_RESET'

export interface WorkedExampleRecord {
  readonly offset: number
  readonly type: WorkedExampleRecordType
  readonly producerId: number | null
  readonly key: string | null
  readonly value: string | null
}

/** One source write, by the index of the transactional producer (`transactionalIds`), or a plain produce. */
export type WorkedExampleStep =
  | { readonly kind: 'send'; readonly producer: number; readonly records: ReadonlyArray<{ readonly key: string; readonly value: string }> }
  | { readonly kind: 'commit'; readonly producer: number }
  | { readonly kind: 'produce'; readonly records: ReadonlyArray<{ readonly key: string; readonly value: string }> }

const record = (offset: number, type: WorkedExampleRecordType, producerId: number | null, key: string | null = null, value: string | null = null): WorkedExampleRecord => ({
  offset,
  type,
  producerId,
  key,
  value,
})

const SOURCE_LOG: readonly WorkedExampleRecord[] = [
  record(0, 'DATA', 4001, 'A', '1'),
  record(1, 'DATA', 4001, 'B', '2'),
  record(2, 'DATA', 4002, 'X', '9'),
  record(3, 'COMMIT', 4001),
  record(4, 'DATA', 4003, 'Y', '5'),
  record(5, 'DATA', null, 'Z', '10'),
]

export const WORKED_EXAMPLE = {
  topic: 'orders',
  /** The source cluster's first producer id, so that the three transactional producers get 4001–4003. */
  sourceFirstProducerId: 4001,
  /** The destination's, far from the source's so that a mix-up shows. */
  destinationFirstProducerId: 9001,
  transactionalIds: ['tx-4001', 'tx-4002', 'tx-4003'],
  producerIds: [4001, 4002, 4003],
  /** Written before the mirror copies offsets 0–2 (two transactions left open). */
  stepsBeforeMirroring: [
    { kind: 'send', producer: 0, records: [{ key: 'A', value: '1' }, { key: 'B', value: '2' }] },
    { kind: 'send', producer: 1, records: [{ key: 'X', value: '9' }] },
  ] satisfies readonly WorkedExampleStep[],
  /** Written once the mirror is paused at offset 3. */
  stepsAfterPause: [
    { kind: 'commit', producer: 0 },
    { kind: 'send', producer: 2, records: [{ key: 'Y', value: '5' }] },
    { kind: 'produce', records: [{ key: 'Z', value: '10' }] },
  ] satisfies readonly WorkedExampleStep[],
  sourceLog: SOURCE_LOG,
  /** The destination's log end offset when the mirror is paused: offsets 0–2 mirrored. */
  mirroredLogEndOffset: 3,
  /** Transactions open on the destination at failover, by first offset (`producer`: index in `transactionalIds`). */
  openTransactionsAtFailover: [
    { producer: 0, producerId: 4001, producerEpoch: 0, firstOffset: 0 },
    { producer: 1, producerId: 4002, producerEpoch: 0, firstOffset: 2 },
  ],
  destinationLogAfterFailover: [...SOURCE_LOG.slice(0, 3), record(3, 'ABORT', 4001), record(4, 'ABORT', 4002), record(5, 'MIRROR_PID_RESET', null)],
  /** Where a failback cuts the old source, and how many records that removes (its COMMIT, Y and Z). */
  failbackTruncationOffset: 3,
  failbackRemovedRecords: 3,
} as const
