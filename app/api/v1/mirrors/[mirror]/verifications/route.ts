import { verificationEndpoints } from '@/lib/api/endpoints'
import { listVerifications } from '@/server/api/verification-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(verificationEndpoints.listMirrorVerifications, ({ runtime, params }) => listVerifications(runtime, params.mirror))
