import { notFound } from 'next/navigation'
import { FailoverWizard } from '@/components/failover/failover-wizard'
import { OperatorRequired } from '@/components/failover/operator-required'
import { WizardHeader } from '@/components/failover/wizard-header'
import { runningFailover } from '@/server/engine/failover-guard'
import { findMirror } from '@/server/pages/mirror-lookup'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

type Params = { params: Promise<{ mirror: string }> }

export async function generateMetadata({ params }: Params) {
  return { title: `Fail over ${decodeURIComponent((await params).mirror)}` }
}

export default async function FailoverPage({ params }: Params) {
  const name = decodeURIComponent((await params).mirror)
  const path = `/mirrors/${encodeURIComponent(name)}/failover`
  const session = await requirePageSession(path)
  const mirror = await findMirror(name)
  if (mirror === null) notFound()
  const running = runningFailover((await getRuntime()).engine, name, undefined)
  return (
    <>
      <WizardHeader title={`Fail over ${name}`} mirror={name} from={mirror.sourceCluster} to={mirror.destinationCluster} />
      {session.principal.role === 'operator' ? (
        <FailoverWizard mirror={mirror} initialOperationId={running?.id ?? null} />
      ) : (
        <OperatorRequired action="fail over a mirror" path={path} />
      )}
    </>
  )
}
