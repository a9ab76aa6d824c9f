'use client'

import Link from 'next/link'
import { useInstances } from '@/components/data/use-instances'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'
import type { Instance } from '@/lib/api/instances'
import { INSTANCE_STATUS_STYLE } from '@/lib/ui/status-style'
import { ControlClusterStatusView } from './control-cluster-status'

/**
 * The instances as GET /api/v1/instances answers, read again every few seconds (use-instances.ts), and the control
 * cluster as this instance sees it (control-cluster-status.tsx). Without a control cluster there is one instance and
 * it says so, with how to share the work, rather than a one-row group.
 */
export function InstanceList() {
  const instances = useInstances()
  if (instances.error !== null) return <ErrorPanel error={instances.error} title="Could not load the instances" onRetry={() => void instances.refetch()} />
  if (instances.data === undefined) {
    return (
      <Panel>
        <Skeleton className="h-24 w-full" />
      </Panel>
    )
  }
  const { highAvailability, instances: listed, control } = instances.data
  const alive = listed.filter((instance) => instance.alive).length
  // Cut off from the control cluster, this instance cannot read anyone's heartbeat: nobody is known dead or alive.
  const cutOff = control !== undefined && !control.reachable
  return (
    <div className="space-y-4">
      {/* Unreachable, the control cluster is an incident: above the group it makes stale. */}
      {control !== undefined && !control.reachable && <ControlClusterStatusView control={control} />}
      {!highAvailability && (
        <div data-testid="single-instance" className="rounded-lg border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700 dark:border-slate-700 dark:bg-slate-800/60 dark:text-slate-200">
          <p>
            <strong className="font-semibold">Single instance:</strong> this instance runs every mirror; if it stops, every mirror stops until it is
            started again.
          </p>
          <p className="mt-1">
            To share the work, start several instances with <code className="font-mono text-xs break-all">MIRRORBOARD_CONTROL_BOOTSTRAP</code> set to the same
            control Kafka cluster: they split the mirrors between them and take over a dead one&apos;s (see{' '}
            <code className="font-mono text-xs break-all">docs/high-availability.md</code>, &ldquo;Running three instances&rdquo;).
          </p>
        </div>
      )}
      <Panel
        id="instances"
        title={
          !highAvailability
            ? 'One instance, no group'
            : cutOff
              ? `${listed.length} ${listed.length === 1 ? 'instance' : 'instances'}, as last read`
              : `${alive} of ${listed.length} ${listed.length === 1 ? 'instance' : 'instances'} alive`
        }
      >
        <ul className="divide-y divide-slate-100 dark:divide-slate-800">
          {listed.map((instance) => (
            <InstanceRow key={instance.id} instance={instance} grouped={highAvailability} cutOff={cutOff} />
          ))}
        </ul>
      </Panel>
      {control !== undefined && control.reachable && <ControlClusterStatusView control={control} />}
    </div>
  )
}

function InstanceRow({ instance, grouped, cutOff }: { instance: Instance; grouped: boolean; cutOff: boolean }) {
  const look = INSTANCE_STATUS_STYLE[cutOff ? (instance.self ? 'cutOff' : 'unknown') : instance.alive ? 'alive' : 'dead']
  return (
    <li data-testid="instance" data-instance={instance.id} className="space-y-2 py-3 first:pt-0 last:pb-0">
      <div className="flex flex-wrap items-center gap-2">
        {/* A single instance has no group id worth showing ("this"): it is simply this instance. */}
        <span className={`text-sm font-medium break-all text-slate-900 dark:text-slate-100 ${grouped ? 'font-mono' : ''}`}>{grouped ? instance.id : 'This instance'}</span>
        <StatusBadge look={look} data-testid="instance-status" />
        {grouped && instance.self && (
          <span className="rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium text-indigo-800 ring-1 ring-indigo-600/20 ring-inset dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-400/30">
            this instance
          </span>
        )}
        {grouped && instance.leader && (
          <span
            data-testid="instance-leader"
            title="The group's leader assigns the mirrors to the instances (Kafka's group coordinator chose it)"
            className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-slate-500/20 ring-inset dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-400/30"
          >
            group leader
          </span>
        )}
      </div>
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600 dark:text-slate-400">Version</dt>
        <dd className="font-mono" data-testid="instance-version">
          {instance.version}
        </dd>
        {grouped && (
          <>
            <dt className="text-slate-600 dark:text-slate-400">Address</dt>
            <dd className="font-mono break-all" data-testid="instance-url">
              {instance.url ?? <span className="font-sans text-slate-600 dark:text-slate-300">none advertised: its mirrors&apos; requests cannot be sent on to it</span>}
            </dd>
          </>
        )}
        <dt className="text-slate-600 dark:text-slate-400">Last heartbeat</dt>
        <dd data-testid="instance-heartbeat">{instance.lastHeartbeatAt === null ? <span className="text-slate-600 dark:text-slate-300">none: a single instance reports to no group</span> : <RelativeTime at={instance.lastHeartbeatAt} />}</dd>
        <dt className="text-slate-600 dark:text-slate-400">Runs</dt>
        <dd data-testid="instance-mirrors">
          {instance.mirrors.length === 0 ? (
            <span className="text-slate-600 dark:text-slate-300">no mirror</span>
          ) : (
            <ul aria-label={`Mirrors run by ${grouped ? instance.id : 'this instance'}`} className="flex flex-wrap gap-x-3 gap-y-1">
              {instance.mirrors.map((mirror) => (
                <li key={mirror}>
                  <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}`} className="font-mono break-all text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
                    {mirror}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </dd>
        {instance.fenced !== undefined && instance.fenced.length > 0 && (
          <>
            <dt className="text-slate-600 dark:text-slate-400">Fenced</dt>
            <dd data-testid="instance-fenced">
              <p className="text-slate-700 dark:text-slate-200">Another instance took these over while this one was paused or cut off; its late writes were refused by Kafka and it stopped them:</p>
              <ul className="mt-1 space-y-0.5">
                {instance.fenced.map((fenced) => (
                  <li key={`${fenced.transactionalId}-${fenced.at}`}>
                    <span className="font-mono break-all">{fenced.mirror}</span>{' '}
                    <span className="text-slate-600 dark:text-slate-300">
                      ({fenced.cluster === 'control' ? 'its operations' : `its state on ${fenced.cluster}`}, <RelativeTime at={fenced.at} />)
                    </span>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </li>
  )
}
