import { z } from 'zod'
import { GrantRole } from '../auth/grants'
import { namePatternProblem } from '../mirror/name-patterns'
import { Timestamp } from './common'

/**
 * Named API tokens (issue #39): tokens for machines (CI, the command line, scripts), each with a role, the same
 * cluster and mirror scopes as the roles file, and an expiry. The server keeps only a hash; the secret is in the
 * answer to the create call and nowhere else. Requests acting with a token are audited as `token:<name>`.
 */

/** The names the two shared tokens are audited under (`token:operator`, `token:viewer`): not available. */
export const RESERVED_TOKEN_NAMES: readonly string[] = ['operator', 'viewer']

export const TokenName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'must be 1 to 63 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit')
  .refine((name) => !RESERVED_TOKEN_NAMES.includes(name), 'is the name of a shared token (operator, viewer)')

const ScopePatterns = z
  .array(
    z
      .string()
      .min(1)
      .max(200)
      .superRefine((source, context) => {
        const problem = namePatternProblem(source)
        if (problem !== null) context.addIssue({ code: 'custom', message: `"${source}" is not a pattern: ${problem}` })
      }),
  )
  .min(1)
  .max(50)

export const MAX_TOKEN_DAYS = 730

export const CreateApiTokenRequest = z.strictObject({
  name: TokenName.describe('Audited as `token:<name>`; unique among live tokens.'),
  role: GrantRole,
  clusters: ScopePatterns.optional().describe('Cluster name patterns (RE2, whole name) the role holds on; with `mirrors` absent too, it holds everywhere.'),
  mirrors: ScopePatterns.optional().describe('Mirror name patterns the role holds on.'),
  expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS).default(90).describe(`Days until the token stops working (1 to ${MAX_TOKEN_DAYS}; 90 by default).`),
})
export type CreateApiTokenRequest = z.input<typeof CreateApiTokenRequest>
/** The request as the server reads it (the expiry's default filled in). */
export type CreateApiTokenFields = z.output<typeof CreateApiTokenRequest>

export const ApiToken = z.object({
  name: z.string(),
  role: GrantRole,
  clusters: z.array(z.string()).optional(),
  mirrors: z.array(z.string()).optional(),
  /** The first characters of the secret, so a person can tell which token a script holds. */
  prefix: z.string(),
  createdAt: Timestamp,
  /** The actor who created it (`user:…`, `token:operator`). */
  createdBy: z.string(),
  expiresAt: Timestamp,
  /** When it last authenticated a request (kept to the minute); null when never. */
  lastUsedAt: Timestamp.nullable(),
})
export type ApiToken = z.infer<typeof ApiToken>

export const ApiTokenList = z.object({ tokens: z.array(ApiToken) })
export type ApiTokenList = z.infer<typeof ApiTokenList>

export const CreatedApiToken = z.object({
  token: ApiToken,
  /** The bearer secret. Shown this once: the server keeps only its hash. */
  secret: z.string(),
})
export type CreatedApiToken = z.infer<typeof CreatedApiToken>

export const ApiTokenParams = z.object({ name: z.string().max(63) })
