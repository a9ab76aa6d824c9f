'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { isRunActive, storeRun, useRuns, useScenarios } from '@/components/data/use-demo'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import type { Run, Scenario, ScenarioName } from '@/lib/api/demo'
import { demoEndpoints } from '@/lib/api/routes'
import { RunNarration } from './run-narration'
import { RunStatusBadge } from './run-status'

/**
 * The narrated scenarios: pick one, run it, and follow its narration as it advances. Each scenario runs on
 * clusters of its own, so the live demo keeps going beside it; one run of a scenario at a time (the server
 * answers 409 otherwise, and says so here).
 */
export function ScenariosPanel() {
  const scenarios = useScenarios()
  const runs = useRuns()
  const [chosen, setChosen] = useState<ScenarioName | null>(null)

  if (scenarios.isPending) {
    return (
      <Panel title="Scenarios" id="scenarios">
        <Skeleton className="h-48" />
      </Panel>
    )
  }
  if (scenarios.isError) {
    return (
      <Panel title="Scenarios" id="scenarios">
        <ErrorPanel error={scenarios.error} title="Could not load the scenarios" onRetry={() => void scenarios.refetch()} />
      </Panel>
    )
  }
  const list = scenarios.data.scenarios
  const latest = new Map<ScenarioName, Run>()
  // Runs come newest first: the first of each scenario is its latest.
  for (const run of runs.data?.runs ?? []) if (!latest.has(run.scenario)) latest.set(run.scenario, run)
  const newest = runs.data?.runs[0]
  const selected = list.find((scenario) => scenario.name === (chosen ?? newest?.scenario)) ?? list[0]

  return (
    <Panel title="Scenarios" id="scenarios">
      {runs.isError && (
        <div className="mb-4">
          <ErrorPanel error={runs.error} title="Could not load the runs" onRetry={() => void runs.refetch()} compact />
        </div>
      )}
      <div className="grid gap-4 lg:grid-cols-[minmax(0,20rem)_minmax(0,1fr)]">
        <ul className="space-y-2" aria-label="Scenarios">
          {list.map((scenario) => (
            <ScenarioCard
              key={scenario.name}
              scenario={scenario}
              latestRun={latest.get(scenario.name)}
              selected={scenario.name === selected?.name}
              onSelect={() => setChosen(scenario.name)}
            />
          ))}
        </ul>
        {selected !== undefined && <ScenarioDetail key={selected.name} scenario={selected} latestRun={latest.get(selected.name)} onStarted={() => setChosen(selected.name)} />}
      </div>
    </Panel>
  )
}

function ScenarioCard({ scenario, latestRun, selected, onSelect }: { scenario: Scenario; latestRun: Run | undefined; selected: boolean; onSelect: () => void }) {
  return (
    <li>
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        className={`w-full rounded-md border px-3 py-2 text-left focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
          selected
            ? 'border-indigo-500 bg-indigo-50 dark:border-indigo-400 dark:bg-indigo-950/50'
            : 'border-slate-200 hover:border-slate-300 hover:bg-slate-50 dark:border-slate-700 dark:hover:border-slate-600 dark:hover:bg-slate-800/60'
        }`}
      >
        <span className="flex items-center justify-between gap-2">
          <span className="text-sm font-medium text-slate-900 dark:text-slate-100">{scenario.title}</span>
          {latestRun !== undefined && <RunStatusBadge status={latestRun.status} />}
        </span>
        <span className="mt-0.5 block font-mono text-xs text-slate-600 dark:text-slate-300">
          {scenario.name} · {scenario.steps.length} steps
        </span>
      </button>
    </li>
  )
}

function ScenarioDetail({ scenario, latestRun, onStarted }: { scenario: Scenario; latestRun: Run | undefined; onStarted: () => void }) {
  const queryClient = useQueryClient()
  const start = useMutation({
    mutationFn: () => callEndpoint(demoEndpoints.runScenario, { params: { name: scenario.name } }),
    onSuccess: ({ run }) => {
      storeRun(queryClient, run)
      onStarted()
    },
  })
  const running = latestRun !== undefined && isRunActive(latestRun)
  const runLabel = start.isPending ? 'Starting…' : running ? 'Running…' : latestRun === undefined ? 'Run' : 'Run again'
  return (
    <div className="min-w-0 space-y-4" aria-labelledby={`scenario-${scenario.name}-title`} role="group">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 max-w-3xl">
          <h3 id={`scenario-${scenario.name}-title`} className="text-base font-semibold text-slate-900 dark:text-white">
            {scenario.title}
          </h3>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{scenario.description}</p>
        </div>
        <button
          type="button"
          className={buttonClass('primary')}
          disabled={start.isPending || running}
          onClick={() => start.mutate()}
          aria-label={`${runLabel}: ${scenario.title}`}
        >
          <span aria-hidden>▶</span>
          {runLabel}
        </button>
      </div>
      {start.isError && <ErrorPanel error={start.error} title={`Could not start ${scenario.title}`} onRetry={() => start.mutate()} compact />}
      {latestRun === undefined ? <StepPreview scenario={scenario} /> : <RunNarration key={latestRun.id} initial={latestRun} />}
    </div>
  )
}

/** The steps of a scenario that has not run yet: what it will show. */
function StepPreview({ scenario }: { scenario: Scenario }) {
  return (
    <div>
      <p className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">Steps</p>
      <ol className="mt-2 space-y-1.5">
        {scenario.steps.map((step, index) => (
          <li key={step.title} className="flex items-center gap-3 text-sm text-slate-700 dark:text-slate-300">
            <span aria-hidden className="grid h-6 w-6 shrink-0 place-items-center rounded-full bg-slate-100 text-xs font-semibold text-slate-600 dark:bg-slate-800 dark:text-slate-300">
              {index + 1}
            </span>
            {step.title}
          </li>
        ))}
      </ol>
      <p className="mt-3 text-sm text-slate-500 dark:text-slate-400">Not run yet. Run it to watch each step, with a link to the page that shows it.</p>
    </div>
  )
}
