import { verificationEndpoints } from '@/lib/api/endpoints'
import { cancelVerification, getVerification } from '@/server/api/verification-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// The verification's mirror decides who may cancel it (an operator scoped to that mirror may).
export const POST = route(
  verificationEndpoints.cancelVerification,
  ({ runtime, params, requireGrant }) => {
    requireGrant({ mirror: getVerification(runtime, params.id).mirror })
    return cancelVerification(runtime, params.id)
  },
  { scope: 'handler' },
)
