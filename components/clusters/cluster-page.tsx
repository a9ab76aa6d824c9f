'use client'

import Link from 'next/link'
import { useCluster, useGroups, useTopics } from '@/components/data/use-clusters'
import { useMirrors } from '@/components/data/use-mirrors'
import { useCanOperate } from '@/components/data/session-context'
import { ClusterAdminBar } from '@/components/manage/cluster-admin-bar'
import { TopicActions } from '@/components/manage/topic-actions'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { BrokersPanel } from './brokers-panel'
import { GroupsPanel } from './groups-panel'
import { TopicsPanel } from './topics-panel'

/** One cluster (UI.md §1): its brokers, topics with their mirror roles, and consumer groups; operators also get topic administration (components/manage). */
export function ClusterPage({ cluster: name }: { cluster: string }) {
  const cluster = useCluster(name)
  const topics = useTopics(name)
  const groups = useGroups(name)
  const mirrors = useMirrors()
  const canOperate = useCanOperate({ cluster: name })
  const mirrorList = mirrors.data?.mirrors ?? []
  const incoming = mirrorList.filter((mirror) => mirror.destinationCluster === name)
  const outgoing = mirrorList.filter((mirror) => mirror.sourceCluster === name)

  return (
    <div className="space-y-6">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link prefetch={false} href="/" className="text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
          Overview
        </Link>
        <span aria-hidden className="mx-1.5 text-slate-400">
          /
        </span>
        <span className="text-slate-600 dark:text-slate-300">Cluster</span>
      </nav>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight break-all">{name}</h1>
        {cluster.data === undefined ? (
          cluster.error === null ? (
            <Skeleton className="mt-2 h-4 w-72" />
          ) : null
        ) : (
          <p className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-sm text-slate-600 dark:text-slate-300">
            <span>{cluster.data.kind === 'embedded' ? 'Embedded cluster' : 'Kafka cluster'}</span>
            <span className="font-mono text-xs leading-5 break-all" title="Cluster id">
              id {cluster.data.clusterId}
            </span>
            <span>
              {cluster.data.topicCount} {cluster.data.topicCount === 1 ? 'topic' : 'topics'}
            </span>
          </p>
        )}
        {(incoming.length > 0 || outgoing.length > 0) && (
          <p className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
            {incoming.length > 0 && (
              <span>
                Mirrors into this cluster: <MirrorLinks names={incoming.map((mirror) => `${mirror.name}`)} />
              </span>
            )}
            {outgoing.length > 0 && (
              <span>
                Mirrors from this cluster: <MirrorLinks names={outgoing.map((mirror) => mirror.name)} />
              </span>
            )}
          </p>
        )}
      </div>
      {cluster.error !== null && cluster.data === undefined && <ErrorPanel error={cluster.error} title="Could not load this cluster" onRetry={() => void cluster.refetch()} />}
      {cluster.data?.status === 'unavailable' && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100">
          <p className="font-semibold">This cluster could not be opened</p>
          {cluster.data.error !== undefined && <p className="mt-0.5 break-words">{cluster.data.error}</p>}
        </div>
      )}
      {canOperate && cluster.data?.status === 'ok' && <ClusterAdminBar cluster={name} brokers={cluster.data.brokers.length} />}
      <BrokersPanel cluster={cluster.data} />
      <TopicsPanel
        cluster={name}
        topics={topics.data?.topics}
        mirrors={mirrorList}
        error={topics.error}
        onRetry={() => void topics.refetch()}
        rowActions={canOperate ? (topic) => <TopicActions cluster={name} topic={topic} /> : undefined}
      />
      <GroupsPanel groups={groups.data?.groups} error={groups.error} onRetry={() => void groups.refetch()} />
    </div>
  )
}

function MirrorLinks({ names }: { names: readonly string[] }) {
  return (
    <>
      {names.map((mirror, index) => (
        <span key={mirror}>
          {index > 0 && ', '}
          <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}`} className="font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
            {mirror}
          </Link>
        </span>
      ))}
    </>
  )
}
