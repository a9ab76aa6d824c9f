'use client'

import { useState, type FormEvent } from 'react'
import type { Delivery, Receiver, ReceiverFormat } from '@/lib/api/alerts'
import { RECEIVER_FORMAT_LABEL } from '@/lib/ui/alert-style'
import { useCan } from '@/components/data/session-context'
import { useCreateReceiver, useDeleteReceiver, useReceivers, useTestReceiver } from '@/components/data/use-alerts'
import { Field, Refusal, inputClass, monoInputClass } from '@/components/manage/form-controls'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'

function LastDelivery({ receiver }: { receiver: Receiver }) {
  const delivery: Delivery | null = receiver.lastDelivery
  if (delivery === null) return <p className="text-xs text-slate-600 dark:text-slate-400">Nothing delivered yet.</p>
  const tries = delivery.attempts > 1 ? ` after ${delivery.attempts} attempts` : ''
  return (
    <p className={`text-xs ${delivery.ok ? 'text-emerald-800 dark:text-emerald-300' : 'font-medium text-red-800 dark:text-red-300'}`} data-testid="last-delivery">
      <span aria-hidden>{delivery.ok ? '✓ ' : '✕ '}</span>
      {delivery.ok ? 'Delivered' : `Failing: ${delivery.error ?? 'not delivered'}`}
      {tries} · {delivery.what} · <RelativeTime at={delivery.at} />
      {receiver.retrying > 0 && <span className="text-slate-700 dark:text-slate-300"> · retrying with backoff</span>}
    </p>
  )
}

function ReceiverRow({ receiver, canOperate }: { receiver: Receiver; canOperate: boolean }) {
  const test = useTestReceiver()
  const remove = useDeleteReceiver()
  return (
    <li className="space-y-1.5 py-3 first:pt-0 last:pb-0" aria-label={`Receiver ${receiver.name}`}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="font-semibold text-slate-900 dark:text-white">{receiver.name}</span>
        <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-200">{RECEIVER_FORMAT_LABEL[receiver.format]}</span>
        {canOperate && (
          <span className="ml-auto flex gap-2">
            <button type="button" className={buttonClass('secondary', 'sm')} disabled={test.isPending} onClick={() => test.mutate(receiver.name)}>
              {test.isPending ? 'Sending…' : 'Send test alert'}
            </button>
            <button type="button" className={buttonClass('ghost', 'sm')} disabled={remove.isPending} onClick={() => remove.mutate(receiver.name)}>
              Remove
            </button>
          </span>
        )}
      </div>
      <p className="font-mono text-xs break-all text-slate-700 dark:text-slate-300">{receiver.url}</p>
      <LastDelivery receiver={receiver} />
      {test.error !== null && <Refusal error={test.error} title="Could not send the test alert" />}
      {remove.error !== null && <Refusal error={remove.error} title="Could not remove the receiver" />}
    </li>
  )
}

function AddReceiverForm() {
  const create = useCreateReceiver()
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [format, setFormat] = useState<ReceiverFormat>('webhook')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(
      { name: name.trim(), url: url.trim(), format },
      {
        onSuccess: () => {
          setName('')
          setUrl('')
        },
      },
    )
  }
  return (
    <form onSubmit={submit} aria-label="Add a receiver" className="space-y-3 border-t border-slate-100 pt-4 dark:border-slate-800">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field id="receiver-name" label="Name">
          <input id="receiver-name" className={inputClass} value={name} onChange={(event) => setName(event.target.value)} required autoComplete="off" />
        </Field>
        <Field id="receiver-url" label="URL" className="sm:col-span-2 sm:row-start-2" hint="http or https. Kept secret: shown with its credentials and path tokens hidden.">
          <input id="receiver-url" aria-describedby="receiver-url-hint" className={monoInputClass} value={url} onChange={(event) => setUrl(event.target.value)} required placeholder="https://hooks.example.com/…" autoComplete="off" />
        </Field>
        <Field id="receiver-format" label="Format">
          <select id="receiver-format" className={inputClass} value={format} onChange={(event) => setFormat(event.target.value as ReceiverFormat)}>
            {(Object.keys(RECEIVER_FORMAT_LABEL) as ReceiverFormat[]).map((value) => (
              <option key={value} value={value}>
                {RECEIVER_FORMAT_LABEL[value]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <button type="submit" className={buttonClass('primary')} disabled={create.isPending}>
        {create.isPending ? 'Adding…' : 'Add receiver'}
      </button>
      {create.error !== null && <Refusal error={create.error} title="The receiver was not added" />}
    </form>
  )
}

/** Where alerts go: each receiver's redacted URL and last delivery, a test button, and (operators) add and remove. */
export function ReceiversPanel() {
  const receivers = useReceivers()
  // Receivers reach people outside Mirrorboard: adding and removing them is an administrator's (the operator token is one).
  const canOperate = useCan('admin')
  const list = receivers.data?.receivers ?? []
  return (
    <Panel id="receivers" title={receivers.data === undefined ? 'Receivers' : `Receivers (${list.length})`}>
      <div className="space-y-4">
        {receivers.error !== null && receivers.data === undefined ? (
          <ErrorPanel error={receivers.error} title="Could not load the receivers" onRetry={() => void receivers.refetch()} />
        ) : receivers.data === undefined ? (
          <Skeleton className="h-16 w-full" />
        ) : list.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">No receiver: alerts show here and in the header, and reach no one else. {canOperate ? 'Add a webhook, an Alertmanager or a Slack incoming webhook below.' : 'An administrator can add one.'}</p>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {list.map((receiver) => (
              <ReceiverRow key={receiver.name} receiver={receiver} canOperate={canOperate} />
            ))}
          </ul>
        )}
        {canOperate && <AddReceiverForm />}
      </div>
    </Panel>
  )
}
