'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useId, useState, type ReactNode } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { queryKeys } from '@/components/data/query-keys'
import { useCluster, useClusters, useTopics } from '@/components/data/use-clusters'
import { useDemoStatus } from '@/components/data/use-demo'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import type { Fault, FaultRequest } from '@/lib/api/demo'
import { clusterEndpoints, demoEndpoints } from '@/lib/api/routes'
import { ActiveFaults } from './active-faults'
import { FAULT_KIND_TEXT } from './fault-kinds'

/**
 * Fault injection, one click each: pick the cluster once, then stop or start a broker, cut or heal its link,
 * elect a lagging replica uncleanly, or leave a transaction hanging. The active faults come first, each
 * with its heal. A fault that does not apply (the last live broker, a link that is not cut) is refused by
 * the server with 409, and the refusal is shown where it was asked for.
 */
export function FaultsPanel() {
  const clusters = useClusters()
  const status = useDemoStatus()
  const [chosen, setChosen] = useState<string | null>(null)
  const embedded = (clusters.data?.clusters ?? []).filter((cluster) => cluster.kind === 'embedded')
  const live = status.data
  const cluster = chosen ?? live?.sourceCluster ?? embedded[0]?.name ?? null
  const selectId = useId()

  return (
    <Panel title="Faults" id="faults">
      <ActiveFaults />
      <div className="mt-5 border-t border-slate-100 pt-4 dark:border-slate-800">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">Inject a fault</h3>
          <label htmlFor={selectId} className="text-sm text-slate-600 dark:text-slate-300">
            on cluster
          </label>
          {clusters.isPending ? (
            <Skeleton className="h-8 w-40" />
          ) : (
            <select
              id={selectId}
              value={cluster ?? ''}
              onChange={(event) => setChosen(event.target.value)}
              className="max-w-full rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm text-slate-900 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
            >
              {embedded.map((option) => (
                <option key={option.name} value={option.name}>
                  {option.name}
                  {option.name === live?.sourceCluster ? ' (live source)' : option.name === live?.destinationCluster ? ' (live destination)' : ''}
                </option>
              ))}
            </select>
          )}
        </div>
        {clusters.isError && (
          <div className="mt-3">
            <ErrorPanel error={clusters.error} title="Could not load the clusters" onRetry={() => void clusters.refetch()} compact />
          </div>
        )}
        {cluster !== null && (
          <div key={cluster} className="mt-3 grid gap-3 md:grid-cols-2">
            <BrokerFault cluster={cluster} />
            <LinkFault cluster={cluster} />
            <PartitionFault cluster={cluster} kind="unclean-election" actionLabel="Elect uncleanly" />
            <PartitionFault cluster={cluster} kind="hanging-transaction" actionLabel="Open a hanging transaction" />
            <PartitionFault cluster={cluster} kind="bit-rot" actionLabel="Flip a byte on disk" />
          </div>
        )}
      </div>
    </Panel>
  )
}

/** One injection request with its own feedback: the refusal (code and message) or what the fault did. */
function useInject(cluster: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (request: Omit<FaultRequest, 'cluster'>) => callEndpoint(demoEndpoints.injectFault, { body: { ...request, cluster } }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(demoEndpoints.listFaults) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.getCluster, { cluster }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listClusters) })
    },
  })
}

type Inject = ReturnType<typeof useInject>

function FaultCard({ kind, children, inject, refusedTitle }: { kind: Fault['kind']; children: ReactNode; inject: Inject; refusedTitle: string }) {
  const text = FAULT_KIND_TEXT[kind]
  return (
    <div className="flex min-w-0 flex-col rounded-md border border-slate-200 p-3 dark:border-slate-700" role="group" aria-labelledby={`fault-${kind}-title`}>
      <h4 id={`fault-${kind}-title`} className="text-sm font-medium text-slate-900 dark:text-slate-100">
        {text.title}
      </h4>
      <p className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">{text.sentence}</p>
      <div className="mt-3 flex flex-wrap items-end gap-2">{children}</div>
      <div className="mt-2 empty:hidden">
        {inject.isError && <ErrorPanel error={inject.error} title={refusedTitle} compact />}
        {inject.isSuccess && (
          <p role="status" className="text-xs break-words text-slate-700 dark:text-slate-300">
            <span aria-hidden className="text-emerald-700 dark:text-emerald-400">✓ </span>
            {inject.data.fault.detail}
          </p>
        )}
      </div>
    </div>
  )
}

const fieldClass =
  'rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm text-slate-900 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100'

function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId()
  return (
    <div className="flex flex-col gap-0.5">
      <label htmlFor={id} className="text-xs text-slate-600 dark:text-slate-400">
        {label}
      </label>
      {children(id)}
    </div>
  )
}

function BrokerFault({ cluster }: { cluster: string }) {
  const detail = useCluster(cluster)
  const inject = useInject(cluster)
  const brokers = detail.data?.brokers ?? []
  const [chosen, setChosen] = useState<number | null>(null)
  const broker = chosen ?? brokers.at(-1)?.id ?? null
  const alive = brokers.find((candidate) => candidate.id === broker)?.alive
  return (
    <FaultCard kind="stop-broker" inject={inject} refusedTitle={`Broker ${broker ?? ''} of ${cluster}: refused`}>
      <Field label="Broker">
        {(id) => (
          <select id={id} className={fieldClass} value={broker ?? ''} onChange={(event) => setChosen(Number(event.target.value))} disabled={brokers.length === 0}>
            {brokers.map((option) => (
              <option key={option.id} value={option.id}>
                {option.id} · {option.alive ? 'alive' : 'stopped'}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button
        type="button"
        className={buttonClass(alive === false ? 'secondary' : 'danger', 'sm')}
        disabled={broker === null || inject.isPending}
        onClick={() => broker !== null && inject.mutate({ kind: 'stop-broker', broker })}
      >
        Stop broker
      </button>
      <button
        type="button"
        className={buttonClass(alive === false ? 'primary' : 'secondary', 'sm')}
        disabled={broker === null || inject.isPending}
        onClick={() => broker !== null && inject.mutate({ kind: 'start-broker', broker })}
      >
        Start broker
      </button>
      {detail.isError && <ErrorPanel error={detail.error} title={`Could not load the brokers of ${cluster}`} onRetry={() => void detail.refetch()} compact />}
    </FaultCard>
  )
}

function LinkFault({ cluster }: { cluster: string }) {
  const inject = useInject(cluster)
  return (
    <FaultCard kind="cut-link" inject={inject} refusedTitle={`The link of ${cluster}: refused`}>
      <button type="button" className={buttonClass('danger', 'sm')} disabled={inject.isPending} onClick={() => inject.mutate({ kind: 'cut-link' })}>
        Cut link
      </button>
      <button type="button" className={buttonClass('secondary', 'sm')} disabled={inject.isPending} onClick={() => inject.mutate({ kind: 'heal-link' })}>
        Heal link
      </button>
    </FaultCard>
  )
}

function PartitionFault({ cluster, kind, actionLabel }: { cluster: string; kind: 'unclean-election' | 'hanging-transaction' | 'bit-rot'; actionLabel: string }) {
  const topics = useTopics(cluster)
  const inject = useInject(cluster)
  // Internal topics (__mirror_state) are no place for a demo fault.
  const list = (topics.data?.topics ?? []).filter((topic) => !topic.name.startsWith('__'))
  const [chosenTopic, setChosenTopic] = useState<string | null>(null)
  const [partition, setPartition] = useState(0)
  const topic = list.find((candidate) => candidate.name === chosenTopic) ?? list[0]
  return (
    <FaultCard kind={kind} inject={inject} refusedTitle={`${FAULT_KIND_TEXT[kind].title} on ${cluster}: refused`}>
      <Field label="Topic">
        {(id) => (
          <select
            id={id}
            className={`${fieldClass} max-w-44`}
            value={topic?.name ?? ''}
            disabled={list.length === 0}
            onChange={(event) => {
              setChosenTopic(event.target.value)
              setPartition(0)
            }}
          >
            {list.length === 0 && <option value="">{topics.isPending ? 'loading…' : 'no topics'}</option>}
            {list.map((option) => (
              <option key={option.name} value={option.name}>
                {option.name}
                {option.readOnly ? ' (mirror, read-only)' : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Partition">
        {(id) => (
          <select id={id} className={fieldClass} value={partition} disabled={topic === undefined} onChange={(event) => setPartition(Number(event.target.value))}>
            {Array.from({ length: topic?.partitions ?? 1 }, (_, index) => (
              <option key={index} value={index}>
                {index}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button
        type="button"
        className={buttonClass('danger', 'sm')}
        disabled={topic === undefined || inject.isPending}
        onClick={() => topic !== undefined && inject.mutate({ kind, topic: topic.name, partition })}
      >
        {actionLabel}
      </button>
      {topics.isError && <ErrorPanel error={topics.error} title={`Could not load the topics of ${cluster}`} onRetry={() => void topics.refetch()} compact />}
    </FaultCard>
  )
}
