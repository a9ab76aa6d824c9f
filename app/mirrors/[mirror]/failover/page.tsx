import { notFound } from 'next/navigation'
import { FailoverWizard } from '@/components/failover/failover-wizard'
import { OperatorRequired } from '@/components/failover/operator-required'
import { WizardHeader } from '@/components/failover/wizard-header'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { OperationParams } from '@/lib/api/operations'
import { findMirror } from '@/server/pages/mirror-lookup'
import { findOperation } from '@/server/pages/operation-lookup'
import { pageGrant, requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

type Params = { params: Promise<{ mirror: string }> }
type Props = Params & { searchParams: Promise<Record<string, string | string[] | undefined>> }

export async function generateMetadata({ params }: Params) {
  return { title: `Fail over ${decodeURIComponent((await params).mirror)}` }
}

export default async function FailoverPage({ params, searchParams }: Props) {
  const name = decodeURIComponent((await params).mirror)
  const path = `/mirrors/${encodeURIComponent(name)}/failover`
  const session = await requirePageSession(path)
  const mirror = await findMirror(name, session.principal)
  if (mirror === null) notFound()
  const grant = pageGrant(session, 'operator', { mirror: name })
  // The running failover of this mirror, else the one this wizard started (its id is kept in the address).
  const running = mirrorApiOf(await getRuntime()).runningFailover(name)
  const asked = (await searchParams).operation
  const started = typeof asked === 'string' && OperationParams.safeParse({ id: asked }).success ? await findOperation(asked) : null
  const operationId = running?.id ?? (started?.mirror === name ? started.id : null)
  return (
    <>
      <WizardHeader title={`Fail over ${name}`} mirror={name} from={mirror.sourceCluster} to={mirror.destinationCluster} />
      {grant.allowed ? (
        <FailoverWizard mirror={mirror} initialOperationId={operationId} />
      ) : (
        <OperatorRequired action="fail over a mirror" path={path} reason={grant.reason} />
      )}
    </>
  )
}
