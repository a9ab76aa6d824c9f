import { verificationEndpoints } from '@/lib/api/endpoints'
import { startVerification } from '@/server/api/verification-api'
import { requesterOf, route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(verificationEndpoints.verifyMirror, ({ runtime, params, body, principal }) => startVerification(runtime, params.mirror, body, requesterOf(principal)))
