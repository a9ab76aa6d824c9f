import { sessionEndpoints } from '@/lib/api/endpoints'
import { signOut } from '@/server/http/provider-routes'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(sessionEndpoints.signOut, ({ runtime, request }) => signOut(runtime, request))
