import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { MirrorsIndex } from '@/components/mirrors/mirrors-index'
import { overviewAnswers } from '@/server/pages/prefetch'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'Mirrors: state, lag, throughput and last failover' }

export default async function MirrorsPage() {
  const session = await requirePageSession('/mirrors')
  // The overview's first data holds the mirror list this page shows.
  const { answers } = await overviewAnswers(await getRuntime(), session.principal.grants, session.principal)
  return (
    <HydrationBoundary state={dehydrateAnswers(answers)}>
      <MirrorsIndex />
    </HydrationBoundary>
  )
}
