/**
 * The answer of GET /mirrors/{mirror}/partitions checked field by field with plain comparisons, for the
 * mirror page's 10,000-row list (4.6 MB). The zod schema (MirrorPartitionList) stays the contract: an
 * answer this check does not accept exactly as it is goes through the schema (loaded then), which then throws its own
 * error or returns its own result. Why: in the browser the page's CSP forbids eval, so zod validates without
 * its compiled fast path, hundreds of milliseconds of main thread per refresh of the list; this check costs
 * a few. partition-list-check.test.ts holds the two to the same verdicts.
 */
import { NAME_PATTERN } from '../mirror/names'
import type { MirrorPartition } from '../api/mirrors'
import { FAILURE_CODES } from '../mirror/failure-code'
import { MIRROR_PARTITION_STATES } from '../mirror/states'
import { STOPPING_STEPS } from '../mirror/stopping'

type PartitionList = { partitions: MirrorPartition[]; stateVersion: string }

const STATES: ReadonlySet<unknown> = new Set(MIRROR_PARTITION_STATES)
const STEPS: ReadonlySet<unknown> = new Set(STOPPING_STEPS)
const MAX_PARTITION = 2 ** 31 - 1

const ROW_KEYS: ReadonlySet<string> = new Set([
  'topic',
  'partition',
  'state',
  'stateEpoch',
  'stateSince',
  'previousState',
  'retryAttempt',
  'error',
  'sourceHighWatermark',
  'destinationHighWatermark',
  'destinationLogEndOffset',
  'offsetLag',
  'timeLagMs',
  'lastFetchAt',
  'destinationLeaderEpoch',
  'lastMirrorPosition',
  'lastTruncation',
  'stoppingStep',
  'stateDurable',
  'lagKnown',
  'lagAsOf',
  'timeLagFrom',
  'failureCode',
  'nextRetryAt',
  'divergence',
])

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function int(value: unknown): boolean {
  return Number.isSafeInteger(value)
}

function nonNegative(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

function atLeastMinusOne(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= -1
}

function name(value: unknown): boolean {
  return typeof value === 'string' && NAME_PATTERN.test(value) && value !== '.' && value !== '..'
}

function onlyKeys(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false
  return true
}

const POSITION_KEYS: ReadonlySet<string> = new Set(['epoch', 'offset'])
const DIVERGENCE_KEYS: ReadonlySet<string> = new Set(['epoch', 'offset', 'truncateTo', 'recordsToCut', 'logEndOffset'])
const FAILURES: ReadonlySet<unknown> = new Set(FAILURE_CODES)

/** Absent, null, or an integer (a Timestamp the schema makes nullable and optional). */
function optionalInt(value: unknown): boolean {
  return value === undefined || value === null || int(value)
}

function divergence(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (isObject(value) &&
      onlyKeys(value, DIVERGENCE_KEYS) &&
      atLeastMinusOne(value.epoch) &&
      atLeastMinusOne(value.offset) &&
      (value.truncateTo === null || nonNegative(value.truncateTo)) &&
      nonNegative(value.recordsToCut) &&
      nonNegative(value.logEndOffset))
  )
}
const TRUNCATION_KEYS: ReadonlySet<string> = new Set(['offset', 'removedRecords', 'at', 'reason'])

function row(value: unknown): boolean {
  if (!isObject(value) || !onlyKeys(value, ROW_KEYS)) return false
  const { lastMirrorPosition: position, lastTruncation: truncation } = value
  return (
    name(value.topic) &&
    nonNegative(value.partition) &&
    (value.partition as number) <= MAX_PARTITION &&
    STATES.has(value.state) &&
    nonNegative(value.stateEpoch) &&
    int(value.stateSince) &&
    (value.previousState === null || STATES.has(value.previousState)) &&
    atLeastMinusOne(value.retryAttempt) &&
    (value.error === null || typeof value.error === 'string') &&
    (value.sourceHighWatermark === null || nonNegative(value.sourceHighWatermark)) &&
    nonNegative(value.destinationHighWatermark) &&
    nonNegative(value.destinationLogEndOffset) &&
    (value.offsetLag === null || nonNegative(value.offsetLag)) &&
    (value.timeLagMs === null || nonNegative(value.timeLagMs)) &&
    (value.lastFetchAt === null || int(value.lastFetchAt)) &&
    atLeastMinusOne(value.destinationLeaderEpoch) &&
    (position === null || (isObject(position) && onlyKeys(position, POSITION_KEYS) && atLeastMinusOne(position.epoch) && atLeastMinusOne(position.offset))) &&
    (truncation === null ||
      (isObject(truncation) &&
        onlyKeys(truncation, TRUNCATION_KEYS) &&
        nonNegative(truncation.offset) &&
        nonNegative(truncation.removedRecords) &&
        int(truncation.at) &&
        typeof truncation.reason === 'string')) &&
    (value.stoppingStep === undefined || value.stoppingStep === null || STEPS.has(value.stoppingStep)) &&
    (value.stateDurable === undefined || typeof value.stateDurable === 'boolean') &&
    (value.lagKnown === undefined || typeof value.lagKnown === 'boolean') &&
    optionalInt(value.lagAsOf) &&
    optionalInt(value.timeLagFrom) &&
    (value.failureCode === undefined || value.failureCode === null || FAILURES.has(value.failureCode)) &&
    optionalInt(value.nextRetryAt) &&
    divergence(value.divergence)
  )
}

const LIST_KEYS: ReadonlySet<string> = new Set(['partitions', 'stateVersion'])

/**
 * The list as MirrorPartitionList.parse would return it (a promise of it, or of what that parse throws, when
 * the schema must decide: its module is loaded only then; lib/api/routes.ts says why that matters).
 */
export function readPartitionList(body: unknown): PartitionList | Promise<PartitionList> {
  if (isObject(body) && onlyKeys(body, LIST_KEYS) && typeof body.stateVersion === 'string' && Array.isArray(body.partitions) && body.partitions.every(row)) {
    return body as PartitionList
  }
  return import('../api/mirrors').then(({ MirrorPartitionList }) => MirrorPartitionList.parse(body))
}
