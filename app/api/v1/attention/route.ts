import { overviewEndpoints } from '@/lib/api/endpoints'
import { attentionOf } from '@/server/api/attention'
import { visibleAttention } from '@/lib/auth/visibility'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// A caller scoped to some mirrors sees their findings only, and totals of those.
export const GET = route(overviewEndpoints.attention, ({ runtime, query, principal }) => visibleAttention(principal.grants, attentionOf(runtime.engine, query)))
