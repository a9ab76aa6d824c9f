'use client'

import { useState, type FormEvent } from 'react'
import { dateTime, formatDuration } from '@/lib/ui/format'
import { useCanSomewhere, useMayAct } from '@/components/data/session-context'
import { useCreateSilence, useDeleteSilence, useSilences } from '@/components/data/use-alerts'
import { useMirrors } from '@/components/data/use-mirrors'
import { Field, Refusal, inputClass } from '@/components/manage/form-controls'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { useNow } from '@/components/ui/relative-time'

/** How long a new silence lasts: always an end, never "until further notice". */
const DURATIONS = [
  { label: '30 minutes', ms: 30 * 60_000 },
  { label: '1 hour', ms: 60 * 60_000 },
  { label: '4 hours', ms: 4 * 60 * 60_000 },
  { label: '1 day', ms: 24 * 60 * 60_000 },
  { label: '7 days', ms: 7 * 24 * 60 * 60_000 },
] as const

/** Offers the mirrors the person operates: an operator scoped to some mirrors silences those (the API checks the same). */
function AddSilenceForm({ mayOperate }: { mayOperate: (resource: { mirror: string }) => boolean }) {
  const create = useCreateSilence()
  const mirrors = useMirrors()
  const names = (mirrors.data?.mirrors ?? []).map((mirror) => mirror.name).filter((name) => mayOperate({ mirror: name }))
  const [mirror, setMirror] = useState('')
  const [duration, setDuration] = useState<number>(DURATIONS[1].ms)
  const [comment, setComment] = useState('')
  const chosen = mirror || names[0] || ''
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ mirror: chosen, until: Date.now() + duration, comment: comment.trim() }, { onSuccess: () => setComment('') })
  }
  if (mirrors.data !== undefined && names.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-300">There is no mirror you may silence.</p>
  return (
    <form onSubmit={submit} aria-label="Silence a mirror" className="space-y-3 border-t border-slate-100 pt-4 dark:border-slate-800">
      <div className="grid gap-3 sm:grid-cols-[minmax(0,12rem)_minmax(0,10rem)_minmax(0,1fr)]">
        <Field id="silence-mirror" label="Mirror">
          <select id="silence-mirror" className={inputClass} value={chosen} onChange={(event) => setMirror(event.target.value)}>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="silence-duration" label="For">
          <select id="silence-duration" className={inputClass} value={duration} onChange={(event) => setDuration(Number(event.target.value))}>
            {DURATIONS.map((option) => (
              <option key={option.ms} value={option.ms}>
                {option.label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="silence-comment" label="Why">
          <input id="silence-comment" className={inputClass} value={comment} onChange={(event) => setComment(event.target.value)} required maxLength={500} placeholder="planned maintenance of the source" />
        </Field>
      </div>
      <button type="submit" className={buttonClass('secondary')} disabled={create.isPending || chosen === ''}>
        {create.isPending ? 'Silencing…' : 'Silence deliveries'}
      </button>
      {create.error !== null && <Refusal error={create.error} title="The silence was not created" />}
    </form>
  )
}

/** Silences: a mirror's alerts still show, but reach no receiver until the silence ends. Each is in the audit log. */
export function SilencesPanel() {
  const silences = useSilences()
  const remove = useDeleteSilence()
  const mayOperate = useMayAct('operator')
  const operatesSomewhere = useCanSomewhere('operator')
  const now = useNow()
  const list = (silences.data?.silences ?? []).filter((silence) => now === 0 || silence.until > now)
  return (
    <Panel id="silences" title={silences.data === undefined ? 'Silences' : `Silences (${list.length})`}>
      <div className="space-y-4">
        {silences.error !== null && silences.data === undefined ? (
          <ErrorPanel error={silences.error} title="Could not load the silences" onRetry={() => void silences.refetch()} />
        ) : silences.data === undefined ? (
          <Skeleton className="h-10 w-full" />
        ) : list.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">No silence: every alert is delivered.</p>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {list.map((silence) => (
              <li key={silence.id} className="flex flex-wrap items-start gap-x-3 gap-y-1 py-2.5 first:pt-0 last:pb-0" aria-label={`Silence of ${silence.mirror}`}>
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-semibold break-all">{silence.mirror}</p>
                  <p className="text-sm">
                    until <time dateTime={new Date(silence.until).toISOString()}>{dateTime(silence.until)}</time>
                    {now !== 0 && <span className="text-slate-600 dark:text-slate-400"> · {formatDuration(silence.until - now)} left</span>}
                  </p>
                  <p className="text-xs break-words text-slate-600 dark:text-slate-400">
                    “{silence.comment}” · by {silence.createdBy}
                  </p>
                </div>
                {mayOperate({ mirror: silence.mirror }) && (
                  <button type="button" className={buttonClass('ghost', 'sm')} disabled={remove.isPending} onClick={() => remove.mutate(silence.id)}>
                    End now
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        {remove.error !== null && <Refusal error={remove.error} title="Could not end the silence" />}
        {operatesSomewhere && <AddSilenceForm mayOperate={mayOperate} />}
      </div>
    </Panel>
  )
}
