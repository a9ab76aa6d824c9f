import { sessionEndpoints } from '@/lib/api/endpoints'
import { finishProviderSignIn } from '@/server/http/provider-routes'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(sessionEndpoints.finishOidcSignIn, ({ runtime, request, url }) => finishProviderSignIn(runtime, request, url))
