'use client'

import Link from 'next/link'
import { useState } from 'react'
import { useCan, useCanOperate } from '@/components/data/session-context'
import { useDeleteCluster } from '@/components/data/use-cluster-admin'
import { useClusters } from '@/components/data/use-clusters'
import { useMirrors } from '@/components/data/use-mirrors'
import { buttonClass } from '@/components/ui/button-class'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import type { Cluster } from '@/lib/api/clusters'
import type { MirrorSummary } from '@/lib/api/mirrors'
import { AddClusterForm } from './add-cluster-form'
import { Done, Refusal } from './form-controls'

const linkClass = 'font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300'

/** The mirrors that read from or write to a cluster: while there is one, the cluster cannot be removed. */
function mirrorsUsing(cluster: string, mirrors: readonly MirrorSummary[]): MirrorSummary[] {
  return mirrors.filter((mirror) => mirror.sourceCluster === cluster || mirror.destinationCluster === cluster)
}

/**
 * Every cluster the server manages, with the operator's add form and removal of clusters no mirror uses
 * (viewers see the list only).
 */
export function ClustersList() {
  const canOperate = useCanOperate()
  // Adding and removing clusters is an administrator's (the operator token is one everywhere).
  const canAdminister = useCan('admin')
  const clusters = useClusters()
  const mirrors = useMirrors()
  const [removing, setRemoving] = useState<Cluster | null>(null)
  const [removed, setRemoved] = useState<string | null>(null)
  const list = clusters.data?.clusters
  const mirrorList = mirrors.data?.mirrors ?? []
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Clusters</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
            {list === undefined ? 'The clusters Mirrorboard manages.' : `${list.length} ${list.length === 1 ? 'cluster' : 'clusters'}`}
          </p>
        </div>
        {canOperate && (list?.length ?? 0) >= 2 && (
          <Link prefetch={false} href="/create/mirror" className={buttonClass('secondary', 'sm')}>
            <span aria-hidden>⇄</span> Create a mirror…
          </Link>
        )}
      </div>
      {removed !== null && <Done>Removed cluster {removed} and its data.</Done>}
      <Panel id="cluster-list" title="Clusters">
        {clusters.error !== null && list === undefined ? (
          <ErrorPanel compact error={clusters.error} title="Could not load clusters" onRetry={() => void clusters.refetch()} />
        ) : list === undefined ? (
          <div className="space-y-2" aria-hidden>
            <Skeleton className="h-10 w-full" />
            <Skeleton className="h-10 w-full" />
          </div>
        ) : list.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">{canAdminister ? 'No cluster yet: add one below.' : 'No cluster yet. An administrator adds them.'}</p>
        ) : (
          <ul aria-label="Clusters" className="divide-y divide-slate-100 dark:divide-slate-800">
            {list.map((cluster) => {
              const using = mirrorsUsing(cluster.name, mirrorList)
              const alive = cluster.brokers.filter((broker) => broker.alive).length
              return (
                <li key={cluster.name} className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 py-2.5">
                  <div className="min-w-0">
                    <Link prefetch={false} href={`/clusters/${encodeURIComponent(cluster.name)}`} className={`font-mono break-all ${linkClass}`}>
                      {cluster.name}
                    </Link>
                    <p className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-slate-600 dark:text-slate-400">
                      <span>{cluster.kind}</span>
                      <span>
                        brokers {alive}/{cluster.brokers.length} alive
                      </span>
                      <span>
                        {cluster.topicCount} {cluster.topicCount === 1 ? 'topic' : 'topics'}
                      </span>
                      {cluster.status === 'unavailable' && <span className="font-medium text-red-700 dark:text-red-300">✕ could not be opened</span>}
                      {using.length > 0 && <span>mirrors: {using.map((mirror) => mirror.name).join(', ')}</span>}
                    </p>
                  </div>
                  {canAdminister &&
                    (using.length === 0 ? (
                      <button
                        type="button"
                        className={buttonClass('secondary', 'sm')}
                        aria-label={`Remove cluster ${cluster.name}`}
                        onClick={() => {
                          setRemoved(null)
                          setRemoving(cluster)
                        }}
                      >
                        Remove…
                      </button>
                    ) : (
                      <span className="text-xs text-slate-500 dark:text-slate-400">in use: delete its mirrors to remove it</span>
                    ))}
                </li>
              )
            })}
          </ul>
        )}
      </Panel>
      {canAdminister && (
        <Panel id="add-cluster" title="Add a cluster">
          <AddClusterForm />
        </Panel>
      )}
      {removing !== null && (
        <RemoveClusterDialog
          cluster={removing}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            setRemoved(removing.name)
            setRemoving(null)
          }}
        />
      )}
    </div>
  )
}

function RemoveClusterDialog({ cluster, onClose, onRemoved }: { cluster: Cluster; onClose: () => void; onRemoved: () => void }) {
  const mutation = useDeleteCluster()
  return (
    <ConfirmDialog
      open
      destructive
      title={`Remove cluster ${cluster.name}?`}
      confirmLabel="Remove the cluster"
      pending={mutation.isPending}
      onCancel={onClose}
      onConfirm={() => mutation.mutate(cluster.name, { onSuccess: onRemoved })}
    >
      <div className="space-y-3">
        <p>
          {cluster.kind === 'embedded'
            ? `Its ${cluster.brokers.length} brokers stop and its ${cluster.topicCount} ${cluster.topicCount === 1 ? 'topic is' : 'topics are'} deleted from this server with every record and consumer group offset. This cannot be undone.`
            : 'Mirrorboard forgets this cluster; the Kafka cluster itself is not changed.'}
        </p>
        {mutation.isError && <Refusal error={mutation.error} title="Removal refused" />}
      </div>
    </ConfirmDialog>
  )
}
