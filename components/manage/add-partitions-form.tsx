'use client'

import { useId, useState } from 'react'
import { useCreatePartitions } from '@/components/data/use-cluster-admin'
import { buttonClass } from '@/components/ui/button-class'
import { CreatePartitionsRequest, type Topic } from '@/lib/api/topics'
import { numberOrUndefined } from '@/lib/ui/form-issues'
import { controlProps, Field, inputClass } from './form-controls'
import { ManageForm } from './manage-form'
import { ReviewStep, useReview } from './review-step'
import { useFormIssues } from './use-form-issues'

export function AddPartitionsForm({ cluster, topic, onDone }: { cluster: string; topic: Topic; onDone: (text: string) => void }) {
  const id = useId()
  const mutation = useCreatePartitions(cluster, topic.name)
  const [count, setCount] = useState(String(topic.partitions + 1))
  const { reviewing, review, back } = useReview(mutation)
  const total = numberOrUndefined(count) ?? Number.NaN
  const form = useFormIssues(CreatePartitionsRequest, { count: total })
  const notLarger = Number.isInteger(total) && total <= topic.partitions ? `must be more than the ${topic.partitions} it has (partitions are never removed)` : undefined
  const issue = form.issue('count') ?? notLarger
  if (reviewing) {
    const added = total - topic.partitions
    return (
      <ReviewStep
        effect={
          <p>
            {topic.name} goes from {topic.partitions} to {total} partitions ({added} new, empty). Keys hash to other partitions from now on, so records of one key
            may land in a new partition: per-key order holds only within each partition. Partitions cannot be removed again.
          </p>
        }
        confirmLabel={`Add ${added} ${added === 1 ? 'partition' : 'partitions'}`}
        destructive={false}
        pending={mutation.isPending}
        error={mutation.error}
        onBack={back}
        onConfirm={() => mutation.mutate(total, { onSuccess: (updated) => onDone(`${updated.name} now has ${updated.partitions} partitions.`) })}
      />
    )
  }
  return (
    <ManageForm
      label="Add partitions"
      onSubmit={() => {
        if (form.check() && notLarger === undefined) review()
      }}
      actions={
        <button type="submit" className={buttonClass('primary')}>
          Review
        </button>
      }
    >
      <Field id={`${id}-count`} label="New partition count" hint={`The new total; ${topic.name} has ${topic.partitions} now.`} issue={issue}>
        <input {...controlProps(`${id}-count`, true, issue)} inputMode="numeric" value={count} onChange={(event) => setCount(event.target.value)} onBlur={() => form.touch('count')} className={`${inputClass} tabular-nums sm:w-40`} />
      </Field>
    </ManageForm>
  )
}
