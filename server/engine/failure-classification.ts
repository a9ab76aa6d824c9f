import 'server-only'
import type { MirrorEvent } from '@/lib/mirror/events'
import type { FailureCode } from '@/lib/mirror/failure-code'
import type { FetchPartitionResult } from '@/server/cluster/ports'

/**
 * Where a failure sends a partition (KIP-1279.md §2.4, as Kafka's fetcher sorts errors per partition):
 * retried with backoff (the partition goes FAILED with a retry scheduled), or failed for good. One bad
 * partition never stops the others; these functions are the only place that decides.
 */
export interface FailureVerdict {
  /** Why, as the FAILED partition keeps it (lib/mirror/failure-code.ts). */
  code: FailureCode
  /** The message the partition shows (API `error`): the cause's own code first when it has one. */
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

/** The cause's message, led by its own code when it has one. */
function causeText(error: unknown): string {
  const code = errorCode(error)
  const message = errorMessage(error)
  return code ? `${code}: ${message}` : message
}

/** An effect's failure (truncate, bump, STOPPING step, ...): storage and validation bugs are not retried; everything else is. */
export function classifyEffectError(effect: string, error: unknown): FailureVerdict {
  return { code: 'EFFECT_FAILED', error: `${effect}: ${causeText(error)}`, retryable: !NON_RETRYABLE_EFFECT_CODES.has(errorCode(error)) }
}

/**
 * A state write that failed where the partition's next step needed it (a retry out of FAILED): nothing changed on
 * any log, and the next attempt is the test of whether the store answers again, so it is always retried.
 */
export function classifyStateWriteError(error: unknown): FailureVerdict {
  return { code: 'EFFECT_FAILED', error: `state write: ${causeText(error)}`, retryable: true }
}

/**
 * The failure to append a fetched answer: a malformed batch (bad CRC, bad offsets) came over the wire, and
 * the next fetch brings fresh bytes, so it is retried like any fetch error; only a failing local disk stays
 * non-retryable.
 */
export function classifyAppendError(error: unknown): FailureVerdict {
  return { code: 'APPEND_FAILED', error: `append: ${causeText(error)}`, retryable: errorCode(error) !== 'KAFKA_STORAGE_ERROR' }
}

/** What one partition's failed fetch answer asks for. */
export type FetchErrorVerdict =
  /** The source deleted what we had not fetched yet: restart the destination log at the source's log start (KIP-1279.md §11 #12). */
  | { kind: 'restartAtLogStart'; logStartOffset: number }
  /**
   * The source does not know the topic or partition (deleted, or not there yet): not a failure. Kafka's fetcher
   * delays such a partition and fetches it again later, while the metadata refresh decides whether the topic was
   * deleted (then FAILED non-retryable, KIP-1279.md §2.4) or is back.
   */
  | { kind: 'delay'; error: string }
  | ({ kind: 'retry' } & FailureVerdict)

/**
 * Sorts a partition's error in a fetch answer: a log start above our position restarts the log there, an unknown
 * topic delays the partition, and every other error is retried.
 */
export function classifyFetchError(result: Extract<FetchPartitionResult, { ok: false }>, fetchOffset: number): FetchErrorVerdict {
  if (result.error.code === 'OFFSET_OUT_OF_RANGE' && result.logStartOffset !== undefined && fetchOffset < result.logStartOffset) {
    return { kind: 'restartAtLogStart', logStartOffset: result.logStartOffset }
  }
  if (result.error.code === 'UNKNOWN_TOPIC_OR_PARTITION') return { kind: 'delay', error: `${result.error.code}: ${result.error.message}` }
  return { kind: 'retry', code: 'FETCH_ERROR', error: `${result.error.code}: ${result.error.message}`, retryable: true }
}

/**
 * The destination did not answer before a round could fetch for the partition (a Kafka destination whose
 * broker is down; an embedded one always answers): the mirror cannot write there, so the partition retries.
 */
export function classifyUnreachableDestination(error: unknown): FailureVerdict {
  return { code: 'DESTINATION_UNREACHABLE', error: `destination unreachable: ${errorMessage(error)}`, retryable: true }
}

/** A whole fetch that did not reach the source: every partition of it retries. */
export function classifyUnreachableSource(error: unknown): FailureVerdict {
  return { code: 'SOURCE_UNREACHABLE', error: `source unreachable: ${errorMessage(error)}`, retryable: true }
}

/**
 * The code a failure event leaves on the partition: a `failed` event names its own (one dispatched without
 * one is an effect's); the table's other failure events each mean one thing.
 */
export function failureCodeOf(event: MirrorEvent): FailureCode | null {
  switch (event.type) {
    case 'failed':
      return event.code ?? 'EFFECT_FAILED'
    case 'divergenceDetected':
      return 'LOG_DIVERGED'
    case 'sourceTopicDeleted':
      return 'SOURCE_TOPIC_DELETED'
    case 'sourceClusterIdChanged':
      return 'SOURCE_CLUSTER_ID_CHANGED'
    case 'tieredStorageDetected':
      return 'TIERED_STORAGE_ENABLED'
    case 'mirrorLoopDetected':
      return 'MIRROR_LOOP'
    default:
      return null
  }
}
