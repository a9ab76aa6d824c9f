import { HydrationBoundary } from '@tanstack/react-query'
import { notFound } from 'next/navigation'
import { OutOfScope } from '@/components/auth/out-of-scope'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { OperationView } from '@/components/operations/operation-view'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import { OperationParams } from '@/lib/api/operations'
import { findOperation } from '@/server/pages/operation-lookup'
import { requirePageSession, scopeRefusal } from '@/server/pages/session'

type Params = { params: Promise<{ id: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Operation ${(await params).id.slice(0, 8)}` }
}

export default async function OperationPage({ params }: Params) {
  const { id } = await params
  const session = await requirePageSession(`/operations/${encodeURIComponent(id)}`)
  const operation = OperationParams.safeParse({ id }).success ? await findOperation(id) : null
  if (operation === null) notFound()
  // One page-level refusal, as the mirror's own page gives, rather than the operation's shell around the API's 403.
  const refusal = scopeRefusal(session, { mirror: operation.mirror })
  if (refusal !== null) return <OutOfScope what={`Operation ${id.slice(0, 8)}`} reason={refusal} />
  return (
    <HydrationBoundary state={dehydrateAnswers([{ endpoint: mirrorEndpoints.getOperation, params: { id }, value: operation }])}>
      <OperationView id={id} />
    </HydrationBoundary>
  )
}
