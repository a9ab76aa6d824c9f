import { systemEndpoints } from '@/lib/api/endpoints'
import { seesAuditEntry, seesEverything } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors or clusters sees the entries about those, and its own (lib/auth/visibility.ts).
// Several instances: the group's shared log (server/ha/shared-audit.ts), the same on every instance.
export const GET = route(systemEndpoints.audit, async ({ runtime, query, principal }) => {
  const { grants, actor } = principal
  const visible = seesEverything(grants) ? undefined : (entry: { actor: string; target: string }) => seesAuditEntry(grants, actor, entry)
  return { entries: await (runtime.ha?.audit ?? runtime.audit).query({ ...query, ...(visible === undefined ? {} : { visible }) }) }
})
