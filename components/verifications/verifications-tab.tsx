'use client'

import Link from 'next/link'
import { useState } from 'react'
import { useCanOperate } from '@/components/data/session-context'
import { useMirrorVerifications, useStartVerification } from '@/components/data/use-verifications'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { HistoryTable, StartedCells } from '@/components/ui/history-table'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import type { Mirror } from '@/lib/api/mirrors'
import type { VerificationSummary } from '@/lib/api/verifications'
import { formatBytes, formatCount } from '@/lib/ui/format'
import { VERIFICATION_STATUS_STYLE } from '@/lib/ui/status-style'
import { VerificationProgress } from './verification-progress'
import { requesterName } from '@/lib/ui/requester-name'

const ALL = '*'

/**
 * The mirror page's Verifications tab: compare source and destination now (operators), and every comparison so
 * far, those that ran by themselves after a failover included.
 */
export function VerificationsTab({ mirror }: { mirror: Mirror }) {
  const verifications = useMirrorVerifications(mirror.name)
  const canOperate = useCanOperate({ mirror: mirror.name })
  const start = useStartVerification(mirror.name)
  const [topic, setTopic] = useState(ALL)
  const content = mirror.emulation !== undefined
  const running = verifications.data?.verifications.find((verification) => verification.status === 'running') ?? null
  return (
    <div className="flex flex-col gap-5">
      <Panel title="Verify the mirrored data" id="verify-run">
        <div className="flex flex-col gap-3">
          <p className="max-w-3xl text-sm text-slate-700 dark:text-slate-300">
            {content
              ? `${mirror.destinationCluster} is a Kafka cluster that produces the records again: every record is compared with the source's by type, key, value, headers and timestamp, at its translated offset.`
              : `${mirror.destinationCluster} holds the source's batches byte for byte: every batch is compared with the source's, and both sides' CRCs are checked.`}{' '}
            It runs in the background, throttled so the mirror keeps its pace, and names every difference by offset.
          </p>
          {canOperate ? (
            <form
              className="flex flex-wrap items-end gap-2"
              onSubmit={(event) => {
                event.preventDefault()
                start.mutate(topic === ALL ? undefined : [topic])
              }}
            >
              <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
                Topics
                <select className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100" value={topic} onChange={(event) => setTopic(event.target.value)}>
                  <option value={ALL}>All topics ({mirror.topics.length})</option>
                  {mirror.topics.map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" className={buttonClass('primary')} disabled={start.isPending}>
                {start.isPending ? 'Starting…' : 'Verify now'}
              </button>
            </form>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">Operators start verifications; you can read them here.</p>
          )}
          {start.isError && <ErrorPanel error={start.error} title="The verification was not started" compact />}
          {start.isSuccess && (
            <p role="status" className="text-sm text-emerald-900 dark:text-emerald-200">
              ✓ Started:{' '}
              <Link prefetch={false} className="underline underline-offset-2" href={`/verifications/${encodeURIComponent(start.data.verification)}`}>
                follow it
              </Link>
            </p>
          )}
          {running !== null && (
            <div className="rounded-md border border-sky-200 bg-sky-50 p-3 dark:border-sky-900 dark:bg-sky-950/50">
              <p className="mb-2 text-sm font-medium text-sky-950 dark:text-sky-100">
                <Link prefetch={false} className="underline underline-offset-2" href={`/verifications/${encodeURIComponent(running.id)}`}>
                  Verification running
                </Link>{' '}
                since <RelativeTime at={running.startedAt} />
              </p>
              <VerificationProgress verification={running} />
            </div>
          )}
        </div>
      </Panel>
      <Panel title="Verifications of this mirror" id="verify-history">
        {verifications.isPending ? (
          <Skeleton className="h-24 w-full" />
        ) : verifications.isError ? (
          <ErrorPanel error={verifications.error} title="Could not load the verifications" onRetry={() => void verifications.refetch()} compact />
        ) : verifications.data.verifications.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">No verification yet. One runs by itself when a failover finishes; start one above to compare the logs now.</p>
        ) : (
          <VerificationHistory verifications={verifications.data.verifications} />
        )}
      </Panel>
    </div>
  )
}

function VerificationHistory({ verifications }: { verifications: readonly VerificationSummary[] }) {
  return (
    <HistoryTable minWidth="min-w-[40rem]" columns={[{ label: 'Started' }, { label: 'Result' }, { label: 'Started by' }, { label: 'Partitions' }, { label: 'Mismatches', numeric: true }, { label: 'Compared', numeric: true }]}>
      {verifications.map((verification) => (
        <tr key={verification.id} data-verification={verification.id}>
          <StartedCells href={`/verifications/${encodeURIComponent(verification.id)}`} startedAt={verification.startedAt} look={VERIFICATION_STATUS_STYLE[verification.status]} />
          <td className="py-2 pr-3 text-xs">
            {verification.operation !== null ? (
              <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/operations/${encodeURIComponent(verification.operation)}`}>
                after a failover
              </Link>
            ) : (
              <span>{requesterName(verification.requestedBy)}</span>
            )}
          </td>
          <td className="py-2 pr-3">
            {verification.totals.identical} of {verification.totals.partitions} identical
            {verification.totals.failed > 0 && <span className="text-amber-900 dark:text-amber-300"> · {verification.totals.failed} not compared</span>}
          </td>
          <td className={`py-2 pr-3 text-right tabular-nums ${verification.totals.mismatches > 0 ? 'font-semibold text-red-800 dark:text-red-300' : ''}`}>{formatCount(verification.totals.mismatches)}</td>
          <td className="py-2 text-right tabular-nums">{formatBytes(verification.totals.bytes)}</td>
        </tr>
      ))}
    </HistoryTable>
  )
}
