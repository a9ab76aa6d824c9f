import 'server-only'
import type { DrillPartition } from '@/lib/api/drills'
import { check, committedProblem, expectedCommitted, groupOffsetProblem, markerProblem, sourceBatchProblem, type CheckedRecord, type DrillCheck } from '@/lib/drill/checks'
import { splitBatches } from '@/lib/log/record-batch'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { RecordView } from '@/server/cluster/embedded/records-view'
import type { FetchPartitionResult, GroupOffsets, SourceCluster, TopicPartition } from '@/server/cluster/ports'
import { forEachConcurrently, TimeSlice } from '@/server/util/cooperative'
import type { PartitionSnapshot } from '@/server/engine/types'
import { counted } from '@/lib/ui/format'

/**
 * The checks of a drill that read and write its copy (lib/drill/checks.ts judges): markers where the plan said,
 * read_committed sees exactly the committed data, group offsets present and within the log, and an idempotent
 * and a transactional producer can write to every partition — with what they wrote read back after the copy's
 * cluster is restarted, so a write acknowledged but lost (the failure of 2026 a drill must catch) fails it.
 */

/** The tail of each partition whose read_committed view is checked (a transaction's fate is decided after its records, so any window works). */
const COMMITTED_WINDOW = 5_000
const MARKERS_READ = 32
/**
 * The timeout of the transactional producer's one transaction over every drilled partition: Kafka's ceiling
 * (transaction.max.timeout.ms, 15 min). Its writes take as long as they take — 2,000 partitions on a busy server
 * took over the cluster's default 60 s, the copy's coordinator aborted the transaction, and a sound copy failed
 * its drill (npm run bench -- drill, session 15).
 */
export const DRILL_TRANSACTION_TIMEOUT_MS = 15 * 60_000

type Key = string
const key = (tp: TopicPartition): Key => `${tp.topic}\u0000${tp.partition}`

/**
 * Partitions a check works on at once. One at a time, 2,000 partitions took 361–538 s of checks (npm run bench
 * -- drill, session 15): each step waits on its own read or fsync, so the waits overlap; the bound keeps the
 * thread pool and the event loop shared with the production mirror.
 */
export const CHECK_CONCURRENCY = 16

/**
 * `work` over the items, CHECK_CONCURRENCY at a time, the event loop given back between items (forEachConcurrently);
 * the work gets each item's index, so what it finds is reported in the items' order (OrderedProblems).
 */
async function concurrently<T>(items: readonly T[], work: (item: T, index: number) => Promise<void>, pace?: Pace): Promise<void> {
  await forEachConcurrently(
    items.map((item, index) => [item, index] as const),
    CHECK_CONCURRENCY,
    async ([item, index]) => {
      const wait = pace?.()
      if (wait) await wait
      await work(item, index)
    },
  )
}

/**
 * Asked before each step of a check (a partition read, a write, a restart): a promise to wait on while production
 * mirroring lags past its budget (lib/drill/pacing.ts), else undefined. The checks give way at each step; the
 * sandbox's open (each log) and its failover (each log write of the STOPPING sequence) too, though they are part
 * of the RTO: unpaced, they were most of production's lag during a drill at load (session 18).
 */
export type Pace = () => Promise<void> | undefined

/** Problems found by concurrent work, read back in the items' order. */
class OrderedProblems {
  private readonly entries: Array<[number, string]> = []
  add(index: number, problem: string): void {
    this.entries.push([index, problem])
  }
  list(): string[] {
    return this.entries.sort((a, b) => a[0] - b[0]).map(([, problem]) => problem)
  }
}

function checked(records: readonly RecordView[]): CheckedRecord[] {
  return records.map(({ offset, type, producerId, transactional }) => ({ offset, type, producerId, transactional }))
}

/** Reads each partition's markers after its last mirror position; judges them against the copy's preflight plan. */
export async function checkMarkers(sandbox: EmbeddedCluster, plan: FailoverPreflight, partitions: ReadonlyArray<Readonly<PartitionSnapshot>>, pace?: Pace): Promise<{ check: DrillCheck; markers: Map<Key, DrillPartition['markers']> }> {
  const planned = new Map(plan.partitions.map((p) => [key(p), p]))
  const problems = new OrderedProblems()
  const markers = new Map<Key, DrillPartition['markers']>()
  let aborts = 0
  await concurrently(partitions, async (snapshot, index) => {
    const planEntry = planned.get(key(snapshot))
    const from = Math.max(0, snapshot.lastMirrorPosition?.offset ?? 0)
    const page = await sandbox.readRecords(snapshot.topic, snapshot.partition, { fromOffset: from, limit: (planEntry?.transactionsToAbort.length ?? 0) + MARKERS_READ })
    const records = checked(page.records)
    markers.set(
      key(snapshot),
      page.records.filter((record) => record.type !== 'DATA').map(({ offset, type, producerId }) => ({ offset, type: type as 'ABORT' | 'COMMIT' | 'MIRROR_PID_RESET', producerId })),
    )
    aborts += records.filter((record) => record.type === 'ABORT').length
    const problem = markerProblem({ topic: snapshot.topic, partition: snapshot.partition, position: snapshot.lastMirrorPosition, transactionsToAbort: planEntry?.transactionsToAbort ?? [], records })
    if (problem !== null) problems.add(index, problem)
  }, pace)
  const passed = `${counted(aborts, 'ABORT marker')} and ${counted(partitions.length, 'MIRROR_PID_RESET')} in ${counted(partitions.length, 'partition')}, each right after its last mirror position, in the plan's order`
  return { check: check('markers-as-planned', problems.list(), passed), markers }
}

/** Compares each partition's read_committed view with the committed data computed from its records. */
export async function checkReadCommitted(sandbox: EmbeddedCluster, partitions: readonly TopicPartition[], pace?: Pace): Promise<DrillCheck> {
  const problems = new OrderedProblems()
  let offsets = 0
  await concurrently(partitions, async (tp, index) => {
    const described = await sandbox.describePartition(tp)
    const from = Math.max(described.logStartOffset, described.logEndOffset - COMMITTED_WINDOW)
    const all = await sandbox.readRecords(tp.topic, tp.partition, { fromOffset: from, limit: COMMITTED_WINDOW + MARKERS_READ, isolation: 'read_uncommitted' })
    const committed = await sandbox.readRecords(tp.topic, tp.partition, { fromOffset: from, limit: COMMITTED_WINDOW + MARKERS_READ, isolation: 'read_committed' })
    offsets += described.logEndOffset - from
    if (committed.lastStableOffset !== described.logEndOffset) {
      problems.add(index, `${tp.topic}-${tp.partition}: the last stable offset is ${committed.lastStableOffset}, not the log end ${described.logEndOffset} (a transaction is still open)`)
      return
    }
    const problem = committedProblem(`${tp.topic}-${tp.partition}`, expectedCommitted(checked(all.records)), committed.records.filter((record) => record.type === 'DATA').map((record) => record.offset))
    if (problem !== null) problems.add(index, problem)
  }, pace)
  return check('read-committed', problems.list(), `read_committed returns exactly the committed data over ${counted(offsets, 'offset')} of ${counted(partitions.length, 'partition')}, and no transaction is left open`)
}

/** The destination's committed offsets on the copied partitions, present on the copy and within its logs. */
export async function checkGroupOffsets(sandbox: EmbeddedCluster, destinationGroups: readonly GroupOffsets[], partitions: readonly TopicPartition[], refused: ReadonlyArray<{ groupId: string; topic: string; partition: number; reason: string }>): Promise<DrillCheck> {
  const wanted = new Set(partitions.map(key))
  const onCopy = new Map<string, number>()
  for (const group of await sandbox.listGroupOffsets()) for (const o of group.offsets) onCopy.set(`${group.groupId}\u0000${key(o)}`, o.offset)
  const problems = refused.map((entry) => `group ${entry.groupId} on ${entry.topic}-${entry.partition}: the copy refused its offset (${entry.reason})`)
  let count = 0
  for (const group of destinationGroups) {
    for (const committed of group.offsets) {
      if (!wanted.has(key(committed))) continue
      count += 1
      const described = await sandbox.describePartition(committed)
      const problem = groupOffsetProblem({ groupId: group.groupId, topic: committed.topic, partition: committed.partition, offset: committed.offset, onCopy: onCopy.get(`${group.groupId}\u0000${key(committed)}`) ?? null, logStartOffset: described.logStartOffset, logEndOffset: described.logEndOffset })
      if (problem !== null && !problems.some((line) => line.startsWith(`group ${group.groupId} on ${committed.topic}-${committed.partition}:`))) problems.push(problem)
    }
  }
  const passed = count === 0 ? 'no consumer group has committed offsets on these partitions of the destination' : `${counted(count, 'committed offset')} of ${counted(new Set(destinationGroups.map((group) => group.groupId)).size, 'group')} on the copy, each within its partition's log`
  return check('group-offsets', problems, passed)
}

export interface ProducerWrites {
  readonly idempotent: Map<Key, { offset: number; value: string }>
  readonly transactional: Map<Key, { offset: number; value: string }>
  readonly idempotentErrors: string[]
  readonly transactionalErrors: string[]
}

/**
 * Transactional producers of a drill: each writes one transaction over its share of the partitions (every
 * TRANSACTIONAL_PRODUCERS-th) and commits it. A producer sends one request at a time (its transaction's partitions
 * are added and written in order), so one producer over 2,000 partitions wrote for minutes; several, each its
 * own transactional id, write side by side and the coordinator's saves are shared.
 */
export const TRANSACTIONAL_PRODUCERS = 8

/** An idempotent write to each partition, and a transactional one in committed transactions (TRANSACTIONAL_PRODUCERS). */
export async function writeToCopy(sandbox: EmbeddedCluster, drill: string, partitions: readonly TopicPartition[], pace?: Pace): Promise<ProducerWrites> {
  const writes: ProducerWrites = { idempotent: new Map(), transactional: new Map(), idempotentErrors: [], transactionalErrors: [] }
  const idempotentErrors = new OrderedProblems()
  await concurrently(partitions, async (tp, index) => {
    const value = `${drill} idempotent write to ${tp.topic}-${tp.partition}`
    try {
      const produced = await sandbox.produce(tp.topic, { partition: tp.partition, idempotent: true, records: [{ key: drill, value }] })
      writes.idempotent.set(key(tp), { offset: produced.records[0]!.offset, value })
    } catch (error) {
      idempotentErrors.add(index, `${tp.topic}-${tp.partition}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }, pace)
  writes.idempotentErrors.push(...idempotentErrors.list())
  const producers = Math.min(TRANSACTIONAL_PRODUCERS, partitions.length)
  const slice = new TimeSlice(4)
  const transactionalErrors = new OrderedProblems()
  await Promise.all(
    Array.from({ length: producers }, async (_, producerIndex) => {
      const share = partitions.filter((_tp, index) => index % producers === producerIndex)
      try {
        const producer = await sandbox.createTransactionalProducer(producers === 1 ? `${drill}-transactional` : `${drill}-transactional-${producerIndex}`, { transactionTimeoutMs: DRILL_TRANSACTION_TIMEOUT_MS })
        try {
          for (const tp of share) {
            const value = `${drill} transactional write to ${tp.topic}-${tp.partition}`
            const sent = await producer.send(tp.topic, { partition: tp.partition, records: [{ key: drill, value }] })
            writes.transactional.set(key(tp), { offset: sent.records[0]!.offset, value })
            const turn = slice.maybeYield() ?? pace?.()
            if (turn) await turn
          }
          await producer.commit()
        } finally {
          producer.close()
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        transactionalErrors.add(producerIndex, producers === 1 ? message : `the transaction over ${counted(share.length, 'partition')} from ${share[0]!.topic}-${share[0]!.partition}: ${message}`)
      }
    }),
  )
  writes.transactionalErrors.push(...transactionalErrors.list())
  return writes
}

/**
 * Reads back what `writeToCopy` wrote: each record where its acknowledgement said. With `restart`, each
 * partition's broker is restarted first as after a crash (EmbeddedCluster.restartPartitionAsAfterCrash: its log
 * recovered from its files, the active segment checksummed, producer state replayed), so a write acknowledged but
 * not in the log as recovered fails the check — one partition at a time, with the others' checks, where closing
 * and reopening the whole sandbox for it was most of a 2,000-partition drill's checks (npm run bench -- drill).
 */
export async function checkWritesReadBack(sandbox: EmbeddedCluster, partitions: readonly TopicPartition[], writes: ProducerWrites, options: { restart?: boolean; pace?: Pace } = {}): Promise<DrillCheck[]> {
  const lost = { idempotent: new OrderedProblems(), transactional: new OrderedProblems() }
  writes.idempotentErrors.forEach((problem) => lost.idempotent.add(-1, problem))
  writes.transactionalErrors.forEach((problem) => lost.transactional.add(-1, problem))
  const restartProblems = new OrderedProblems()
  await concurrently(partitions, async (tp, index) => {
    if (options.restart) {
      try {
        await sandbox.restartPartitionAsAfterCrash(tp)
      } catch (error) {
        restartProblems.add(index, `${tp.topic}-${tp.partition}: its log did not reopen after the restart (${error instanceof Error ? error.message : String(error)})`)
        return
      }
    }
    for (const kind of ['idempotent', 'transactional'] as const) {
      const written = writes[kind].get(key(tp))
      if (written === undefined) {
        if (kind === 'transactional' && writes.transactionalErrors.length === 0) lost.transactional.add(index, `${tp.topic}-${tp.partition}: not written`)
        continue
      }
      const missing = `${tp.topic}-${tp.partition}: acknowledged at offset ${written.offset} but not there ${options.restart ? 'after the restart' : 'any more'}`
      let page
      try {
        page = await sandbox.readRecords(tp.topic, tp.partition, { fromOffset: written.offset, limit: 1, isolation: kind === 'transactional' ? 'read_committed' : 'read_uncommitted' })
      } catch (error) {
        // A log that now ends before the write (OFFSET_OUT_OF_RANGE) lost it: a finding, not a failure of the check.
        lost[kind].add(index, `${missing} (${error instanceof Error ? error.message : String(error)})`)
        continue
      }
      const record = page.records[0]
      if (record === undefined || record.offset !== written.offset || record.value !== written.value) {
        lost[kind].add(index, record === undefined ? missing : `${tp.topic}-${tp.partition}: acknowledged at offset ${written.offset} but offset ${record.offset} holds ${JSON.stringify(record.value)}`)
      }
    }
  }, options.pace)
  for (const problem of restartProblems.list()) {
    lost.idempotent.add(Number.MAX_SAFE_INTEGER, problem)
    lost.transactional.add(Number.MAX_SAFE_INTEGER, problem)
  }
  const after = options.restart ? "after each partition's broker restarted as after a crash" : 'as the copy holds them'
  // A few partitions: name where each write landed, so the operator can look at it.
  const where = (kind: 'idempotent' | 'transactional') =>
    partitions.length <= 5 ? ` (${partitions.map((tp) => `${tp.topic}-${tp.partition} at ${writes[kind].get(key(tp))?.offset ?? '?'}`).join(', ')})` : ''
  return [
    check('idempotent-producer', lost.idempotent.list(), `an idempotent producer wrote to ${partitions.length === 1 ? 'the partition' : `all ${partitions.length} partitions`}${where('idempotent')}; every record read back at its acknowledged offset ${after}`),
    check('transactional-producer', lost.transactional.list(), `${transactionalWriters(partitions.length)} wrote to ${partitions.length === 1 ? 'the partition' : `all ${partitions.length} partitions`}${where('transactional')}; read_committed returns every record ${after}`),
  ]
}

function transactionalWriters(partitions: number): string {
  const producers = Math.min(TRANSACTIONAL_PRODUCERS, partitions)
  return producers <= 1 ? 'a transactional producer, in one committed transaction,' : `${producers} transactional producers, each in one committed transaction over its share,`
}

/**
 * Partitions read from the source per fetch, and the bytes each may answer: at most 4 MiB a round, each
 * partition's batches judged in a time slice of its own (200 partitions of 256 KiB would put up to 50 MiB of
 * records in one synchronous stretch: the drill bench under load saw a 157 ms stall of main-thread CPU then).
 */
const SOURCE_FETCH_PARTITIONS = 16
const SOURCE_FETCH_BYTES = 256 * 1024

/**
 * Nothing of the copy reached the source: each drilled partition of the source read (as a consumer reads) from
 * the copy's mirrored offset to its high watermark now, and no batch in it may be the drill's — a
 * MIRROR_PID_RESET (only a failover writes one) or a record keyed with the drill's id (its producers' key).
 * A source that cannot be read fails the check: nothing is confirmed. `refusedCalls` is what the isolated port
 * refused the copy's engine (the reason nothing could reach the source).
 */
export async function checkSourceUntouched(
  source: SourceCluster,
  input: { sourceName: string; drillId: string; partitions: ReadonlyArray<TopicPartition & { mirroredOffset: number }>; refusedCalls: number; pace?: Pace },
): Promise<DrillCheck> {
  const problems: string[] = []
  let pending = input.partitions.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.mirroredOffset, end: null as number | null }))
  let batches = 0
  let records = 0
  const slice = new TimeSlice(4)
  while (pending.length > 0) {
    // The production source serves the mirror too.
    const wait = input.pace?.()
    if (wait) await wait
    const round = pending.slice(0, SOURCE_FETCH_PARTITIONS)
    const results: FetchPartitionResult[] = await source
      .fetch(
        round.map(({ topic, partition, offset }) => ({ topic, partition, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: SOURCE_FETCH_BYTES })),
        { maxBytes: SOURCE_FETCH_PARTITIONS * SOURCE_FETCH_BYTES, maxWaitMs: 0 },
      )
      .catch((error: unknown) => round.map(({ topic, partition }) => ({ ok: false as const, topic, partition, error: { code: 'SOURCE_UNAVAILABLE' as const, message: error instanceof Error ? error.message : String(error) } })))
    const answered = new Map(results.map((result) => [key(result), result]))
    const next: typeof pending = []
    for (const entry of round) {
      const turn = slice.maybeYield()
      if (turn) await turn
      const where = `${entry.topic}-${entry.partition}`
      const result = answered.get(key(entry))
      if (result?.ok === false && result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && result.logEndOffset !== undefined) {
        // Retention went past the copy's point meanwhile (read on from the log start), or the log ends before it (nothing after it).
        if (entry.offset < result.logStartOffset && result.logStartOffset < result.logEndOffset) next.push({ ...entry, offset: result.logStartOffset })
        if (entry.offset < result.logStartOffset || entry.offset >= result.logEndOffset) continue
      }
      if (result === undefined || !result.ok) {
        problems.push(`${where}: the source could not be read from offset ${entry.offset} (${result?.ok === false ? result.error.message : 'no answer'}), so nothing is confirmed`)
        continue
      }
      // Read up to the high watermark of the first answer: production keeps writing, the drill's writes are older.
      entry.end ??= result.highWatermark
      let reached = entry.offset
      try {
        for (const { header, position } of splitBatches(result.records)) {
          if (header.lastOffset < entry.offset || header.baseOffset >= entry.end) continue
          batches += 1
          records += header.recordCount
          const problem = sourceBatchProblem(where, result.records.subarray(position, position + header.sizeInBytes), header, input.drillId)
          if (problem !== null) problems.push(problem)
          reached = header.lastOffset + 1
        }
      } catch (error) {
        problems.push(`${where}: the source's batches from offset ${entry.offset} could not be read (${error instanceof Error ? error.message : String(error)})`)
        continue
      }
      if (reached > entry.offset && reached < entry.end) next.push({ ...entry, offset: reached })
    }
    pending = [...next, ...pending.slice(SOURCE_FETCH_PARTITIONS)]
  }
  return check(
    'source-untouched',
    problems,
    `${counted(input.partitions.length, 'partition')} of ${input.sourceName} read from the copy's mirrored offsets to their high watermarks (${counted(records, 'record')} in ${counted(batches, 'batch', 'batches')}): no MIRROR_PID_RESET and no record of the drill's producers; the copy's engine had the source only through a port that refuses every call (${counted(input.refusedCalls, 'call')} refused)`,
  )
}
