import 'server-only'
import type { EpochEndOffset } from '@/lib/log/types'
import { TimeSlice } from '@/server/util/cooperative'
import type { PartitionLogApi } from '@/server/storage/types'
import { ClusterError, isClusterError, toClusterError } from '../errors'
import type { FetchOptions, FetchPartitionRequest, FetchPartitionResult } from '../ports'
import { isInteger, type ClusterDirectory } from './cluster-directory'
import { divergingEpoch } from './epochs'
import type { ReplicatedPartition } from './replicated-partition'

type FetchErrorCode = Extract<FetchPartitionResult, { ok: false }>['error']['code']

/**
 * KIP-320's check of the caller's history against the leader's epochs, the one copy both fetch paths use:
 * - `noEpoch`: the caller holds nothing (lastFetchedEpoch -1), there is nothing to check;
 * - `unknownEpoch`: the leader has no end offset for the caller's epoch;
 * - `diverging`: the leader knows the epoch but it ends before the caller's fetch offset (or the leader's
 *   floor epoch is older): the caller truncates to `divergingEpoch` and fetches again;
 * - `consistent`: the caller's log is a prefix of the leader's.
 */
type LastFetchedEpochCheck = { kind: 'noEpoch' } | { kind: 'consistent' } | { kind: 'unknownEpoch' } | { kind: 'diverging'; divergingEpoch: EpochEndOffset }

function checkLastFetchedEpoch(partition: ReplicatedPartition, request: FetchPartitionRequest): LastFetchedEpochCheck {
  if (request.lastFetchedEpoch < 0) return { kind: 'noEpoch' }
  const answer = partition.leaderEndOffsetForEpoch(request.lastFetchedEpoch)
  if (answer.endOffset < 0) return { kind: 'unknownEpoch' }
  const diverging = divergingEpoch(answer, request.lastFetchedEpoch, request.fetchOffset)
  return diverging ? { kind: 'diverging', divergingEpoch: diverging } : { kind: 'consistent' }
}

/** A fetch answer with nothing in it for the fetcher to act on: no records, no divergence, no error. */
export function isQuietResult(result: FetchPartitionResult): boolean {
  return result.ok && result.records.byteLength === 0 && result.divergingEpoch === null
}

/** The options of a fetch (or a fetch session's call), checked; returns the wait in ms (0 when absent). */
export function validFetchOptions(options: FetchOptions): number {
  if (!isInteger(options?.maxBytes, 1)) throw new ClusterError('VALIDATION_FAILED', 'fetch maxBytes must be a positive integer')
  const maxWaitMs = options.maxWaitMs ?? 0
  if (!isInteger(maxWaitMs, 0)) throw new ClusterError('VALIDATION_FAILED', 'fetch maxWaitMs must be a non-negative integer')
  return maxWaitMs
}

export function validateFetchRequest(request: FetchPartitionRequest): void {
  const r = request
  if (typeof r?.topic !== 'string' || !isInteger(r.partition, 0) || !isInteger(r.fetchOffset, 0) || !isInteger(r.lastFetchedEpoch, -1) || !isInteger(r.maxBytes, 1)) {
    throw new ClusterError('VALIDATION_FAILED', `invalid fetch request ${JSON.stringify(r)}`)
  }
}

/** The SourceCluster fetch: many partitions at once, held (maxWaitMs) until one of them has something. */
export class SourceFetch {
  constructor(private readonly directory: ClusterDirectory) {}

  async fetch(requests: FetchPartitionRequest[], options: FetchOptions): Promise<FetchPartitionResult[]> {
    const { directory } = this
    if (!Array.isArray(requests)) throw new ClusterError('VALIDATION_FAILED', 'fetch needs an array of partitions')
    const maxWaitMs = validFetchOptions(options)
    for (const request of requests) validateFetchRequest(request)
    // Each partition is looked up once per fetch, not once per pass: a held fetch passes over its partitions
    // twice, and a mirror's fetch names thousands.
    const partitions = requests.map((request) => directory.findPartition(request.topic, request.partition))
    if (maxWaitMs === 0 || options.signal?.aborted) return this.answer(requests, partitions, options.maxBytes, options.into)
    // Registered before the first pass: data that lands while the pass yields to the event loop still wakes it.
    let woken = false
    let endWait: (() => void) | null = null
    const waiter = {
      partitions: new Set(partitions.filter((partition) => partition !== undefined)),
      wake: () => {
        woken = true
        endWait?.()
      },
    }
    directory.fetchWaiters.add(waiter)
    try {
      const first = await this.answer(requests, partitions, options.maxBytes, options.into)
      if (woken || directory.closed || options.signal?.aborted || first.some((result) => !isQuietResult(result))) {
        return woken ? await this.answer(requests, partitions, options.maxBytes, options.into) : first
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, maxWaitMs)
        function done() {
          clearTimeout(timer)
          options.signal?.removeEventListener('abort', done)
          resolve()
        }
        endWait = done
        options.signal?.addEventListener('abort', done, { once: true })
      })
      return await this.answer(requests, partitions, options.maxBytes, options.into)
    } finally {
      directory.fetchWaiters.delete(waiter)
    }
  }

  /**
   * Answers every request as a fetch made now would (no wait): one pass, `partitions` looked up by the
   * caller in the order of `requests`. The fetch sessions (fetch-session.ts) answer their changed partitions
   * with it.
   */
  async answer(requests: FetchPartitionRequest[], partitions: Array<ReplicatedPartition | undefined>, maxBytes: number, into?: Buffer): Promise<FetchPartitionResult[]> {
    let remaining = maxBytes
    let free = into
    const results: FetchPartitionResult[] = []
    // A fetch for thousands of partitions is thousands of microtasks; without turns of the event loop in
    // between, one fetch would hold every request the server is serving.
    const slice = new TimeSlice()
    for (const [index, request] of requests.entries()) {
      const turn = slice.maybeYield()
      if (turn) await turn
      // Most partitions of a large fetch have nothing to read; they are answered without a promise each.
      const result = this.answerWithoutRead(request, partitions[index]) ?? (await this.fetchPartition(request, remaining, free))
      if (result.ok) remaining -= result.records.byteLength
      // The next partition's records go after this one's in the caller's buffer.
      if (result.ok && free !== undefined && result.records.buffer === free.buffer && result.records.byteOffset === free.byteOffset) free = free.subarray(result.records.byteLength)
      results.push(result)
    }
    return results
  }

  /**
   * The answer for a partition whose fetch reads nothing (the fetcher is at the high watermark and its
   * history is consistent), or null when anything else may be the answer: then fetchPartition answers.
   */
  private answerWithoutRead(request: FetchPartitionRequest, partition: ReplicatedPartition | undefined): FetchPartitionResult | null {
    const { directory } = this
    if (!directory.isReachable()) return null
    // A partition looked up before a pass that yielded may have been deleted since (its topic's metadata is
    // gone or new): fetchPartition says what there is now.
    if (!partition || directory.topicNamed(request.topic) !== partition.topicMetadata) return null
    if (partition.metadata.leader < 0 || !directory.alive.has(partition.metadata.leader)) return null
    let log: PartitionLogApi
    try {
      log = partition.leaderLog()
    } catch {
      return null
    }
    if (request.fetchOffset !== log.highWatermark || request.fetchOffset < log.logStartOffset) return null
    const check = checkLastFetchedEpoch(partition, request)
    if (check.kind !== 'noEpoch' && check.kind !== 'consistent') return null
    return {
      ok: true,
      topic: request.topic,
      partition: request.partition,
      leaderEpoch: partition.metadata.leaderEpoch,
      records: new Uint8Array(0),
      highWatermark: log.highWatermark,
      lastStableOffset: log.lastStableOffset,
      logStartOffset: log.logStartOffset,
      divergingEpoch: null,
      nextRecordTimestamp: null,
    }
  }

  private async fetchPartition(request: FetchPartitionRequest, remaining: number, into?: Buffer): Promise<FetchPartitionResult> {
    const { directory } = this
    const { topic, partition: index, fetchOffset, lastFetchedEpoch } = request
    const fail = (code: FetchErrorCode, message: string, extra: { logStartOffset?: number; logEndOffset?: number } = {}): FetchPartitionResult => ({
      ok: false,
      topic,
      partition: index,
      error: { code, message },
      ...extra,
    })
    if (!directory.isReachable()) return fail('SOURCE_UNAVAILABLE', `cluster ${directory.name} is not reachable`)
    const partition = directory.findPartition(topic, index)
    if (!partition) return fail('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${index} does not exist in ${directory.name}`)
    let log: PartitionLogApi
    try {
      log = partition.leaderLog()
    } catch {
      return fail('LEADER_NOT_AVAILABLE', `${topic}-${index} has no leader`)
    }
    const range = { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset }
    const base = { ok: true as const, topic, partition: index, leaderEpoch: partition.metadata.leaderEpoch }
    // KIP-320: validate the caller's last fetched epoch against our history before returning any data.
    const check = checkLastFetchedEpoch(partition, request)
    if (check.kind === 'unknownEpoch') return fail('OFFSET_OUT_OF_RANGE', `epoch ${lastFetchedEpoch} is unknown to ${topic}-${index}`, range)
    if (check.kind !== 'noEpoch' && fetchOffset < log.logStartOffset) {
      return fail('OFFSET_OUT_OF_RANGE', `offset ${fetchOffset} is below the log start offset ${log.logStartOffset}`, range)
    }
    if (check.kind === 'diverging') {
      return {
        ...base,
        records: new Uint8Array(0),
        highWatermark: log.highWatermark,
        lastStableOffset: log.lastStableOffset,
        logStartOffset: log.logStartOffset,
        divergingEpoch: check.divergingEpoch,
        nextRecordTimestamp: null,
      }
    }
    if (fetchOffset < log.logStartOffset || fetchOffset > log.logEndOffset) {
      return fail('OFFSET_OUT_OF_RANGE', `offset ${fetchOffset} is outside [${log.logStartOffset}, ${log.logEndOffset}] of ${topic}-${index}`, range)
    }
    try {
      const highWatermark = log.highWatermark
      let records: Uint8Array = new Uint8Array(0)
      let end = fetchOffset
      if (remaining > 0 && fetchOffset < highWatermark) {
        const read = await log.read(fetchOffset, Math.min(request.maxBytes, remaining), { isolation: 'read_uncommitted', maxOffset: highWatermark, ...(into === undefined ? {} : { into }) })
        records = read.records
        end = ((read.lastOffset === undefined ? read.batches.at(-1)?.lastOffset : read.lastOffset) ?? fetchOffset - 1) + 1
      }
      // The next batch's header only: reading the batch itself (up to a megabyte) for its timestamp doubled a
      // large fetch's reads.
      const next = log.batchHeaderAt(end, highWatermark)
      const nextRecordTimestamp = next === null ? null : next.timestampType === 'LogAppendTime' || next.hasDeleteHorizon ? next.maxTimestamp : next.baseTimestamp
      return { ...base, records, highWatermark, lastStableOffset: log.lastStableOffset, logStartOffset: log.logStartOffset, divergingEpoch: null, nextRecordTimestamp }
    } catch (error) {
      const converted = toClusterError(error)
      if (isClusterError(converted, 'OFFSET_OUT_OF_RANGE')) return fail('OFFSET_OUT_OF_RANGE', converted.message, range)
      if (isClusterError(converted, 'CORRUPT_RECORD')) return fail('CORRUPT_MESSAGE', converted.message)
      if (isClusterError(converted, 'LOG_CLOSED')) return fail('NOT_LEADER_OR_FOLLOWER', converted.message)
      throw converted
    }
  }
}
