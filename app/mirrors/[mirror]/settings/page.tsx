import { HydrationBoundary } from '@tanstack/react-query'
import { notFound } from 'next/navigation'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { OperatorRequired } from '@/components/failover/operator-required'
import { WizardHeader } from '@/components/failover/wizard-header'
import { MirrorSettings } from '@/components/manage/mirror-settings'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import { findMirror } from '@/server/pages/mirror-lookup'
import { pageGrant, requirePageSession } from '@/server/pages/session'

type Params = { params: Promise<{ mirror: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Settings of mirror ${decodeURIComponent((await params).mirror)}` }
}

export default async function MirrorSettingsPage({ params }: Params) {
  const name = decodeURIComponent((await params).mirror)
  const path = `/mirrors/${encodeURIComponent(name)}/settings`
  const session = await requirePageSession(path)
  const mirror = await findMirror(name, session.principal)
  if (mirror === null) notFound()
  const grant = pageGrant(session, 'operator', { mirror: name })
  return (
    <>
      <WizardHeader title={`Settings of ${name}`} mirror={name} from={mirror.sourceCluster} to={mirror.destinationCluster} />
      {grant.allowed ? (
        <HydrationBoundary state={dehydrateAnswers([{ endpoint: mirrorEndpoints.getMirror, params: { mirror: name }, value: mirror }])}>
          <MirrorSettings name={name} />
        </HydrationBoundary>
      ) : (
        <OperatorRequired action="change a mirror's settings" path={path} reason={grant.reason} />
      )}
    </>
  )
}
