import 'server-only'
import { CodedError } from '@/lib/coded-error'
import { StorageError } from '@/lib/log/errors'

/**
 * Typed failures of a cluster (embedded or Kafka). The names are the API's codes where API.md has one and
 * Kafka's error names otherwise, so the HTTP layer maps them to statuses in one place:
 *
 * - bad input (400/404/409): VALIDATION_FAILED, NOT_FOUND, CONFLICT, TOPIC_READ_ONLY, TOPIC_WRITE_FENCED (a planned
 *   switchover fenced the source topic), OFFSET_OUT_OF_RANGE;
 *   CLUSTER_CONNECTION_FAILED (422): the settings of a new Kafka cluster do not connect;
 * - producer protocol (409): OUT_OF_ORDER_SEQUENCE, INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE,
 *   CONCURRENT_TRANSACTIONS, TRANSACTION_COORDINATOR_FENCED, RECORD_TOO_LARGE, INVALID_RECORD, CORRUPT_RECORD,
 *   FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH (a stale `__mirror_state` writer), MIRROR_LEADER_EPOCH_EXCEEDED;
 * - availability (503, retriable): SOURCE_UNAVAILABLE (no broker reachable, cluster closed),
 *   LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, LOG_TRUNCATED;
 * - broken storage (500): KAFKA_STORAGE_ERROR, LOG_CLOSED, INTERNAL.
 *
 * A rejected request changes nothing, except the availability codes after an append: the records may be in
 * the leader's log already (exactly as with Kafka's acks=all), and an idempotent retry is deduplicated.
 */
export type ClusterErrorCode =
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOPIC_READ_ONLY'
  | 'TOPIC_WRITE_FENCED'
  | 'OFFSET_OUT_OF_RANGE'
  | 'CLUSTER_CONNECTION_FAILED'
  | 'OUT_OF_ORDER_SEQUENCE'
  | 'INVALID_PRODUCER_EPOCH'
  | 'INVALID_TXN_STATE'
  | 'CONCURRENT_TRANSACTIONS'
  | 'TRANSACTION_COORDINATOR_FENCED'
  | 'RECORD_TOO_LARGE'
  | 'INVALID_RECORD'
  | 'CORRUPT_RECORD'
  | 'UNSUPPORTED_COMPRESSION_TYPE'
  | 'FENCED_LEADER_EPOCH'
  | 'FENCED_STATE_EPOCH'
  | 'MIRROR_LEADER_EPOCH_EXCEEDED'
  | 'SOURCE_UNAVAILABLE'
  | 'LEADER_NOT_AVAILABLE'
  | 'NOT_LEADER_OR_FOLLOWER'
  | 'NOT_ENOUGH_REPLICAS'
  | 'REQUEST_TIMED_OUT'
  | 'LOG_TRUNCATED'
  | 'LOG_CLOSED'
  | 'KAFKA_STORAGE_ERROR'
  | 'INTERNAL'

export class ClusterError extends CodedError<ClusterErrorCode> {
  constructor(code: ClusterErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(code, message, options)
    this.name = 'ClusterError'
  }
}

export function isClusterError(error: unknown, code?: ClusterErrorCode): error is ClusterError {
  return error instanceof ClusterError && (code === undefined || error.code === code)
}

/** Codes a client may retry as is (Kafka's RetriableException family). */
export function isRetriableClusterError(error: unknown): boolean {
  return (
    error instanceof ClusterError &&
    (error.code === 'LEADER_NOT_AVAILABLE' ||
      error.code === 'NOT_LEADER_OR_FOLLOWER' ||
      error.code === 'NOT_ENOUGH_REPLICAS' ||
      error.code === 'REQUEST_TIMED_OUT' ||
      error.code === 'CONCURRENT_TRANSACTIONS' ||
      error.code === 'SOURCE_UNAVAILABLE')
  )
}

/**
 * Translates a storage failure into the cluster vocabulary (same code, original error kept as `cause`);
 * any other error passes through untouched.
 */
export function toClusterError(error: unknown): unknown {
  if (error instanceof StorageError) return new ClusterError(error.code, error.message, { cause: error })
  return error
}
