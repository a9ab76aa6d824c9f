import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { Overview } from '@/components/overview/overview'
import { SplitBrainNotice } from '@/components/failover/split-brain-notice'
import { overviewAnswers } from '@/server/pages/prefetch'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'Overview: topology, partition states and what needs attention' }

export default async function OverviewPage() {
  const session = await requirePageSession('/')
  const { answers, layout } = await overviewAnswers(await getRuntime(), session.principal.grants, session.principal)
  return (
    <HydrationBoundary state={dehydrateAnswers(answers)}>
      <div className="flex flex-col gap-4">
        {/* Producers still writing to an old source after a failover: the classic DR accident, shown first. */}
        <SplitBrainNotice />
        <Overview initialLayout={layout} />
      </div>
    </HydrationBoundary>
  )
}
