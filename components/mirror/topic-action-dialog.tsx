'use client'

import { useState } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useMirrorTopicsMutation, type TopicAction } from '@/components/data/use-mirror-actions'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel } from '@/components/ui/error-panel'
import { COMMAND_PRECONDITIONS } from '@/lib/mirror/preconditions'
import { TopicChecklist } from './topic-checklist'
import { formatInteger } from '@/lib/ui/format'

export interface ActionResult {
  readonly action: string
  readonly text: string
}

// The states each action applies to come from the transition table (lib/mirror/preconditions.ts), as the
// engine's checks do: the dialog's counts never disagree with what the API then accepts.
const ACTIONS = {
  pause: {
    title: 'Pause mirroring',
    verb: 'Pause',
    done: 'Pause requested',
    affects: COMMAND_PRECONDITIONS.pause,
    affectsLabel: 'mirroring or failed',
    effect: 'The destination stops fetching these partitions. What is mirrored stays; lag grows until you resume.',
  },
  resume: {
    title: 'Resume mirroring',
    verb: 'Resume',
    done: 'Resume requested',
    affects: COMMAND_PRECONDITIONS.resume,
    affectsLabel: 'paused',
    effect: 'Fetching restarts where each partition stopped; nothing is truncated.',
  },
  recover: {
    title: 'Recover failed partitions',
    verb: 'Recover',
    done: 'Recovery requested',
    affects: COMMAND_PRECONDITIONS.recover,
    affectsLabel: 'failed',
    effect: 'Each FAILED partition is retried now and returns to the state it failed in; the retry counter restarts.',
  },
} as const satisfies Record<TopicAction, unknown>

/** Confirms a pause, resume or recover on chosen topics, naming the effect and how many partitions it touches. */
export function TopicActionDialog({
  mirror,
  action,
  store,
  topics,
  onClose,
  onDone,
}: {
  mirror: string
  action: TopicAction
  store: MirrorPartitionStore
  topics: readonly string[]
  onClose: () => void
  onDone: (result: ActionResult) => void
}) {
  const look = ACTIONS[action]
  const mutation = useMirrorTopicsMutation(mirror, action)
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set(topics))
  const perTopic = new Map<string, { partitions: number; affected: number }>()
  for (const row of store.values()) {
    const entry = perTopic.get(row.topic) ?? { partitions: 0, affected: 0 }
    entry.partitions += 1
    if (look.affects.includes(row.state)) entry.affected += 1
    perTopic.set(row.topic, entry)
  }
  let partitions = 0
  let affected = 0
  for (const topic of selected) {
    partitions += perTopic.get(topic)?.partitions ?? 0
    affected += perTopic.get(topic)?.affected ?? 0
  }
  const all = selected.size === topics.length
  const confirm = () => {
    if (selected.size === 0 || mutation.isPending) return
    const chosen = [...selected]
    mutation.mutate(all ? undefined : chosen, {
      onSuccess: (answer) =>
        onDone({
          action,
          text: `${look.done} for ${answer.topics.length === 1 ? `topic ${answer.topics[0]}` : `${answer.topics.length} topics`} (${formatInteger(affected)} ${look.affectsLabel} of ${formatInteger(partitions)} partitions). States update in the table as partitions move.`,
        }),
    })
  }
  return (
    <ConfirmDialog
      open
      title={look.title}
      confirmLabel={selected.size === 0 ? 'Choose topics' : `${look.verb} ${formatInteger(affected)} ${affected === 1 ? 'partition' : 'partitions'}`}
      pending={mutation.isPending}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <div className="flex flex-col gap-3">
        <p>{look.effect}</p>
        <TopicChecklist
          legend={`Topics of ${mirror}`}
          topics={topics.map((topic) => {
            const entry = perTopic.get(topic)
            return { topic, note: entry === undefined ? undefined : `${formatInteger(entry.affected)} ${look.affectsLabel} / ${formatInteger(entry.partitions)}` }
          })}
          selected={selected}
          onChange={setSelected}
          disabled={mutation.isPending}
        />
        <p className="font-medium text-slate-900 dark:text-slate-100" data-testid="action-scope">
          {selected.size === 0
            ? 'No topic chosen.'
            : `${look.verb} ${all ? 'every topic' : `${selected.size} of ${topics.length} topics`}: ${formatInteger(affected)} of ${formatInteger(partitions)} partitions are ${look.affectsLabel}.`}
        </p>
        {selected.size > 0 && affected === 0 && !mutation.isError && (
          <p className="rounded-md bg-amber-50 px-3 py-2 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
            <span aria-hidden>⚠ </span>None of the chosen partitions is {look.affectsLabel}: the server will refuse the request if any of them is in a state
            that cannot {action}.
          </p>
        )}
        {mutation.isError && <ErrorPanel compact error={mutation.error} title={`${look.verb} refused`} />}
      </div>
    </ConfirmDialog>
  )
}
