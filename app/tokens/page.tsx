import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { AccessRefused } from '@/components/auth/access-refused'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { TokensPage } from '@/components/tokens/tokens-page'
import { tokenEndpoints } from '@/lib/api/endpoints'
import { pageGrant, requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'API tokens' }

/** /tokens: named API tokens for machines (issue #39), an administrator's page as the API's endpoints are. */
export default async function Tokens() {
  const session = await requirePageSession('/tokens')
  if (!pageGrant(session, 'admin', null).allowed) {
    return (
      <AccessRefused title="API tokens need the admin role everywhere">
        Tokens let machines act on every mirror and cluster their scopes name, so only an administrator whose role holds everywhere creates, lists and revokes them.
      </AccessRefused>
    )
  }
  const runtime = await getRuntime()
  const state = dehydrateAnswers([{ endpoint: tokenEndpoints.listApiTokens, value: { tokens: runtime.auth.apiTokens?.list() ?? [] } }])
  return (
    <HydrationBoundary state={state}>
      <TokensPage />
    </HydrationBoundary>
  )
}
