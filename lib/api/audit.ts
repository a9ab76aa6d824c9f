import { z } from 'zod'
import { IntegerString, NonNegativeInt, Timestamp } from './common'
import { Role } from './session'

export const AuditOutcome = z.enum(['ok', 'rejected', 'failed'])
export type AuditOutcome = z.infer<typeof AuditOutcome>

/** One mutation as the server saw it: who, what, when, how it ended. Never holds tokens or secrets. */
export const AuditEntry = z.object({
  id: NonNegativeInt,
  at: Timestamp,
  /** "token:operator", "session:<id prefix>" (a token's browser session), "user:<e-mail or subject>", or "anonymous" when the caller gave no valid credentials. */
  actor: z.string(),
  /** Who the actor is, for people signed in through the identity provider: "Alice Example <alice@example.com>". */
  actorName: z.string().optional(),
  role: Role.nullable(),
  /** Dotted verb such as "topic.create". */
  action: z.string(),
  /** The resource acted on, as its API path below /api/v1. */
  target: z.string(),
  /** The request with secrets removed and long values shortened; null when the body could not be read. */
  request: z.unknown(),
  outcome: AuditOutcome,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  dryRun: z.boolean(),
  /** The plan a dry run returned. */
  plan: z.unknown().optional(),
  /** The operation the request started (a failover's 202): GET /operations/{operation}. */
  operation: z.string().optional(),
  /** The instance the caller asked, which forwarded the request to this one, the mirror's owner (docs/high-availability.md). */
  forwardedBy: z.string().optional(),
  /** Several instances: the instance that wrote the entry. GET /audit then reads the group's shared log, whose ids are its own. */
  instance: z.string().optional(),
  /**
   * Refused requests without valid credentials are collapsed, one entry per source address and minute: the
   * first is written as it comes, the rest of that minute in one entry whose `count` says how many there were.
   */
  count: z.number().int().positive().optional(),
  /** The address such collapsed requests came from. */
  source: z.string().optional(),
})
export type AuditEntry = z.infer<typeof AuditEntry>

export const AuditQuery = z.object({
  actor: z.string().max(300).optional(),
  action: z.string().max(300).optional(),
  outcome: AuditOutcome.optional(),
  operation: z.string().max(64).optional().describe('Only the entry that started this operation.'),
  from: IntegerString.optional().describe('Entries at or after this time (ms).'),
  to: IntegerString.optional().describe('Entries before this time (ms).'),
  before: IntegerString.optional().describe('Entries with a smaller id (paging back).'),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be an integer from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .default(100),
})
export type AuditQuery = z.infer<typeof AuditQuery>

/** Newest first. */
export const AuditList = z.object({ entries: z.array(AuditEntry) })
export type AuditList = z.infer<typeof AuditList>
