import 'server-only'
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ApiError, isApiErrorCode, type ApiErrorCode, type ErrorBody } from '@/lib/api/errors'
import { logger } from '../observability/logger'

/**
 * The one place where errors become HTTP responses (STYLE B30). Every error that carries a known `code`
 * (ApiError, ClusterError, StorageError, MirrorError, ...) keeps it and gets the status below; a zod error is
 * VALIDATION_FAILED; anything else is a bug: it is logged with a reference and answered as INTERNAL without
 * its message, which might carry paths or data the caller should not see.
 */
export const STATUS_BY_CODE = {
  VALIDATION_FAILED: 400,
  INVALID_RECORD: 400,
  UNSUPPORTED_COMPRESSION_TYPE: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_MIRROR_STATE: 409,
  CONFIRMATION_REQUIRED: 409,
  CONFLICT: 409,
  TOPIC_READ_ONLY: 409,
  // A planned switchover fenced the source topic: writes go to the destination once it is STOPPED.
  TOPIC_WRITE_FENCED: 409,
  // An unplanned failover would lose more than the mirror's recovery-point objective: force the gate to accept it.
  RPO_OBJECTIVE_EXCEEDED: 409,
  // Producer protocol: the request contradicts what the cluster knows of this producer or partition.
  OUT_OF_ORDER_SEQUENCE: 409,
  INVALID_PRODUCER_EPOCH: 409,
  INVALID_TXN_STATE: 409,
  CONCURRENT_TRANSACTIONS: 409,
  TRANSACTION_COORDINATOR_FENCED: 409,
  FENCED_LEADER_EPOCH: 409,
  FENCED_STATE_EPOCH: 409,
  MIRROR_LEADER_EPOCH_EXCEEDED: 409,
  // An If-Match that no longer matches the mirror's state version: read it again and decide again.
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  // Limits per source or principal (sign-ins, failed authentication, event streams): wait Retry-After seconds.
  TOO_MANY_REQUESTS: 429,
  // A server-wide limit (open event streams) is reached: retry later.
  SERVER_BUSY: 503,
  // Several instances (docs/high-availability.md): the instance that runs the mirror did not answer, or the mirror is
  // moving between instances; the details name the owner and its address. Retry, or ask the owner directly.
  MIRROR_OWNER_UNAVAILABLE: 503,
  // Several instances: the control cluster does not answer this instance, so it refuses changes until it does
  // (details: since when, the last error); the mirrors it runs keep running. Retry later.
  CONTROL_CLUSTER_UNAVAILABLE: 503,
  // Settings of a new Kafka cluster that do not connect (unreachable, TLS or SASL refused): fix them and retry.
  CLUSTER_CONNECTION_FAILED: 422,
  RECORD_TOO_LARGE: 413,
  // A read outside [logStartOffset, logEndOffset]: the requested range cannot be served.
  OFFSET_OUT_OF_RANGE: 416,
  // Availability: retriable once brokers are back; the request may be repeated as is.
  SOURCE_UNAVAILABLE: 503,
  LEADER_NOT_AVAILABLE: 503,
  NOT_LEADER_OR_FOLLOWER: 503,
  NOT_ENOUGH_REPLICAS: 503,
  REQUEST_TIMED_OUT: 503,
  LOG_TRUNCATED: 503,
  LOG_CLOSED: 503,
  // Broken storage is not the caller's fault, but neither is it a bug: the code says which it is.
  CORRUPT_RECORD: 500,
  KAFKA_STORAGE_ERROR: 500,
  INTERNAL: 500,
} as const satisfies Record<ApiErrorCode, number>

export interface Problem {
  status: number
  body: ErrorBody
}

const MAX_ISSUES = 20

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined
}

function detailsOf(error: unknown): Record<string, unknown> | undefined {
  if (typeof error !== 'object' || error === null || !('details' in error)) return undefined
  const details = (error as { details: unknown }).details
  return typeof details === 'object' && details !== null && !Array.isArray(details) ? (details as Record<string, unknown>) : undefined
}

// Duck-typed: Next.js bundles route handlers and the runtime separately, so a ZodError may come from
// another copy of zod than this module's.
function isZodError(error: unknown): error is z.ZodError {
  return error instanceof z.ZodError || (error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues))
}

/** `records.0.value: Invalid input: expected string, received number` */
export function describeIssue(issue: z.core.$ZodIssue, prefix?: string): string {
  const path = [prefix, ...issue.path.map(String)].filter((part) => part !== undefined && part !== '').join('.')
  return path === '' ? issue.message : `${path}: ${issue.message}`
}

/** A zod failure as a VALIDATION_FAILED ApiError, naming the first problem and listing up to 20. */
export function validationError(error: z.ZodError, where?: 'body' | 'query' | 'params'): ApiError {
  const issues = error.issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: [where, ...issue.path.map(String)].filter((part) => part !== undefined).join('.'),
    message: issue.message,
  }))
  const first = error.issues[0]
  const message = first === undefined ? 'invalid input' : describeIssue(first, where)
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : ''
  return new ApiError('VALIDATION_FAILED', `${message}${more}`, { cause: error, details: { issues } })
}

/** Maps any thrown value to a status and the API's error body; logs the ones that are bugs. */
export function toProblem(error: unknown): Problem {
  if (isZodError(error)) return toProblem(validationError(error))
  const code = codeOf(error)
  if (error instanceof Error && isApiErrorCode(code) && code !== 'INTERNAL') {
    const details = detailsOf(error)
    return {
      status: STATUS_BY_CODE[code],
      body: { error: details === undefined ? { code, message: error.message } : { code, message: error.message, details } },
    }
  }
  const reference = randomUUID()
  logger.error('request failed with an unexpected error', { reference, error })
  return { status: 500, body: { error: { code: 'INTERNAL', message: `internal error (reference ${reference})`, details: { reference } } } }
}

export function problemResponse({ status, body }: Problem): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' }
  const retryAfter = body.error.details?.retryAfterSeconds
  if (status === 429 || status === 503) headers['Retry-After'] = typeof retryAfter === 'number' ? String(Math.max(1, Math.ceil(retryAfter))) : '1'
  return Response.json(body, { status, headers })
}

/** The response for a thrown value: the error body, with Retry-After on availability errors. */
export function problem(error: unknown): Response {
  return problemResponse(toProblem(error))
}
