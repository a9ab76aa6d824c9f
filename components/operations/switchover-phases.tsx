'use client'

import { useMutation } from '@tanstack/react-query'
import { callEndpoint } from '@/components/data/call-endpoint'
import { ErrorPanel } from '@/components/ui/error-panel'
import { StatusBadge } from '@/components/ui/status-badge'
import { buttonClass } from '@/components/ui/button-class'
import { mirrorEndpoints } from '@/lib/api/routes'
import type { Operation, SwitchoverProgress } from '@/lib/api/operations'
import { canRollBack } from '@/lib/failover/switchover'
import { counted, formatCount, formatDuration } from '@/lib/ui/format'
import { SWITCHOVER_PHASE_STYLE } from '@/lib/ui/status-style'

/** The phases in the order a switchover passes them, with what each does. */
const PHASES: ReadonlyArray<{ key: 'fence' | 'drain' | 'stop'; title: string; detail: string }> = [
  { key: 'fence', title: 'Fence the source', detail: 'client writes refused (TOPIC_WRITE_FENCED); open transactions get their grace' },
  { key: 'drain', title: 'Drain', detail: 'every destination log end equal to the source, read from both' },
  { key: 'stop', title: 'Stop', detail: 'the STOPPING steps on every partition' },
]

function phaseTime(switchover: SwitchoverProgress, key: 'fence' | 'drain' | 'stop', now: number): string | null {
  const end = (at: number | null) => at ?? now
  switch (key) {
    case 'fence':
      return switchover.fencedAt === null ? null : formatDuration(Math.max(0, (switchover.drainStartedAt ?? end(null)) - switchover.fencedAt))
    case 'drain':
      return switchover.drainStartedAt === null ? null : formatDuration(Math.max(0, end(switchover.drainedAt) - switchover.drainStartedAt))
    case 'stop':
      return switchover.drainedAt === null || switchover.phase === 'rolledBack' ? null : formatDuration(Math.max(0, end(switchover.stoppedAt) - switchover.drainedAt))
  }
}

function reached(switchover: SwitchoverProgress, key: 'fence' | 'drain' | 'stop'): boolean {
  if (key === 'fence') return switchover.fencedAt !== null
  if (key === 'drain') return switchover.drainStartedAt !== null
  return switchover.drainedAt !== null && switchover.phase !== 'rolledBack' && switchover.phase !== 'rollingBack'
}

/**
 * A planned switchover's phases (issue #34), live: fence, drain (with what is still behind), stop, each timed;
 * the records lost once measured; why it rolled back when it did; and, before the stop, a cancel that rolls it
 * back. Shown by the wizard's progress and result and by the operation page.
 */
export function SwitchoverPhases({ operation, now, canCancel }: { operation: Operation; now: number; canCancel: boolean }) {
  const switchover = operation.switchover
  const cancel = useMutation({ mutationFn: () => callEndpoint(mirrorEndpoints.cancelOperation, { params: { id: operation.id } }) })
  if (switchover === undefined) return null
  const look = SWITCHOVER_PHASE_STYLE[switchover.phase]
  const refusedFor = switchover.fencedAt === null ? null : Math.max(0, (switchover.stoppedAt ?? switchover.rolledBackAt ?? now) - switchover.fencedAt)
  return (
    <section aria-labelledby="switchover-phases" className="space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-700" data-phase={switchover.phase}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id="switchover-phases" className="text-sm font-semibold">
          Planned switchover
        </h3>
        <StatusBadge look={look} size="md" data-testid="switchover-phase" />
      </div>
      <ol className="grid grid-cols-1 gap-2 sm:grid-cols-3">
        {PHASES.map((phase, index) => {
          const time = phaseTime(switchover, phase.key, now)
          return (
            <li key={phase.key} className={`rounded-md border px-3 py-2 ${reached(switchover, phase.key) ? 'border-indigo-300 dark:border-indigo-700' : 'border-slate-200 dark:border-slate-700'}`} data-switchover-phase={phase.key}>
              <div className="flex items-baseline justify-between gap-2">
                <span className="text-sm font-medium">
                  {index + 1}. {phase.title}
                </span>
                <span className="text-sm tabular-nums">{time ?? '—'}</span>
              </div>
              <p className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">{phase.detail}</p>
            </li>
          )
        })}
      </ol>
      <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm text-slate-700 dark:text-slate-300">
        <li>
          Fence: <span className="font-medium">{switchover.fenceMethod === 'broker' ? 'the broker refuses writes' : switchover.fenceMethod === 'acl' ? 'DENY WRITE ACLs' : 'none (producers stopped by hand; log ends must stand still)'}</span>
        </li>
        {refusedFor !== null && (
          <li>
            Writes refused for <span className="font-semibold tabular-nums">{formatDuration(refusedFor)}</span>
            {switchover.stoppedAt === null && switchover.rolledBackAt === null ? ' so far' : ''}
          </li>
        )}
        {switchover.drain !== null && switchover.drainedAt === null && switchover.phase === 'drain' && (
          <li data-testid="drain-behind">
            {switchover.drain.partitionsBehind === 0 && switchover.drain.openTransactions === 0
              ? 'Destination caught up; checking once more'
              : `${counted(switchover.drain.partitionsBehind, 'partition')} behind by ${counted(switchover.drain.recordsBehind, 'record')}${switchover.drain.openTransactions > 0 ? `, ${counted(switchover.drain.openTransactions, 'open transaction')}` : ''}`}
            {' · '}rolls back after {formatDuration(switchover.drainTimeoutMs)}
          </li>
        )}
        {switchover.transactionsAbortedAtSource > 0 && <li>{counted(switchover.transactionsAbortedAtSource, 'transaction')} aborted by the source after the grace</li>}
        {switchover.recordsLost !== null && (
          <li className={switchover.recordsLost.total === 0 ? 'font-semibold text-emerald-800 dark:text-emerald-300' : 'font-semibold text-red-800 dark:text-red-300'} data-testid="records-lost">
            Records lost: {switchover.recordsLost.total === null ? 'could not be measured' : formatCount(switchover.recordsLost.total)} (measured at STOPPED)
          </li>
        )}
        {switchover.groupsActiveOnSource.length > 0 && (
          <li className="text-amber-900 dark:text-amber-200">▲ Consumer groups still active on the source when it drained: {switchover.groupsActiveOnSource.join(', ')}</li>
        )}
      </ul>
      {switchover.reason !== null && (
        <p role="status" className="text-sm text-slate-800 dark:text-slate-200" data-testid="switchover-reason">
          {switchover.phase === 'rolledBack' ? '↶ Rolled back: ' : ''}
          {switchover.reason}. {switchover.phase === 'rolledBack' ? 'The source takes writes again and the mirror mirrors as before; nothing was lost.' : ''}
        </p>
      )}
      {canCancel && operation.status === 'running' && canRollBack(switchover.phase) && (
        <div className="space-y-2">
          <button type="button" className={buttonClass('secondary')} disabled={cancel.isPending || cancel.isSuccess} onClick={() => cancel.mutate()}>
            {cancel.isSuccess ? 'Rolling back…' : 'Cancel and roll back'}
          </button>
          {cancel.isError && <ErrorPanel error={cancel.error} title="The cancel was refused" />}
        </div>
      )}
    </section>
  )
}
