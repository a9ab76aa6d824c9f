'use client'

import Link from 'next/link'
import { useRun } from '@/components/data/use-demo'
import { ErrorPanel } from '@/components/ui/error-panel'
import { RelativeTime } from '@/components/ui/relative-time'
import type { Run, RunStep } from '@/lib/api/demo'
import { currentStepIndex, stepLinks } from '@/lib/ui/demo-step-links'
import { NarrationText } from './narration-text'
import { runStatusLabel, RunStatusBadge, StepMarker } from './run-status'

/**
 * One run's narration, advancing live (the run is re-read every second while it runs, and the event stream
 * writes each step into the cache as it lands): every step with what it did, when, and links to the pages
 * that show it.
 */
export function RunNarration({ initial }: { initial: Run }) {
  const query = useRun(initial.id, initial)
  const run = query.data?.run ?? initial
  const current = currentStepIndex(run.steps)
  const done = run.steps.filter((step) => step.status === 'succeeded').length
  const { sourceCluster, destinationCluster, mirror, topic } = run.context
  return (
    <section aria-label={`Run ${run.id}`} className="min-w-0">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-100 pb-3 text-sm dark:border-slate-800">
        <RunStatusBadge status={run.status} />
        <span className="font-mono text-xs text-slate-600 dark:text-slate-400">run {run.id}</span>
        <span className="text-slate-600 dark:text-slate-300">
          started <RelativeTime at={run.startedAt} />
          {run.finishedAt !== null && (
            <>
              , finished <RelativeTime at={run.finishedAt} />
            </>
          )}
        </span>
        <span className="text-slate-600 dark:text-slate-300">
          {done} of {run.steps.length} steps
        </span>
      </div>
      <p className="mt-2 text-sm break-words text-slate-600 dark:text-slate-300">
        On its own clusters: <ClusterLink name={sourceCluster} /> → <ClusterLink name={destinationCluster} />, mirror{' '}
        <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}`} className={linkClass}>
          {mirror}
        </Link>
        , topic <span className="font-mono">{topic}</span>.
      </p>
      {/* Read out once per step change, not on every poll: the text only changes when a step starts or ends. */}
      <p role="status" className="sr-only">
        {run.status === 'running' || run.status === 'pending'
          ? `Step ${current + 1} of ${run.steps.length}: ${run.steps[current]?.title ?? ''}, ${runStatusLabel(run.steps[current]?.status ?? 'pending').toLowerCase()}`
          : `Run ${runStatusLabel(run.status).toLowerCase()}`}
      </p>
      {run.error !== null && (
        <div className="mt-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100">
          <p className="font-semibold">
            <span aria-hidden>✕ </span>The run failed
          </p>
          <p className="mt-0.5 break-words">{run.error}</p>
        </div>
      )}
      {query.isError && (
        <div className="mt-3">
          <ErrorPanel error={query.error} title="Could not refresh the run" onRetry={() => void query.refetch()} compact />
        </div>
      )}
      <ol className="mt-4 space-y-0" aria-label="Narration">
        {run.steps.map((step, index) => (
          <NarrationStep key={index} step={step} number={index + 1} last={index === run.steps.length - 1} current={index === current} />
        ))}
      </ol>
    </section>
  )
}

const linkClass = 'font-medium text-indigo-700 underline decoration-indigo-300 underline-offset-2 hover:decoration-indigo-700 dark:text-indigo-300 dark:decoration-indigo-700 dark:hover:decoration-indigo-300'

function ClusterLink({ name }: { name: string }) {
  return (
    <Link prefetch={false} href={`/clusters/${encodeURIComponent(name)}`} className={`${linkClass} font-mono`}>
      {name}
    </Link>
  )
}

function NarrationStep({ step, number, last, current }: { step: RunStep; number: number; last: boolean; current: boolean }) {
  const links = stepLinks(step.target)
  const pending = step.status === 'pending'
  return (
    <li className="relative flex gap-3 pb-4" aria-current={current ? 'step' : undefined}>
      {!last && <span aria-hidden className="absolute top-8 bottom-0 left-3.5 w-px bg-slate-200 dark:bg-slate-700" />}
      <StepMarker status={step.status} number={number} />
      <div className={`min-w-0 flex-1 ${current && step.status === 'running' ? 'rounded-md bg-sky-50 px-2 py-1 -mx-2 -my-1 dark:bg-sky-950/40' : ''}`}>
        <div className="flex flex-wrap items-baseline justify-between gap-x-3">
          <h4 className={`text-sm font-semibold ${pending ? 'text-slate-500 dark:text-slate-400' : 'text-slate-900 dark:text-slate-100'}`}>{step.title}</h4>
          {step.at !== null && <RelativeTime at={step.at} className="text-xs text-slate-500 tabular-nums dark:text-slate-400" />}
        </div>
        <NarrationText
          narration={step.narration}
          className={`mt-0.5 text-sm break-words ${pending ? 'text-slate-500 dark:text-slate-400' : step.status === 'failed' ? 'text-red-800 dark:text-red-200' : 'text-slate-700 dark:text-slate-300'}`}
        />
        {links.length > 0 && (
          <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm" aria-label={`Pages for step ${number}`}>
            {links.map((link) => (
              <li key={link.href}>
                <Link prefetch={false} href={link.href} className={linkClass}>
                  {link.label} <span aria-hidden>→</span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  )
}
