import { z } from 'zod'
import { DEFAULT_ATTENTION_THRESHOLDS } from '@/lib/overview/attention'
import { FAILURE_CODES } from '@/lib/mirror/failure-code'
import { Name, NonNegativeInt, PartitionIndex, Timestamp } from './common'
import { MirrorPartitionState } from './mirrors'

/**
 * GET /attention: the mirror partitions that need an operator first (lib/overview/attention.ts), across every
 * mirror, computed on the server from the engine so the overview never downloads 10,000-partition lists.
 */

export const AttentionKind = z.enum(['failed', 'lagGrowing', 'staleFetch', 'paused'])

export const AttentionItem = z.object({
  kind: AttentionKind,
  mirror: Name,
  topic: Name,
  partition: PartitionIndex,
  state: MirrorPartitionState,
  since: Timestamp,
  offsetLag: NonNegativeInt.nullable(),
  timeLagMs: NonNegativeInt.nullable(),
  lastFetchAt: Timestamp.nullable(),
  error: z.string().nullable(),
  retryAttempt: z.number().int().min(-1),
  lagGrowth: NonNegativeInt.nullable(),
  failureCode: z.enum(FAILURE_CODES).nullable().optional(),
  nextRetryAt: Timestamp.nullable().optional(),
})
export type AttentionItem = z.infer<typeof AttentionItem>

/** Why a group of FAILED partitions failed (lib/overview/incident.ts). */
export const FailureCause = z.enum(['sourceUnreachable', 'destinationUnreachable', 'logDiverged', 'fetchError', 'appendFailed', 'sourceChanged', 'tieredStorage', 'mirrorLoop', 'other'])

/** One line of "needs attention": a mirror's partitions with one finding (FAILED ones by cause), however many. */
export const AttentionGroup = z.object({
  kind: AttentionKind,
  mirror: Name,
  cause: FailureCause.nullable(),
  label: z.string(),
  partitions: NonNegativeInt,
  /** The oldest: for an unreachable source, its last successful fetch. */
  since: Timestamp,
  nextRetryAt: Timestamp.nullable(),
  /** The highest consecutive-failure count; -1 when none is retried automatically. */
  retryAttempt: z.number().int().min(-1),
  error: z.string().nullable(),
  /** The first 50 partitions, in order. */
  examples: z.array(z.object({ topic: Name, partition: PartitionIndex })),
})
export type AttentionGroup = z.infer<typeof AttentionGroup>

/** A mirror over its RPO objective now (lib/overview/rpo-breaches.ts): what a failover would lose, and the objective. */
export const RpoBreachItem = z.object({
  mirror: Name,
  /** Records at risk and the age of the oldest not yet mirrored, s (lower bounds unless `known`). */
  records: NonNegativeInt.nullable(),
  seconds: z.number().nonnegative().nullable(),
  known: z.boolean(),
  rpoRecords: NonNegativeInt.nullable(),
  rpoSeconds: z.number().nonnegative().nullable(),
})
export type RpoBreachItem = z.infer<typeof RpoBreachItem>

export const AttentionResponse = z.object({
  /** Worst first, at most `limit`. */
  items: z.array(AttentionItem),
  /** Every finding grouped by mirror and cause, worst first, whatever the limit. */
  groups: z.array(AttentionGroup).optional(),
  /** How many partitions have each finding, whatever the limit. */
  totals: z.object({ failed: NonNegativeInt, lagGrowing: NonNegativeInt, staleFetch: NonNegativeInt, paused: NonNegativeInt }),
  /** The mirrors whose RPO objective is breached now, most records at risk first (the summaries' `objectives`), whatever the limit. */
  rpoBreaches: z.array(RpoBreachItem),
  staleAfterMs: NonNegativeInt,
  at: Timestamp,
  /** Several instances: those that did not answer in time, whose mirrors' findings this answer lacks (docs/high-availability.md). */
  instancesMissing: z.array(z.string()).optional(),
})
export type AttentionResponse = z.infer<typeof AttentionResponse>

export const AttentionQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be an integer from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .default(50),
  staleAfterMs: z
    .string()
    .regex(/^\d{1,9}$/, 'must be an integer of milliseconds')
    .transform(Number)
    .pipe(z.number().int().min(1_000))
    .default(DEFAULT_ATTENTION_THRESHOLDS.staleAfterMs)
    .describe('A MIRRORING partition whose last fetch is older than this is stale (30 s by default).'),
})
export type AttentionQuery = z.infer<typeof AttentionQuery>
