import type { Cluster } from '@/lib/api/clusters'
import { Panel, Skeleton } from '@/components/ui/panel'

export function BrokersPanel({ cluster }: { cluster: Cluster | undefined }) {
  const alive = cluster?.brokers.filter((broker) => broker.alive).length ?? 0
  return (
    <Panel id="brokers" title={cluster === undefined ? 'Brokers' : `Brokers (${alive}/${cluster.brokers.length} alive)`}>
      {cluster === undefined ? (
        <div className="flex gap-2" aria-hidden>
          <Skeleton className="h-14 w-28" />
          <Skeleton className="h-14 w-28" />
          <Skeleton className="h-14 w-28" />
        </div>
      ) : cluster.brokers.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">No broker is known for this cluster{cluster.status === 'unavailable' ? ': it could not be opened' : ''}.</p>
      ) : (
        <ul aria-label="Brokers" className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-5">
          {cluster.brokers.map((broker) => (
            <li
              key={broker.id}
              data-alive={broker.alive}
              className={`rounded-md border px-3 py-2 text-sm ${broker.alive ? 'border-slate-200 dark:border-slate-700' : 'border-red-300 bg-red-50 dark:border-red-900 dark:bg-red-950/40'}`}
            >
              <span className="block font-medium text-slate-900 dark:text-white">Broker {broker.id}</span>
              <span className={`mt-0.5 flex items-center gap-1 text-xs ${broker.alive ? 'text-emerald-800 dark:text-emerald-300' : 'font-medium text-red-800 dark:text-red-300'}`}>
                <span aria-hidden>{broker.alive ? '●' : '■'}</span>
                {broker.alive ? 'alive' : 'stopped'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  )
}
