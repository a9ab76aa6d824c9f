import { HydrationBoundary } from '@tanstack/react-query'
import { notFound } from 'next/navigation'
import { OutOfScope } from '@/components/auth/out-of-scope'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { DrillView } from '@/components/drills/drill-view'
import { DrillParams } from '@/lib/api/drills'
import { drillEndpoints } from '@/lib/api/endpoints'
import { findDrill } from '@/server/pages/rehearsal-lookup'
import { requirePageSession, scopeRefusal } from '@/server/pages/session'

type Params = { params: Promise<{ id: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Drill ${(await params).id}` }
}

export default async function DrillPage({ params }: Params) {
  const { id } = await params
  const session = await requirePageSession(`/drills/${encodeURIComponent(id)}`)
  const drill = DrillParams.safeParse({ id }).success ? await findDrill(id, session.principal) : null
  if (drill === null) notFound()
  // One page-level refusal, as the mirror's own page gives, rather than the drill's shell around the API's 403.
  const refusal = scopeRefusal(session, { mirror: drill.mirror })
  if (refusal !== null) return <OutOfScope what={`Drill ${id}`} reason={refusal} />
  return (
    <HydrationBoundary state={dehydrateAnswers([{ endpoint: drillEndpoints.getDrill, params: { id }, value: drill }])}>
      <DrillView id={id} />
    </HydrationBoundary>
  )
}
