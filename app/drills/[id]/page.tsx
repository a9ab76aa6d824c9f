import { HydrationBoundary } from '@tanstack/react-query'
import { notFound } from 'next/navigation'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { DrillView } from '@/components/drills/drill-view'
import { DrillParams } from '@/lib/api/drills'
import { drillEndpoints } from '@/lib/api/endpoints'
import { findDrill } from '@/server/pages/rehearsal-lookup'
import { requirePageSession } from '@/server/pages/session'

type Params = { params: Promise<{ id: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Drill ${(await params).id}` }
}

export default async function DrillPage({ params }: Params) {
  const { id } = await params
  await requirePageSession(`/drills/${encodeURIComponent(id)}`)
  const drill = DrillParams.safeParse({ id }).success ? await findDrill(id) : null
  if (drill === null) notFound()
  return (
    <HydrationBoundary state={dehydrateAnswers([{ endpoint: drillEndpoints.getDrill, params: { id }, value: drill }])}>
      <DrillView id={id} />
    </HydrationBoundary>
  )
}
