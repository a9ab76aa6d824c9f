import { CodedError } from '../coded-error'

/**
 * Error codes an API response may carry. The first group is API.md's contract; the rest are Kafka's names
 * for producer, storage and availability failures, passed through so a client can tell a fenced producer
 * from a full disk. The status of each code is decided in one place, `server/http/problem.ts`.
 */
export const API_ERROR_CODES = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'INVALID_MIRROR_STATE',
  'CONFIRMATION_REQUIRED',
  'CONFLICT',
  'TOPIC_READ_ONLY',
  'TOPIC_WRITE_FENCED',
  'RPO_OBJECTIVE_EXCEEDED',
  'SOURCE_UNAVAILABLE',
  'CLUSTER_CONNECTION_FAILED',
  'PRECONDITION_FAILED',
  'INTERNAL',
  'PAYLOAD_TOO_LARGE',
  'OFFSET_OUT_OF_RANGE',
  'OUT_OF_ORDER_SEQUENCE',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_TXN_STATE',
  'CONCURRENT_TRANSACTIONS',
  'TRANSACTION_COORDINATOR_FENCED',
  'FENCED_LEADER_EPOCH',
  'FENCED_STATE_EPOCH',
  'MIRROR_LEADER_EPOCH_EXCEEDED',
  'RECORD_TOO_LARGE',
  'INVALID_RECORD',
  'UNSUPPORTED_COMPRESSION_TYPE',
  'CORRUPT_RECORD',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_OR_FOLLOWER',
  'NOT_ENOUGH_REPLICAS',
  'REQUEST_TIMED_OUT',
  'LOG_TRUNCATED',
  'LOG_CLOSED',
  'KAFKA_STORAGE_ERROR',
  'TOO_MANY_REQUESTS',
  'SERVER_BUSY',
  'MIRROR_OWNER_UNAVAILABLE',
  'CONTROL_CLUSTER_UNAVAILABLE',
] as const

export type ApiErrorCode = (typeof API_ERROR_CODES)[number]

export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && (API_ERROR_CODES as readonly string[]).includes(value)
}

/** An API error response's body (its zod schema, for the server and the OpenAPI document, is in ./error-body.ts). */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> }
}

/**
 * Whether `body` is an API error body, checked by hand so the browser's bundle needs no zod for it; it accepts
 * what ./error-body.ts's schema accepts (error-body.test.ts holds the two to the same answers).
 */
export function isErrorBody(body: unknown): body is ErrorBody {
  if (!isRecord(body) || !isRecord(body.error)) return false
  const { code, message, details } = body.error
  return isApiErrorCode(code) && typeof message === 'string' && (details === undefined || isRecord(details))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value) as unknown
  return prototype === Object.prototype || prototype === null
}

/**
 * An error with an API code: thrown by the server's HTTP layer and route handlers, and by client code when
 * a response carries an error body, so both sides branch on the same `code`.
 */
export class ApiError extends CodedError<ApiErrorCode> {
  constructor(code: ApiErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(code, message, options)
    this.name = 'ApiError'
  }
}

export function isApiError(error: unknown, code?: ApiErrorCode): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code)
}
