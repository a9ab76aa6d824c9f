'use client'

import { useId, useState } from 'react'
import { usePatchTopicConfigs, useTopicConfigs } from '@/components/data/use-cluster-admin'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { PatchTopicConfigsRequest, type Topic } from '@/lib/api/topics'
import { parseProperties } from '@/lib/ui/form-issues'
import { controlProps, Field, monoInputClass } from './form-controls'
import { ManageForm } from './manage-form'
import { ReviewStep, useReview } from './review-step'
import { useFormIssues } from './use-form-issues'

function propertiesText(configs: Readonly<Record<string, string>>): string {
  return Object.entries(configs)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')
}

/** Kafka's IncrementalAlterConfigs: the topic's dynamic configs as key=value lines; what changed is set, what was removed is deleted. */
export function TopicConfigsForm({ cluster, topic, onDone }: { cluster: string; topic: Topic; onDone: (text: string) => void }) {
  const configs = useTopicConfigs(cluster, topic.name)
  if (configs.isPending) return <Skeleton className="h-32 w-full" />
  if (configs.isError) return <ErrorPanel compact error={configs.error} title="Could not read the configs" onRetry={() => void configs.refetch()} />
  return <ConfigsEditor cluster={cluster} topic={topic} current={configs.data.configs} onDone={onDone} />
}

function ConfigsEditor({ cluster, topic, current, onDone }: { cluster: string; topic: Topic; current: Readonly<Record<string, string>>; onDone: (text: string) => void }) {
  const id = useId()
  const mutation = usePatchTopicConfigs(cluster, topic.name)
  const [text, setText] = useState(() => propertiesText(current))
  const { reviewing, review, back } = useReview(mutation)
  const parsed = parseProperties(text)
  const set = Object.fromEntries(Object.entries(parsed.values).filter(([key, value]) => current[key] !== value))
  const removed = Object.keys(current).filter((key) => !Object.hasOwn(parsed.values, key))
  const request = { ...(Object.keys(set).length === 0 ? {} : { set }), ...(removed.length === 0 ? {} : { delete: removed }) }
  const form = useFormIssues(PatchTopicConfigsRequest, request)
  const changed = Object.keys(set).length + removed.length
  const badLines = parsed.badLines.length > 0 ? `line ${parsed.badLines.join(', ')}: write key=value` : undefined
  const issue = changed === 0 ? undefined : (badLines ?? form.issue('set') ?? form.issue('delete'))
  if (reviewing) {
    return (
      <ReviewStep
        effect={
          <div className="space-y-1">
            <p>Changes {changed === 1 ? 'one config' : `${changed} configs`} of {topic.name}, at once, on every partition:</p>
            <ul className="font-mono text-xs">
              {Object.entries(set).map(([key, value]) => (
                <li key={key}>
                  set {key}={value}
                  {current[key] !== undefined && <span className="text-slate-500 dark:text-slate-400"> (was {current[key]})</span>}
                </li>
              ))}
              {removed.map((key) => (
                <li key={key}>delete {key} (back to the cluster default)</li>
              ))}
            </ul>
            {topic.mirror !== null && <p>Allowed on a mirror topic (KIP-1279); the mirror’s own config sync may set synced configs back at its next refresh.</p>}
          </div>
        }
        confirmLabel="Apply the configs"
        destructive={false}
        pending={mutation.isPending}
        error={mutation.error}
        onBack={back}
        onConfirm={() => mutation.mutate(PatchTopicConfigsRequest.parse(request), { onSuccess: () => onDone(`Updated ${changed === 1 ? 'one config' : `${changed} configs`} of ${topic.name}.`) })}
      />
    )
  }
  return (
    <ManageForm
      label="Edit configs"
      onSubmit={() => {
        if (changed > 0 && badLines === undefined && form.check()) review()
      }}
      actions={
        <>
          <span className="text-xs text-slate-600 dark:text-slate-400">{changed === 0 ? 'No change yet' : `${changed} changed`}</span>
          <button type="submit" disabled={changed === 0} className={buttonClass('primary')}>
            Review
          </button>
        </>
      }
    >
      <Field id={`${id}-configs`} label="Dynamic configs" hint="key=value one a line; remove a line to go back to the default." issue={issue}>
        <textarea {...controlProps(`${id}-configs`, true, issue)} rows={6} value={text} onChange={(event) => setText(event.target.value)} onBlur={() => form.touch('set')} spellCheck={false} className={`${monoInputClass} text-xs`} />
      </Field>
    </ManageForm>
  )
}
