/**
 * Why a partition is FAILED, as a code the engine keeps next to the failure's message (API `error`), so
 * nothing has to parse the message to tell one failure from another.
 */
export const FAILURE_CODES = [
  /** A whole fetch did not reach the source. */
  'SOURCE_UNREACHABLE',
  /** The source answered the partition's fetch with an error (its Kafka code leads the message). */
  'FETCH_ERROR',
  /** A fetched answer could not be appended to the destination log. */
  'APPEND_FAILED',
  /** The destination did not answer before a round could fetch for the partition (a Kafka destination whose broker is down). */
  'DESTINATION_UNREACHABLE',
  /** An effect of the transition table failed on the destination (truncate, epoch bump, a STOPPING step...). */
  'EFFECT_FAILED',
  /** A mirror on the source mirrors this partition the other way and has not stopped it (KIP-1279.md §3.4). */
  'REVERSE_MIRROR_NOT_STOPPED',
  /** PREPARING found no such partition on the source yet. */
  'SOURCE_PARTITION_UNKNOWN',
  /** The source's history diverged and the topic does not allow unclean-election truncation (KIP-1279.md §2.4). */
  'LOG_DIVERGED',
  'SOURCE_TOPIC_DELETED',
  'SOURCE_CLUSTER_ID_CHANGED',
  'TIERED_STORAGE_ENABLED',
  'MIRROR_LOOP',
] as const

export type FailureCode = (typeof FAILURE_CODES)[number]

export function isFailureCode(value: unknown): value is FailureCode {
  return typeof value === 'string' && (FAILURE_CODES as readonly string[]).includes(value)
}
