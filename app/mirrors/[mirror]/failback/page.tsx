import { notFound } from 'next/navigation'
import { FailbackWizard } from '@/components/failback/failback-wizard'
import { OperatorRequired } from '@/components/failover/operator-required'
import { WizardHeader } from '@/components/failover/wizard-header'
import { failbackContext } from '@/server/pages/failback-lookup'
import { findMirror } from '@/server/pages/mirror-lookup'
import { pageGrant, requirePageSession } from '@/server/pages/session'

type Params = { params: Promise<{ mirror: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Fail back ${decodeURIComponent((await params).mirror)}` }
}

export default async function FailbackPage({ params }: Params) {
  const name = decodeURIComponent((await params).mirror)
  const path = `/mirrors/${encodeURIComponent(name)}/failback`
  const session = await requirePageSession(path)
  const mirror = await findMirror(name, session.principal)
  if (mirror === null) notFound()
  const grant = pageGrant(session, 'operator', null)
  const context = await failbackContext(mirror)
  return (
    <>
      <WizardHeader title={`Fail back ${name}`} mirror={name} from={mirror.destinationCluster} to={mirror.sourceCluster} />
      {grant.allowed ? (
        <FailbackWizard mirror={mirror} defaultReverseName={context.defaultReverseName} existingReverse={context.existingReverse} />
      ) : (
        <OperatorRequired action="fail a mirror back" path={path} reason={grant.reason} />
      )}
    </>
  )
}
