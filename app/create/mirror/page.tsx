import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { OperatorRequired } from '@/components/failover/operator-required'
import { CreateMirrorWizard } from '@/components/manage/create-mirror-wizard'
import { NAME_PATTERN } from '@/lib/api/common'
import { overviewAnswers } from '@/server/pages/prefetch'
import { pageGrant, requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata: Metadata = { title: 'Create a mirror' }

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> }

/** `?source=&destination=` preselect the clusters (links from a cluster page). */
function clusterParam(value: string | string[] | undefined): string {
  return typeof value === 'string' && NAME_PATTERN.test(value) ? value : ''
}

export default async function CreateMirrorPage({ searchParams }: Props) {
  const session = await requirePageSession('/create/mirror')
  const search = await searchParams
  const grant = pageGrant(session, 'operator', null)
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Create a mirror</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          A mirror copies topics from a source cluster to a destination cluster offset for offset (KIP-1279): the destination pulls, and its copies stay
          read-only until a failover.
        </p>
      </div>
      {grant.allowed ? (
        <HydrationBoundary state={dehydrateAnswers((await overviewAnswers(await getRuntime(), session.principal.grants, session.principal)).answers)}>
          <CreateMirrorWizard initialSource={clusterParam(search.source)} initialDestination={clusterParam(search.destination)} />
        </HydrationBoundary>
      ) : (
        <OperatorRequired action="create a mirror" path="/create/mirror" reason={grant.reason} />
      )}
    </div>
  )
}
