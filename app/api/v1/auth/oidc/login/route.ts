import { sessionEndpoints } from '@/lib/api/endpoints'
import { startProviderSignIn } from '@/server/http/provider-routes'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(sessionEndpoints.startOidcSignIn, ({ runtime, request, query }) => startProviderSignIn(runtime, request, query.next))
