import { verificationEndpoints } from '@/lib/api/endpoints'
import { startVerification } from '@/server/api/verification-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(verificationEndpoints.verifyMirror, ({ runtime, params, body, principal }) => startVerification(runtime, params.mirror, body, { actor: principal.actor, role: principal.role }))
