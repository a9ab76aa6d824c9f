import { overviewEndpoints } from '@/lib/api/endpoints'
import { attentionOf } from '@/server/api/attention'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(overviewEndpoints.attention, ({ runtime, query }) => attentionOf(runtime.engine, query))
