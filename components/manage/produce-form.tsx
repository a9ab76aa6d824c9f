'use client'

import { useId, useState } from 'react'
import { useProduceRecord } from '@/components/data/use-cluster-admin'
import { buttonClass } from '@/components/ui/button-class'
import { ProduceRequest } from '@/lib/api/records'
import type { Topic } from '@/lib/api/topics'
import { numberOrUndefined, parseProperties } from '@/lib/ui/form-issues'
import { controlProps, Field, inputClass, monoInputClass } from './form-controls'
import { ManageForm } from './manage-form'
import { useFormIssues } from './use-form-issues'

/**
 * A test record for smoke checks: key, value and headers, to a partition or (empty) where the key hashes.
 * Written by an idempotent producer; a mirror topic that is not STOPPED refuses it with TOPIC_READ_ONLY.
 */
export function ProduceForm({ cluster, topic }: { cluster: string; topic: Topic }) {
  const id = useId()
  const mutation = useProduceRecord(cluster, topic.name)
  const [partition, setPartition] = useState('')
  const [key, setKey] = useState('')
  const [value, setValue] = useState('')
  const [headers, setHeaders] = useState('')
  const parsedHeaders = parseProperties(headers)
  const chosen = numberOrUndefined(partition)
  const request = {
    ...(chosen === undefined ? {} : { partition: chosen }),
    records: [
      {
        ...(key === '' ? {} : { key }),
        value,
        ...(Object.keys(parsedHeaders.values).length === 0 ? {} : { headers: Object.entries(parsedHeaders.values).map(([name, text]) => ({ key: name, value: text })) }),
      },
    ],
  }
  const form = useFormIssues(ProduceRequest, request)
  const outOfRange = chosen !== undefined && Number.isInteger(chosen) && chosen >= topic.partitions ? `${topic.name} has partitions 0 to ${topic.partitions - 1}` : undefined
  const partitionIssue = form.issue('partition') ?? outOfRange
  const headerIssue = parsedHeaders.badLines.length > 0 ? `line ${parsedHeaders.badLines.join(', ')}: write key=value` : undefined
  const submit = () => {
    if (mutation.isPending || !form.check() || outOfRange !== undefined || headerIssue !== undefined) return
    mutation.mutate(ProduceRequest.parse(request))
  }
  const written = mutation.data?.records[0]
  return (
    <ManageForm
      label="Produce a test record"
      onSubmit={submit}
      actions={
        <button type="submit" disabled={mutation.isPending} className={buttonClass('primary')}>
          {mutation.isPending ? 'Producing…' : 'Produce the record'}
        </button>
      }
      refusal={mutation.isError ? { error: mutation.error, title: 'Produce refused' } : null}
      done={
        written !== undefined && (
          <>
            Written to {topic.name}-{written.partition} at offset {written.offset}.
          </>
        )
      }
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-key`} label="Key" hint="Empty: no key.">
          <input {...controlProps(`${id}-key`, true, undefined)} value={key} onChange={(event) => setKey(event.target.value)} autoComplete="off" spellCheck={false} className={monoInputClass} />
        </Field>
        <Field id={`${id}-partition`} label="Partition" hint="Empty: where the key hashes (round robin without a key)." issue={partitionIssue}>
          <input {...controlProps(`${id}-partition`, true, partitionIssue)} inputMode="numeric" value={partition} onChange={(event) => setPartition(event.target.value)} onBlur={() => form.touch('partition')} className={`${inputClass} tabular-nums`} />
        </Field>
      </div>
      <Field id={`${id}-value`} label="Value" hint="UTF-8 text.">
        <textarea {...controlProps(`${id}-value`, true, undefined)} rows={2} value={value} onChange={(event) => setValue(event.target.value)} spellCheck={false} className={`${monoInputClass} text-xs`} />
      </Field>
      <Field id={`${id}-headers`} label="Headers" hint="key=value one a line." issue={headerIssue}>
        <textarea {...controlProps(`${id}-headers`, true, headerIssue)} rows={2} value={headers} onChange={(event) => setHeaders(event.target.value)} spellCheck={false} className={`${monoInputClass} text-xs`} />
      </Field>
    </ManageForm>
  )
}
