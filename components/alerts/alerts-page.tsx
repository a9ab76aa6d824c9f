'use client'

import { useAlerts } from '@/components/data/use-alerts'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { FiringAlerts, ResolvedAlerts } from './alert-list'
import { ReceiversPanel } from './receivers-panel'
import { SilencesPanel } from './silences-panel'

/** /alerts (UI.md §1): what fires now, above everything; what resolved; where alerts go; what is silenced. */
export function AlertsPage() {
  const alerts = useAlerts()
  const all = alerts.data?.alerts ?? []
  const firing = all.filter((alert) => alert.state === 'firing')
  const resolved = all.filter((alert) => alert.state === 'resolved')
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Alerts</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          The server checks every mirror against the alert rules every 5 seconds and tells the receivers below when an alert fires and when it resolves. The same rules ship for
          Prometheus in <code className="font-mono text-xs">deploy/prometheus/rules.yml</code>.
        </p>
      </div>
      {alerts.error !== null && alerts.data === undefined ? (
        <ErrorPanel error={alerts.error} title="Could not load the alerts" onRetry={() => void alerts.refetch()} />
      ) : (
        <>
          <Panel id="firing" title={alerts.data === undefined ? 'Firing' : `Firing (${firing.length})`}>
            {alerts.data === undefined ? <Skeleton className="h-20 w-full" /> : <FiringAlerts alerts={firing} />}
          </Panel>
          <div className="grid gap-6 lg:grid-cols-2">
            <ReceiversPanel />
            <SilencesPanel />
          </div>
          <Panel id="resolved" title={alerts.data === undefined ? 'Resolved' : `Resolved (${resolved.length})`}>
            {alerts.data === undefined ? <Skeleton className="h-16 w-full" /> : <ResolvedAlerts alerts={resolved} />}
          </Panel>
        </>
      )}
    </div>
  )
}
