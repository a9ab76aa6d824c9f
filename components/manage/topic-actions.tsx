'use client'

import { useState } from 'react'
import { buttonClass } from '@/components/ui/button-class'
import type { Topic } from '@/lib/api/topics'
import { AddPartitionsForm } from './add-partitions-form'
import { announceClusterChange } from './cluster-notices'
import { DeleteRecordsForm } from './delete-records-form'
import { DeleteTopicForm } from './delete-topic-form'
import { Done } from './form-controls'
import { ManageDialog } from './manage-dialog'
import { ProduceForm } from './produce-form'
import { TopicConfigsForm } from './topic-configs-form'

type Action = 'produce' | 'partitions' | 'delete-records' | 'configs' | 'delete-topic'

const ACTIONS: ReadonlyArray<{ action: Action; label: string; destructive: boolean }> = [
  { action: 'produce', label: 'Produce a record', destructive: false },
  { action: 'configs', label: 'Edit configs', destructive: false },
  { action: 'partitions', label: 'Add partitions', destructive: false },
  { action: 'delete-records', label: 'Delete records', destructive: true },
  { action: 'delete-topic', label: 'Delete topic', destructive: true },
]

/** The operator's controls of one topic row: one button, opening the topic's actions. */
export function TopicActions({ cluster, topic }: { cluster: string; topic: Topic }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" className={buttonClass('secondary', 'sm')} aria-label={`Manage topic ${topic.name}`} onClick={() => setOpen(true)}>
        Manage…
      </button>
      {open && <TopicDialog cluster={cluster} topic={topic} onClose={() => setOpen(false)} />}
    </>
  )
}

/**
 * A topic's actions, one at a time. A mirror topic that is not STOPPED is read-only: the cluster refuses
 * producing, adding partitions, deleting records and deleting it with TOPIC_READ_ONLY (configs stay
 * editable, as in the KIP). The note says so up front, and the refusal itself is shown as the API sent it.
 */
function TopicDialog({ cluster, topic, onClose }: { cluster: string; topic: Topic; onClose: () => void }) {
  const [action, setAction] = useState<Action>('produce')
  const [done, setDone] = useState<string | null>(null)
  const choose = (next: Action) => {
    setDone(null)
    setAction(next)
  }
  const finish = (text: string) => {
    // The row (and this dialog with it) goes when the topic does: the cluster page keeps the result.
    if (action === 'delete-topic') announceClusterChange(cluster, text)
    setDone(text)
  }
  return (
    <ManageDialog title={`Topic ${topic.name} on ${cluster}`} onClose={onClose}>
      <div className="space-y-4">
        {topic.readOnly && (
          <p role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50">
            <span aria-hidden>⊘ </span>A read-only mirror topic{topic.mirror !== null ? ` of ${topic.mirror.name}` : ''}: until its partitions are STOPPED (after a failover)
            the cluster refuses writes to it, new partitions, deleting records and deleting it. Configs stay editable.
          </p>
        )}
        <div role="group" aria-label="Topic actions" className="flex flex-wrap gap-1.5">
          {ACTIONS.map((entry) => (
            <button
              key={entry.action}
              type="button"
              aria-pressed={action === entry.action}
              onClick={() => choose(entry.action)}
              className={`rounded-md border px-2.5 py-1 text-xs font-medium focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
                action === entry.action
                  ? 'border-indigo-600 bg-indigo-600 text-white dark:border-indigo-400 dark:bg-indigo-500'
                  : `border-slate-300 bg-white hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-800 dark:hover:bg-slate-700 ${entry.destructive ? 'text-red-800 dark:text-red-300' : 'text-slate-800 dark:text-slate-100'}`
              }`}
            >
              {/* The chosen action is marked by more than its fill. */}
              {action === entry.action && <span aria-hidden>✓ </span>}
              {entry.label}
            </button>
          ))}
        </div>
        {done !== null ? (
          <div className="space-y-3">
            <Done>{done}</Done>
            <div className="flex justify-end">
              <button type="button" className={buttonClass('secondary')} onClick={action === 'delete-topic' ? onClose : () => setDone(null)}>
                {action === 'delete-topic' ? 'Close' : 'Another change'}
              </button>
            </div>
          </div>
        ) : action === 'produce' ? (
          <ProduceForm key="produce" cluster={cluster} topic={topic} />
        ) : action === 'configs' ? (
          <TopicConfigsForm key="configs" cluster={cluster} topic={topic} onDone={finish} />
        ) : action === 'partitions' ? (
          <AddPartitionsForm key={`partitions-${topic.partitions}`} cluster={cluster} topic={topic} onDone={finish} />
        ) : action === 'delete-records' ? (
          <DeleteRecordsForm key="delete-records" cluster={cluster} topic={topic} onDone={finish} />
        ) : (
          <DeleteTopicForm key="delete-topic" cluster={cluster} topic={topic} onDone={finish} onBack={() => choose('produce')} />
        )}
      </div>
    </ManageDialog>
  )
}
