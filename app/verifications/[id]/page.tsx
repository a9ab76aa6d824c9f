import { HydrationBoundary } from '@tanstack/react-query'
import { notFound } from 'next/navigation'
import { OutOfScope } from '@/components/auth/out-of-scope'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { VerificationView } from '@/components/verifications/verification-view'
import { verificationEndpoints } from '@/lib/api/endpoints'
import { VerificationParams } from '@/lib/api/verifications'
import { findVerification } from '@/server/pages/rehearsal-lookup'
import { requirePageSession, scopeRefusal } from '@/server/pages/session'

type Params = { params: Promise<{ id: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Verification ${(await params).id}` }
}

export default async function VerificationPage({ params }: Params) {
  const { id } = await params
  const session = await requirePageSession(`/verifications/${encodeURIComponent(id)}`)
  const verification = VerificationParams.safeParse({ id }).success ? await findVerification(id, session.principal) : null
  if (verification === null) notFound()
  // One page-level refusal, as the mirror's own page gives, rather than the verification's shell around the API's 403.
  const refusal = scopeRefusal(session, { mirror: verification.mirror })
  if (refusal !== null) return <OutOfScope what={`Verification ${id}`} reason={refusal} />
  return (
    <HydrationBoundary state={dehydrateAnswers([{ endpoint: verificationEndpoints.getVerification, params: { id }, value: verification }])}>
      <VerificationView id={id} />
    </HydrationBoundary>
  )
}
