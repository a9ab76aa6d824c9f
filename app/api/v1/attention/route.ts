import { overviewEndpoints } from '@/lib/api/endpoints'
import { attentionOf } from '@/server/api/attention'
import { attentionEverywhere } from '@/server/api/attention-everywhere'
import { visibleAttention } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors sees their findings only, and totals of those. Several instances: every instance's mirrors.
export const GET = route(overviewEndpoints.attention, ({ runtime, query, principal, request }) =>
  attentionEverywhere(runtime.ha, request, principal, visibleAttention(principal.grants, attentionOf(runtime.engine, query)), query.limit),
)
