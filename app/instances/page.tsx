import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { InstancesPage } from '@/components/instances/instances-page'
import { instancesAnswers } from '@/server/pages/prefetch'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'Instances: who runs which mirror' }

export default async function Instances() {
  const session = await requirePageSession('/instances')
  const answers = await instancesAnswers(await getRuntime(), session.principal.grants)
  return (
    <HydrationBoundary state={dehydrateAnswers(answers)}>
      <InstancesPage />
    </HydrationBoundary>
  )
}
