'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { callEndpoint } from '@/components/data/call-endpoint'
import { queryKeys } from '@/components/data/query-keys'
import { useFaults } from '@/components/data/use-demo'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { Skeleton } from '@/components/ui/panel'
import type { Fault } from '@/lib/api/demo'
import { clusterEndpoints, demoEndpoints } from '@/lib/api/routes'
import { FAULT_LABEL, faultPlace } from './fault-kinds'

/** The faults in force, oldest first, each with what it did and a heal button. */
export function ActiveFaults() {
  const faults = useFaults()
  return (
    <div>
      <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        Active faults{faults.data !== undefined && faults.data.faults.length > 0 ? ` (${faults.data.faults.length})` : ''}
      </h3>
      {faults.isPending ? (
        <Skeleton className="mt-2 h-12" />
      ) : faults.isError ? (
        <div className="mt-2">
          <ErrorPanel error={faults.error} title="Could not load the active faults" onRetry={() => void faults.refetch()} compact />
        </div>
      ) : faults.data.faults.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
          <span aria-hidden className="text-emerald-700 dark:text-emerald-400">✓ </span>None: every broker is up and every link is whole.
        </p>
      ) : (
        <ul className="mt-2 space-y-2" aria-label="Active faults">
          {faults.data.faults.map((fault) => (
            <ActiveFault key={fault.id} fault={fault} />
          ))}
        </ul>
      )}
    </div>
  )
}

function ActiveFault({ fault }: { fault: Fault }) {
  const queryClient = useQueryClient()
  const heal = useMutation({
    mutationFn: () => callEndpoint(demoEndpoints.healFault, { params: { id: fault.id } }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(demoEndpoints.listFaults) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.getCluster, { cluster: fault.cluster }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listClusters) })
    },
  })
  const label = `${FAULT_LABEL[fault.kind]}: ${faultPlace(fault)}`
  return (
    <li className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 dark:border-amber-800 dark:bg-amber-950/40" aria-label={label}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="text-sm font-medium text-amber-950 dark:text-amber-100">
            <span aria-hidden>⚠ </span>
            {label}
          </p>
          <p className="mt-0.5 text-xs break-words text-amber-900 dark:text-amber-200">
            {fault.detail} Started <RelativeTime at={fault.startedAt} />.
          </p>
        </div>
        <button type="button" className={buttonClass('secondary', 'sm')} disabled={heal.isPending} onClick={() => heal.mutate()} aria-label={`Heal ${label}`}>
          {heal.isPending ? 'Healing…' : 'Heal'}
        </button>
      </div>
      {heal.isError && (
        <div className="mt-2">
          <ErrorPanel error={heal.error} title="Could not heal it" onRetry={() => heal.mutate()} compact />
        </div>
      )}
    </li>
  )
}
