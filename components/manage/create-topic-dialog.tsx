'use client'

import { useId, useState } from 'react'
import { useCreateTopic } from '@/components/data/use-cluster-admin'
import { buttonClass } from '@/components/ui/button-class'
import { CreateTopicRequest } from '@/lib/api/topics'
import { numberOrUndefined, parseProperties } from '@/lib/ui/form-issues'
import { controlProps, Field, FieldIssue, inputClass, monoInputClass } from './form-controls'
import { ManageDialog } from './manage-dialog'
import { ManageForm } from './manage-form'
import { ReviewStep, useReview } from './review-step'
import { useFormIssues } from './use-form-issues'
import { counted } from '@/lib/ui/format'

/** Create a topic: name, partitions, replication factor (the cluster's default when empty) and configs. */
export function CreateTopicDialog({ cluster, brokers, onClose, onDone }: { cluster: string; brokers: number; onClose: () => void; onDone: (text: string) => void }) {
  const id = useId()
  const mutation = useCreateTopic(cluster)
  const [name, setName] = useState('')
  const [partitions, setPartitions] = useState('1')
  const [replication, setReplication] = useState('')
  const [configs, setConfigs] = useState('')
  const { reviewing, review, back } = useReview(mutation)
  const parsedConfigs = parseProperties(configs)
  const replicationFactor = numberOrUndefined(replication)
  const request = {
    name,
    partitions: numberOrUndefined(partitions) ?? Number.NaN,
    ...(replicationFactor === undefined ? {} : { replicationFactor }),
    ...(Object.keys(parsedConfigs.values).length === 0 ? {} : { configs: parsedConfigs.values }),
  }
  const form = useFormIssues(CreateTopicRequest, request)
  const tooManyReplicas = replicationFactor !== undefined && replicationFactor > brokers ? `this cluster has ${brokers} ${brokers === 1 ? 'broker' : 'brokers'}` : undefined
  const badLines = parsedConfigs.badLines.length > 0 ? `line ${parsedConfigs.badLines.join(', ')}: write key=value` : undefined

  const configCount = Object.keys(parsedConfigs.values).length
  return (
    <ManageDialog title={`Create a topic on ${cluster}`} onClose={onClose} busy={mutation.isPending}>
      {reviewing ? (
        <ReviewStep
          effect={
            <p>
              Creates <span className="font-mono font-semibold">{name}</span> on {cluster} with {request.partitions} {request.partitions === 1 ? 'partition' : 'partitions'},
              replication factor {replicationFactor ?? `the cluster default (${Math.min(3, brokers)})`}
              {configCount > 0 ? ` and ${configCount} ${configCount === 1 ? 'config' : 'configs'}` : ''}. A mirror whose include patterns match it starts it at its next refresh.
            </p>
          }
          confirmLabel={`Create ${name}`}
          destructive={false}
          pending={mutation.isPending}
          error={mutation.error}
          onBack={back}
          onConfirm={() => mutation.mutate(CreateTopicRequest.parse(request), { onSuccess: (topic) => onDone(`Created topic ${topic.name} with ${counted(topic.partitions, 'partition')}.`) })}
        />
      ) : (
        <ManageForm
          label="New topic"
          onSubmit={() => {
            if (form.check() && badLines === undefined && tooManyReplicas === undefined) review()
          }}
          actions={
            <>
              <button type="button" onClick={onClose} className={buttonClass('secondary')}>
                Cancel
              </button>
              <button type="submit" className={buttonClass('primary')}>
                Review
              </button>
            </>
          }
        >
          <Field id={`${id}-name`} label="Topic name" issue={form.issue('name')}>
            <input {...controlProps(`${id}-name`, undefined, form.issue('name'))} value={name} onChange={(event) => setName(event.target.value)} onBlur={() => form.touch('name')} autoComplete="off" spellCheck={false} className={monoInputClass} />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id={`${id}-partitions`} label="Partitions" hint="1 to 1000; more can be added later, never removed." issue={form.issue('partitions')}>
              <input {...controlProps(`${id}-partitions`, true, form.issue('partitions'))} inputMode="numeric" value={partitions} onChange={(event) => setPartitions(event.target.value)} onBlur={() => form.touch('partitions')} className={`${inputClass} tabular-nums`} />
            </Field>
            <Field id={`${id}-rf`} label="Replication factor" hint={`Empty: the cluster default (${Math.min(3, brokers)}). At most ${brokers}.`} issue={form.issue('replicationFactor') ?? tooManyReplicas}>
              <input
                {...controlProps(`${id}-rf`, true, form.issue('replicationFactor') ?? tooManyReplicas)}
                inputMode="numeric"
                value={replication}
                onChange={(event) => setReplication(event.target.value)}
                onBlur={() => form.touch('replicationFactor')}
                className={`${inputClass} tabular-nums`}
              />
            </Field>
          </div>
          <Field id={`${id}-configs`} label="Configs" hint="Kafka topic configs, key=value one a line (retention.ms=86400000)." issue={form.issue('configs') ?? badLines}>
            <textarea
              {...controlProps(`${id}-configs`, true, form.issue('configs') ?? badLines)}
              rows={3}
              value={configs}
              onChange={(event) => setConfigs(event.target.value)}
              onBlur={() => form.touch('configs')}
              spellCheck={false}
              className={`${monoInputClass} text-xs`}
            />
          </Field>
          {form.issue('') !== undefined && <FieldIssue id={`${id}-form-issue`} issue={form.issue('')!} />}
        </ManageForm>
      )}
    </ManageDialog>
  )
}
