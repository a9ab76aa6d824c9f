import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import Link from 'next/link'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { TokensPage } from '@/components/tokens/tokens-page'
import { Panel } from '@/components/ui/panel'
import { tokenEndpoints } from '@/lib/api/endpoints'
import { pageGrant, requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'API tokens' }

/** /tokens: named API tokens for machines (issue #39), an administrator's page as the API's endpoints are. */
export default async function Tokens() {
  const session = await requirePageSession('/tokens')
  if (!pageGrant(session, 'admin', null).allowed) {
    return (
      <section className="mx-auto max-w-xl py-10">
        <Panel title="API tokens need the admin role everywhere">
          <p className="text-sm text-slate-700 dark:text-slate-300">
            Tokens let machines act on every mirror and cluster their scopes name, so only an administrator whose role holds everywhere creates, lists and revokes them.
          </p>
          <div className="mt-4 flex flex-wrap gap-3 text-sm">
            <Link href="/" className="rounded-md px-3.5 py-1.5 font-medium text-indigo-700 underline hover:bg-indigo-50 dark:text-indigo-300 dark:hover:bg-slate-800">
              Back to the overview
            </Link>
          </div>
        </Panel>
      </section>
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
