import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { ClustersList } from '@/components/manage/clusters-list'
import { overviewAnswers } from '@/server/pages/prefetch'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'Clusters' }

export default async function ClustersPage() {
  const session = await requirePageSession('/clusters')
  // The overview's first data holds the two lists this page shows.
  const { answers } = await overviewAnswers(await getRuntime(), session.principal.grants, session.principal)
  return (
    <HydrationBoundary state={dehydrateAnswers(answers)}>
      <ClustersList />
    </HydrationBoundary>
  )
}
