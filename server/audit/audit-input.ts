import 'server-only'
import type { AuditOutcome } from '@/lib/api/audit'
import type { Role } from '@/lib/api/session'

/** What a caller hands the audit log; its own file so the log and its collapsing of anonymous refusals share it without a cycle. */
export interface AuditInput {
  actor: string
  /** The person's name and address ("Alice Example <alice@example.com>"), for provider sign-ins. */
  actorName?: string
  role: Role | null
  action: string
  target: string
  request: unknown
  outcome: AuditOutcome
  error: { code: string; message: string } | null
  dryRun: boolean
  plan?: unknown
  /** The operation the request started. */
  operation?: string
  /** The instance that forwarded the request here (several instances share the work). */
  forwardedBy?: string
  /** Anonymous refused requests collapsed into this entry (anonymous-rejections.ts). */
  count?: number
  /** The address the request came from, on collapsed entries. */
  source?: string
}
