import { verificationEndpoints } from '@/lib/api/endpoints'
import { cancelVerification } from '@/server/api/verification-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(verificationEndpoints.cancelVerification, ({ runtime, params }) => cancelVerification(runtime, params.id))
