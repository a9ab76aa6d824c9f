'use client'

import Link from 'next/link'
import { useReducer, useState } from 'react'
import { useCreateReverseMirror, useFailbackPlan, useTopicLogEnds, type ReverseMirror } from '@/components/data/use-failback'
import { Figure } from '@/components/failover/figure'
import { SplitBrainNotice } from '@/components/failover/split-brain-notice'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { StepWizard } from '@/components/ui/step-wizard'
import { isApiError } from '@/lib/api/errors'
import type { Mirror } from '@/lib/api/mirrors'
import { exportRanges, failbackTotals, isValidMirrorName, rebuiltTopics } from '@/lib/failover/failback'
import { canContinue, canCreate, FAILBACK_WIZARD, failbackReducer, initialFailbackState, type FailbackStep } from '@/lib/failover/failback-states'
import { formatCount, counted } from '@/lib/ui/format'
import { ExportRemovedRecords } from './export-removed-records'
import { FailbackDone } from './failback-done'
import { FailbackProgressView } from './failback-progress'
import { TruncationTable } from './truncation-table'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'

const PLANNING: readonly FailbackStep[] = ['plan', 'confirm']
const BEFORE_PROGRESS: readonly FailbackStep[] = ['name', 'plan', 'confirm']

/**
 * The failback wizard (UI.md §2): a mirror in the other direction, from the failover's destination (the
 * new source) back to its old source. Its dry run shows per partition where the old source is cut back and
 * how many records go, with an export of exactly those records; after the typed confirmation it follows
 * the new mirror until every partition MIRRORS and both logs match.
 */
export function FailbackWizard({ mirror, defaultReverseName, existingReverse }: { mirror: Mirror; defaultReverseName: string; existingReverse: string | null }) {
  const [state, dispatch] = useReducer(failbackReducer, null, () => initialFailbackState(existingReverse ?? defaultReverseName, existingReverse !== null))
  const reverse: ReverseMirror = { name: state.reverseName, sourceCluster: mirror.destinationCluster, destinationCluster: mirror.sourceCluster, topics: mirror.topics }
  const plan = useFailbackPlan(reverse, PLANNING.includes(state.step))
  const logStarts = useTopicLogEnds(mirror.sourceCluster, mirror.topics, { enabled: state.step === 'plan' })
  const create = useCreateReverseMirror()
  const [refusalError, setRefusalError] = useState<unknown>(null)
  const total = Object.values(mirror.partitionsByState).reduce<number>((sum, count) => sum + (count ?? 0), 0)
  const stopped = mirror.partitionsByState.STOPPED ?? 0
  const allStopped = total > 0 && stopped === total

  const submit = () => {
    if (!canCreate(state, mirror.sourceCluster)) return
    dispatch({ type: 'submitted', expected: mirror.sourceCluster })
    create.mutate(reverse, {
      onSuccess: () => dispatch({ type: 'created' }),
      onError: (error) => {
        setRefusalError(error)
        dispatch({ type: 'refused', error: { code: isApiError(error) ? error.code : 'INTERNAL', message: error.message } })
      },
    })
  }

  const totals = plan.data ? failbackTotals(plan.data.partitions) : null
  const rebuilt = plan.data ? rebuiltTopics(plan.data.partitions) : []
  const starts = TopicPartitionMap.of(logStarts.partitions.map((partition) => [partition, partition.logStartOffset] as const))
  const ranges = plan.data ? exportRanges(plan.data.partitions, starts) : []
  const splitBrainRecords = mirror.splitBrain?.recordsWritten ?? 0

  return (
    <StepWizard
      steps={FAILBACK_WIZARD}
      current={state.step}
      label="Failback steps"
      navigation={
        BEFORE_PROGRESS.includes(state.step)
          ? {
              onBack: () => dispatch({ type: 'back' }),
              backDisabled: state.step === 'name' || state.submitting,
              ...(state.step === 'confirm'
                ? {}
                : {
                    onNext: () => dispatch({ type: 'next', planReady: plan.data !== undefined }),
                    nextDisabled: !(state.step === 'name' ? allStopped && canContinue(state, false) : canContinue(state, plan.data !== undefined)),
                  }),
            }
          : undefined
      }
    >
      {state.step === 'name' &&
        (allStopped ? (
          <div className="space-y-2">
            <p className="text-sm text-slate-700 dark:text-slate-300">
              The failback creates a mirror from <span className="font-mono">{mirror.destinationCluster}</span> (the new source) back to <span className="font-mono">{mirror.sourceCluster}</span> for{' '}
              {mirror.topics.length} topics. Each partition of <span className="font-mono">{mirror.sourceCluster}</span> is cut back to where the two logs last agreed, then follows the new source.
            </p>
            <label htmlFor="reverse-name" className="block text-sm font-medium">
              Name of the reverse mirror
            </label>
            <input
              id="reverse-name"
              value={state.reverseName}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={!isValidMirrorName(state.reverseName)}
              aria-describedby="reverse-name-help"
              onChange={(event) => dispatch({ type: 'nameTyped', name: event.target.value })}
              className="w-full max-w-md rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
            />
            <p id="reverse-name-help" className={`text-xs ${isValidMirrorName(state.reverseName) ? 'text-slate-600 dark:text-slate-400' : 'text-red-800 dark:text-red-300'}`}>
              {isValidMirrorName(state.reverseName) ? 'Letters, digits, ".", "_" and "-", up to 249 characters.' : '✕ Use letters, digits, ".", "_" and "-" only (1 to 249 characters).'}
            </p>
          </div>
        ) : (
          <p role="alert" className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50">
            ▲ A failback needs every partition of <span className="font-mono">{mirror.name}</span> STOPPED ({stopped} of {total} are). Fail it over first:{' '}
            <Link prefetch={false} className="underline underline-offset-2" href={`/mirrors/${encodeURIComponent(mirror.name)}/failover`}>
              open the failover wizard
            </Link>
            .
          </p>
        ))}

      {PLANNING.includes(state.step) && plan.isPending && (
        <div className="space-y-2">
          <p className="text-sm text-slate-600 dark:text-slate-400">Requesting the reverse mirror&apos;s dry run…</p>
          <Skeleton className="h-24 w-full" />
        </div>
      )}
      {PLANNING.includes(state.step) && plan.isError && <ErrorPanel error={plan.error} title="The dry run failed" onRetry={() => void plan.refetch()} />}

      {state.step === 'plan' && plan.data && totals && (
        <>
          <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
            <Figure label="Records to remove" value={formatCount(totals.recordsToRemove)} title={`${totals.recordsToRemove} records`} tone={totals.recordsToRemove > 0 ? 'danger' : 'neutral'} detail={`from ${mirror.sourceCluster}`} />
            <Figure label="Partitions cut back" value={formatCount(totals.partitionsTruncated)} detail={`of ${formatCount(totals.partitions)}`} />
            <Figure label="Whole logs removed" value={formatCount(totals.partitionsFromScratch)} detail="no last mirror position to align on" tone={totals.partitionsFromScratch > 0 ? 'warning' : 'neutral'} />
          </dl>
          {splitBrainRecords > 0 && (
            <p role="alert" className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-50">
              ⚠ {formatCount(splitBrainRecords)} of these records were written to <span className="font-mono">{mirror.sourceCluster}</span> after the failover: the failback truncates them away. Export them first.
            </p>
          )}
          {rebuilt.length > 0 && (
            <p className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50" data-testid="failback-rebuild">
              ▲ <span className="font-mono">{mirror.sourceCluster}</span> is a Kafka cluster, which no client can truncate: the failback <strong>rebuilds</strong>{' '}
              {rebuilt.length === 1 ? 'topic' : 'topics'} <span className="font-mono">{rebuilt.join(', ')}</span>. Each is deleted and created again (same partitions and configs), then
              mirrored back from <span className="font-mono">{mirror.destinationCluster}</span> from its log start; the records below are lost.
            </p>
          )}
          <SplitBrainNotice mirror={mirror.name} />
          <ExportRemovedRecords cluster={mirror.sourceCluster} ranges={ranges} total={totals.recordsToRemove} fileName={`failback-${state.reverseName}-removed-records.ndjson`} />
          <TruncationTable linkMirror={mirror.name} entries={plan.data.partitions} oldSource={mirror.sourceCluster} newSource={mirror.destinationCluster} before />
        </>
      )}

      {state.step === 'confirm' && plan.data && totals && (
        <form
          className="space-y-4"
          onSubmit={(event) => {
            event.preventDefault()
            submit()
          }}
        >
          {state.refusal !== null && <ErrorPanel error={refusalError} title="The failback was refused" />}
          <p className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-950 dark:border-red-900 dark:bg-red-950/50 dark:text-red-100">
            This creates mirror <span className="font-mono font-semibold">{state.reverseName}</span> from <span className="font-mono">{mirror.destinationCluster}</span> to{' '}
            <span className="font-mono">{mirror.sourceCluster}</span>: {counted(totals.partitionsTruncated, 'partition')} of <span className="font-mono">{mirror.sourceCluster}</span> are cut back
            {rebuilt.length > 0 ? ` (${rebuilt.length === 1 ? 'its topic is' : `${formatCount(rebuilt.length)} topics are`} rebuilt: deleted, created again and mirrored back)` : ''} and{' '}
            {counted(totals.recordsToRemove, 'record')} {totals.recordsToRemove === 1 ? 'is' : 'are'} removed for good, then its topics are read-only mirror topics.
          </p>
          <div>
            <label htmlFor="failback-confirmation" className="block text-sm font-medium">
              Type the old source&apos;s name <span className="font-mono font-semibold">{mirror.sourceCluster}</span> to confirm
            </label>
            <input
              id="failback-confirmation"
              autoComplete="off"
              spellCheck={false}
              value={state.confirmation}
              onChange={(event) => dispatch({ type: 'confirmationTyped', text: event.target.value })}
              className="mt-1 w-full max-w-md rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
            />
          </div>
          <button
            type="submit"
            disabled={!canCreate(state, mirror.sourceCluster)}
            className="inline-flex items-center rounded-md bg-red-600 px-4 py-2 text-sm font-semibold text-white hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:cursor-not-allowed disabled:opacity-50"
          >
            {state.submitting ? 'Failing back…' : `Fail back to ${mirror.sourceCluster}`}
          </button>
        </form>
      )}

      {state.step === 'progress' && <FailbackProgressView name={state.reverseName} expected={total} onDone={() => dispatch({ type: 'allMirroring' })} />}
      {state.step === 'done' && <FailbackDone mirror={mirror} reverseName={state.reverseName} />}
    </StepWizard>
  )
}

