import { tokenEndpoints } from '@/lib/api/endpoints'
import { ApiError } from '@/lib/api/errors'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(tokenEndpoints.revokeApiToken, async ({ runtime, params }) => {
  if (!(await runtime.auth.apiTokens?.revoke(params.name))) throw new ApiError('NOT_FOUND', `no API token is named ${params.name}`, { details: { name: params.name } })
})
