import { tokenEndpoints } from '@/lib/api/endpoints'
import { ApiError } from '@/lib/api/errors'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

// Tokens are everyone's keys: an administrator whose role holds everywhere manages them, not one scoped to some mirrors.
export const GET = route(tokenEndpoints.listApiTokens, ({ runtime, requireGrant }) => {
  requireGrant(null)
  return { tokens: runtime.auth.apiTokens?.list() ?? [] }
})

export const POST = route(tokenEndpoints.createApiToken, ({ runtime, body, principal, audit }) => {
  audit.target = `/tokens/${body.name}`
  if (runtime.auth.apiTokens === null) throw new ApiError('NOT_FOUND', 'this server keeps no named API tokens')
  return runtime.auth.apiTokens.create(body, principal.actor)
})
