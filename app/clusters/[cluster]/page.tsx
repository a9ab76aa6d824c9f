import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { notFound } from 'next/navigation'
import { ClusterPage } from '@/components/clusters/cluster-page'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { ClusterParams } from '@/lib/api/clusters'
import { clusterApiOf } from '@/server/api/cluster-api'
import { clusterAnswers } from '@/server/pages/prefetch'
import { OutOfScope } from '@/components/auth/out-of-scope'
import { requirePageSession, scopeRefusal } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

type Props = { params: Promise<{ cluster: string }> }

/** Cluster names are plain ASCII; a malformed escape is simply a name that does not exist. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const cluster = decoded((await params).cluster)
  const known = clusterApiOf(await getRuntime()).has(cluster)
  return { title: known ? `Cluster ${cluster}: brokers, topics and consumer groups` : 'Cluster not found' }
}

// No loading.tsx beside this page: its Suspense boundary would start the response with 200 before an unknown
// cluster could answer 404.
export default async function ClusterRoute({ params }: Props) {
  const cluster = decoded((await params).cluster)
  const session = await requirePageSession(`/clusters/${encodeURIComponent(cluster)}`)
  if (!ClusterParams.safeParse({ cluster }).success) notFound()
  const refusal = scopeRefusal(session, { cluster })
  if (refusal !== null) return <OutOfScope what={`Cluster ${cluster}`} reason={refusal} />
  const answers = await clusterAnswers(await getRuntime(), cluster, session.principal.grants)
  if (answers === null) notFound()
  return (
    <HydrationBoundary state={dehydrateAnswers(answers)}>
      <ClusterPage cluster={cluster} />
    </HydrationBoundary>
  )
}
