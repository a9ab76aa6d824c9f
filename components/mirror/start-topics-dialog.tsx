'use client'

import { useMemo, useState } from 'react'
import { useTopics } from '@/components/data/use-clusters'
import { useStartTopicsMutation } from '@/components/data/use-mirror-actions'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import type { TruncationPlan } from '@/lib/api/mirrors'
import { counted, formatInteger, formatOffset } from '@/lib/ui/format'
import type { ActionResult } from './topic-action-dialog'
import { TopicChecklist } from './topic-checklist'

/** Partitions listed in the plan; the rest are summed in its totals (a 1,000-partition topic stays readable). */
const PLAN_ROWS_SHOWN = 200

/**
 * Starts mirroring source topics the mirror does not mirror yet, in two steps: the dry run's truncation plan
 * (where each destination partition is cut and how many records that removes) and then the real start.
 * Changing the selection drops the plan, so what is confirmed is always what was previewed.
 */
export function StartTopicsDialog({
  mirror,
  sourceCluster,
  mirrored,
  onClose,
  onDone,
}: {
  mirror: string
  sourceCluster: string
  mirrored: readonly string[]
  onClose: () => void
  onDone: (result: ActionResult) => void
}) {
  const sourceTopics = useTopics(sourceCluster)
  const mutation = useStartTopicsMutation(mirror)
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [plan, setPlan] = useState<TruncationPlan | null>(null)
  const candidates = useMemo(() => {
    const taken = new Set(mirrored)
    return (sourceTopics.data?.topics ?? []).filter((topic) => !taken.has(topic.name) && !topic.name.startsWith('__')).sort((a, b) => (a.name < b.name ? -1 : 1))
  }, [mirrored, sourceTopics.data])

  const choose = (next: ReadonlySet<string>) => {
    setSelected(next)
    setPlan(null)
    mutation.reset()
  }
  const topics = [...selected].sort()
  const confirm = () => {
    if (topics.length === 0 || mutation.isPending) return
    if (plan === null) {
      mutation.mutate({ topics, dryRun: true }, { onSuccess: (answer) => setPlan('plan' in answer ? { ...answer.plan, partitions: [...answer.plan.partitions].sort((a, b) => b.recordsToRemove - a.recordsToRemove) } : null) })
      return
    }
    mutation.mutate(
      { topics, dryRun: false },
      {
        onSuccess: (answer) =>
          onDone({
            action: 'start',
            text: `Started ${'topics' in answer ? answer.topics.join(', ') : topics.join(', ')}: ${counted(plan.partitions.length, 'partition')} ${plan.partitions.length === 1 ? 'goes' : 'go'} through PREPARING to MIRRORING.`,
          }),
      },
    )
  }
  const removed = plan?.partitions.reduce((sum, entry) => sum + entry.recordsToRemove, 0) ?? 0
  return (
    <ConfirmDialog
      open
      title="Start mirroring topics"
      confirmLabel={topics.length === 0 ? 'Choose topics' : plan === null ? 'Preview the plan' : `Start ${topics.length} ${topics.length === 1 ? 'topic' : 'topics'}`}
      pending={mutation.isPending}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <div className="flex flex-col gap-3">
        <p>
          Topics of <span className="font-mono">{sourceCluster}</span> this mirror does not mirror yet. Each partition is created read-only on the destination,
          truncated to what it shares with the source, then fetched.
        </p>
        {sourceTopics.isPending ? (
          <Skeleton className="h-24 w-full" />
        ) : sourceTopics.isError ? (
          <ErrorPanel compact error={sourceTopics.error} title={`Could not list the topics of ${sourceCluster}`} onRetry={() => void sourceTopics.refetch()} />
        ) : candidates.length === 0 ? (
          <p className="rounded-md bg-slate-50 p-3 text-slate-600 dark:bg-slate-800 dark:text-slate-300">Every topic of {sourceCluster} is already mirrored.</p>
        ) : (
          <TopicChecklist
            legend="Source topics"
            topics={candidates.map((topic) => ({ topic: topic.name, note: `${topic.partitions} ${topic.partitions === 1 ? 'partition' : 'partitions'}` }))}
            selected={selected}
            onChange={choose}
            disabled={mutation.isPending}
          />
        )}
        {plan !== null && (
          <section aria-label="Truncation plan" className="rounded-md border border-slate-200 dark:border-slate-700">
            <p className="border-b border-slate-200 px-3 py-2 font-medium text-slate-900 dark:border-slate-700 dark:text-slate-100" data-testid="start-plan-total">
              {counted(plan.partitions.length, 'partition')} · {removed === 0 ? 'no destination record is removed' : `${formatInteger(removed)} destination records removed`}
            </p>
            <div className="max-h-48 overflow-auto">
              <table className="w-full text-left text-xs">
                <thead className="sticky top-0 bg-slate-50 text-slate-600 dark:bg-slate-800 dark:text-slate-300">
                  <tr>
                    <th scope="col" className="px-3 py-1 font-semibold">Partition</th>
                    <th scope="col" className="px-3 py-1 text-right font-semibold">Truncate to</th>
                    <th scope="col" className="px-3 py-1 text-right font-semibold">Records removed</th>
                  </tr>
                </thead>
                <tbody>
                  {plan.partitions.slice(0, PLAN_ROWS_SHOWN).map((entry) => (
                    <tr key={`${entry.topic}/${entry.partition}`} className="border-t border-slate-100 dark:border-slate-800">
                      <td className="px-3 py-1 font-mono">
                        {entry.topic}/{entry.partition}
                      </td>
                      <td className="px-3 py-1 text-right tabular-nums">{entry.truncateTo === null ? 'whole log' : formatOffset(entry.truncateTo)}</td>
                      <td className={`px-3 py-1 text-right tabular-nums ${entry.recordsToRemove > 0 ? 'font-semibold text-red-700 dark:text-red-300' : ''}`}>
                        {formatOffset(entry.recordsToRemove)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {plan.partitions.length > PLAN_ROWS_SHOWN && (
                <p className="px-3 py-1.5 text-xs text-slate-600 dark:text-slate-400">
                  and {formatInteger((plan.partitions.length - PLAN_ROWS_SHOWN))} more partitions (the totals above count them all)
                </p>
              )}
            </div>
          </section>
        )}
        {mutation.isError && <ErrorPanel compact error={mutation.error} title={plan === null ? 'Dry run refused' : 'Start refused'} />}
      </div>
    </ConfirmDialog>
  )
}
