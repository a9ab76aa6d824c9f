'use client'

import { useId, useState } from 'react'
import { useDeleteRecords, useTopicPartitions } from '@/components/data/use-cluster-admin'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { DeleteRecordsRequest, type Topic } from '@/lib/api/topics'
import { formatInteger, formatOffset } from '@/lib/ui/format'
import { numberOrUndefined } from '@/lib/ui/form-issues'
import { controlProps, Field, inputClass } from './form-controls'
import { ManageForm } from './manage-form'
import { ReviewStep, useReview } from './review-step'
import { useFormIssues } from './use-form-issues'

/** Kafka's DeleteRecords: moves a partition's log start offset up; the records below it are gone. */
export function DeleteRecordsForm({ cluster, topic, onDone }: { cluster: string; topic: Topic; onDone: (text: string) => void }) {
  const id = useId()
  const partitions = useTopicPartitions(cluster, topic.name)
  const mutation = useDeleteRecords(cluster, topic.name)
  const [partition, setPartition] = useState(0)
  const [before, setBefore] = useState('')
  const { reviewing, review, back } = useReview(mutation)
  const beforeOffset = numberOrUndefined(before) ?? Number.NaN
  const form = useFormIssues(DeleteRecordsRequest, { beforeOffset })
  const info = partitions.data?.partitions.find((entry) => entry.partition === partition)
  const beyond = info !== undefined && Number.isInteger(beforeOffset) && beforeOffset > info.highWatermark ? `at most the high watermark, ${info.highWatermark}` : undefined
  const issue = form.issue('beforeOffset') ?? beyond
  if (partitions.isPending) return <Skeleton className="h-32 w-full" />
  if (partitions.isError) return <ErrorPanel compact error={partitions.error} title="Could not read the partitions" onRetry={() => void partitions.refetch()} />
  if (reviewing && info !== undefined) {
    const removed = Math.max(0, beforeOffset - info.logStartOffset)
    return (
      <ReviewStep
        effect={
          <p>
            Deletes every record of {topic.name}-{partition} below offset {formatOffset(beforeOffset)}: the log start moves from {formatOffset(info.logStartOffset)} to{' '}
            {formatOffset(Math.max(beforeOffset, info.logStartOffset))}, removing {formatInteger(removed)} {removed === 1 ? 'offset' : 'offsets'}. Consumers behind it
            jump ahead; the records cannot be read again.
          </p>
        }
        confirmLabel={`Delete records below ${beforeOffset}`}
        destructive
        pending={mutation.isPending}
        error={mutation.error}
        onBack={back}
        onConfirm={() => mutation.mutate({ partition, beforeOffset }, { onSuccess: (answer) => onDone(`${topic.name}-${partition} now starts at offset ${answer.logStartOffset}.`) })}
      />
    )
  }
  return (
    <ManageForm
      label="Delete records"
      onSubmit={() => {
        if (form.check() && beyond === undefined) review()
      }}
      actions={
        <button type="submit" className={buttonClass('primary')}>
          Review
        </button>
      }
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-partition`} label="Partition">
          <select id={`${id}-partition`} value={partition} onChange={(event) => setPartition(Number(event.target.value))} className={`${inputClass} tabular-nums`}>
            {(partitions.data?.partitions ?? []).map((entry) => (
              <option key={entry.partition} value={entry.partition}>
                {entry.partition} (offsets {entry.logStartOffset} to {entry.highWatermark})
              </option>
            ))}
          </select>
        </Field>
        <Field
          id={`${id}-before`}
          label="Delete before offset"
          hint={info === undefined ? undefined : `Log start ${formatOffset(info.logStartOffset)}, high watermark ${formatOffset(info.highWatermark)}.`}
          issue={issue}
        >
          <input {...controlProps(`${id}-before`, info === undefined ? undefined : true, issue)} inputMode="numeric" value={before} onChange={(event) => setBefore(event.target.value)} onBlur={() => form.touch('beforeOffset')} className={`${inputClass} tabular-nums`} />
        </Field>
      </div>
    </ManageForm>
  )
}
