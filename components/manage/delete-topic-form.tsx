'use client'

import { useId, useState } from 'react'
import { useDeleteTopic } from '@/components/data/use-cluster-admin'
import type { Topic } from '@/lib/api/topics'
import { controlProps, Field, monoInputClass } from './form-controls'
import { ReviewStep } from './review-step'

/** Kafka's DeleteTopics, behind the topic's name typed out: the records are gone for good. */
export function DeleteTopicForm({ cluster, topic, onDone, onBack }: { cluster: string; topic: Topic; onDone: (text: string) => void; onBack: () => void }) {
  const id = useId()
  const mutation = useDeleteTopic(cluster, topic.name)
  const [typed, setTyped] = useState('')
  const matches = typed === topic.name
  return (
    <ReviewStep
      effect={
        <p>
          Deletes topic <span className="font-mono font-semibold">{topic.name}</span> from {cluster}: its {topic.partitions} {topic.partitions === 1 ? 'partition' : 'partitions'} with every
          record and the consumer groups’ offsets on it. Producers writing to it get errors; a mirror reading it from here fails its partitions. This cannot be undone.
        </p>
      }
      confirmLabel={`Delete ${topic.name}`}
      destructive
      pending={mutation.isPending}
      error={mutation.error}
      onBack={onBack}
      confirmDisabled={!matches}
      onConfirm={() => {
        if (matches) mutation.mutate(undefined, { onSuccess: () => onDone(`Deleted topic ${topic.name}.`) })
      }}
    >
      <Field id={`${id}-typed`} label={`Type ${topic.name} to confirm`} issue={typed !== '' && !matches ? 'does not match the topic name' : undefined}>
        <input
          {...controlProps(`${id}-typed`, undefined, typed !== '' && !matches ? 'x' : undefined)}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          autoComplete="off"
          spellCheck={false}
          className={monoInputClass}
        />
      </Field>
    </ReviewStep>
  )
}
