import { verificationEndpoints } from '@/lib/api/endpoints'
import { getVerification } from '@/server/api/verification-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(
  verificationEndpoints.getVerification,
  ({ runtime, params, requireGrant }) => {
    const verification = getVerification(runtime, params.id)
    requireGrant({ mirror: verification.mirror })
    return verification
  },
  { scope: 'handler' },
)
