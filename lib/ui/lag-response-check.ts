/**
 * The answer of GET /mirrors/{mirror}/lag checked field by field with plain comparisons, for the mirror
 * page's lag chart: a 10,000-partition mirror's 5-minute history is 600,000 points. The zod schema
 * (LagResponse) stays the contract: an answer this check does not accept exactly as it is goes through the
 * schema (loaded then), which then throws its own error or returns its own result. Why: in the browser the page's CSP
 * forbids eval, so zod validates without its compiled fast path, about a second of main thread on this
 * machine for that answer (measured in the mirror page benchmark's browser profile); this check costs tens
 * of milliseconds. lag-response-check.test.ts holds the two to the same verdicts.
 */
import { NAME_PATTERN } from '../mirror/names'
import type { LagResponse } from '../api/mirrors'

const MAX_PARTITION = 2 ** 31 - 1
const SERIES_KEYS: ReadonlySet<string> = new Set(['topic', 'partition', 'points'])
// Every field of the answer: one the check did not know sent every answer through the schema (throughput and
// lagUnknown, added after it, did: seconds of a phone's main thread for a 2,000-partition mirror's history).
const RESPONSE_KEYS: ReadonlySet<string> = new Set(['series', 'topics', 'throughput', 'lagUnknown', 'throttled', 'throttledRate'])
const TOPIC_SERIES_KEYS: ReadonlySet<string> = new Set(['topic', 'partitions', 'points'])
const SPAN_KEYS: ReadonlySet<string> = new Set(['from', 'to'])

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function onlyKeys(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false
  return true
}

function nonNegativeOrNull(value: unknown): boolean {
  return value === null || (Number.isSafeInteger(value) && (value as number) >= 0)
}

function point(value: unknown): boolean {
  return Array.isArray(value) && value.length === 3 && Number.isSafeInteger(value[0]) && nonNegativeOrNull(value[1]) && nonNegativeOrNull(value[2])
}

function nonNegativeNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

/** `[t, recordsPerSecond, bytesPerSecond]`. */
function throughputSample(value: unknown): boolean {
  return Array.isArray(value) && value.length === 3 && Number.isSafeInteger(value[0]) && nonNegativeNumber(value[1]) && nonNegativeNumber(value[2])
}

/** `{ from, to }`, `to` null while it lasts. */
function unknownSpan(value: unknown): boolean {
  return isObject(value) && onlyKeys(value, SPAN_KEYS) && Number.isSafeInteger(value.from) && (value.to === null || Number.isSafeInteger(value.to))
}

function series(value: unknown): boolean {
  if (!isObject(value) || !onlyKeys(value, SERIES_KEYS)) return false
  const { topic, partition, points } = value
  return (
    topicName(topic) &&
    Number.isSafeInteger(partition) &&
    (partition as number) >= 0 &&
    (partition as number) <= MAX_PARTITION &&
    Array.isArray(points) &&
    points.every(point)
  )
}

function topicName(value: unknown): boolean {
  return typeof value === 'string' && NAME_PATTERN.test(value) && value !== '.' && value !== '..'
}

/** `by=topic`: a topic's partitions folded into one series. */
function topicSeries(value: unknown): boolean {
  if (!isObject(value) || !onlyKeys(value, TOPIC_SERIES_KEYS)) return false
  const { topic, partitions, points } = value
  return topicName(topic) && Number.isSafeInteger(partitions) && (partitions as number) >= 0 && Array.isArray(points) && points.every(point)
}

/**
 * The answer as LagResponse.parse would return it (a promise of it, or of what that parse throws, when the
 * schema must decide: its module is loaded only then, as the browser need not evaluate the mirror API's
 * schemas for an answer the check accepts; lib/api/routes.ts says why that matters).
 */
export function readLagResponse(body: unknown): LagResponse | Promise<LagResponse> {
  if (
    isObject(body) &&
    onlyKeys(body, RESPONSE_KEYS) &&
    (body.throttled === undefined || typeof body.throttled === 'boolean') &&
    (body.throttledRate === undefined || nonNegativeOrNull(body.throttledRate)) &&
    (body.throughput === undefined || (Array.isArray(body.throughput) && body.throughput.every(throughputSample))) &&
    (body.lagUnknown === undefined || (Array.isArray(body.lagUnknown) && body.lagUnknown.every(unknownSpan))) &&
    Array.isArray(body.series) &&
    body.series.every(series) &&
    (body.topics === undefined || (Array.isArray(body.topics) && body.topics.every(topicSeries)))
  ) {
    return body as LagResponse
  }
  return import('../api/mirrors').then(({ LagResponse }) => LagResponse.parse(body))
}
