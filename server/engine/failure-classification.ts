import 'server-only'
import type { FetchPartitionResult } from '@/server/cluster/ports'

/**
 * Where a failure sends a partition (KIP-1279.md §2.4, as Kafka's fetcher sorts errors per partition):
 * retried with backoff (the partition goes FAILED with a retry scheduled), or failed for good. One bad
 * partition never stops the others; these functions are the only place that decides.
 */
export interface FailureVerdict {
  /** The failure as the partition keeps it: `<code>: <message>`, or the message alone when uncoded. */
  error: string
  retryable: boolean
}

/** Codes that a retry cannot fix: the local disk or a bug in what we wrote, not the network. */
const NON_RETRYABLE_EFFECT_CODES = new Set(['CORRUPT_RECORD', 'KAFKA_STORAGE_ERROR', 'INVALID_RECORD'])

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : ''
}

/** An effect's failure (truncate, bump, STOPPING step, ...): storage and validation bugs are not retried; everything else is. */
export function classifyEffectError(error: unknown): FailureVerdict {
  const code = errorCode(error)
  const message = errorMessage(error)
  return { error: code ? `${code}: ${message}` : message, retryable: !NON_RETRYABLE_EFFECT_CODES.has(code) }
}

/**
 * The failure to append a fetched answer: a malformed batch (bad CRC, bad offsets) came over the wire, and
 * the next fetch brings fresh bytes, so it is retried like any fetch error; only a failing local disk stays
 * non-retryable.
 */
export function classifyAppendError(error: unknown): FailureVerdict {
  return { error: classifyEffectError(error).error, retryable: errorCode(error) !== 'KAFKA_STORAGE_ERROR' }
}

/** What one partition's failed fetch answer asks for. */
export type FetchErrorVerdict =
  /** The source deleted what we had not fetched yet: restart the destination log at the source's log start (KIP-1279.md §11 #12). */
  | { kind: 'restartAtLogStart'; logStartOffset: number }
  | ({ kind: 'retry' } & FailureVerdict)

/** Sorts a partition's error in a fetch answer; every such error but a log start above our position is retried. */
export function classifyFetchError(result: Extract<FetchPartitionResult, { ok: false }>, fetchOffset: number): FetchErrorVerdict {
  if (result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && fetchOffset < result.logStartOffset) {
    return { kind: 'restartAtLogStart', logStartOffset: result.logStartOffset }
  }
  return { kind: 'retry', error: `${result.error.code}: ${result.error.message}`, retryable: true }
}

/** A whole fetch that did not reach the source: every partition of it retries. */
export function classifyUnreachableSource(error: unknown): FailureVerdict {
  return { error: `source unreachable: ${errorMessage(error)}`, retryable: true }
}
