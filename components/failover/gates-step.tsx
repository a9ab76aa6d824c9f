'use client'

import type { FailoverPlan } from '@/lib/api/mirrors'
import { useEffect, useRef, useState } from 'react'
import { GATE_ADVICE, decideGates, gateTitle, isForceable } from '@/lib/failover/gate-forcing'
import { rpoAcceptance } from '@/lib/failover/wizard-states'

/**
 * The RPO gate is forced by typing the loss accepted, word for word (issue #34): a checkbox is too easy to
 * tick for a loss over the mirror's objective. A new number of records means new words (the key remounts it).
 */
/**
 * The typed acceptance. Its words are the figures the operator read when the gate appeared: the records at
 * risk ask for new words when they change (the parent remounts this by them, and a forced gate is un-forced),
 * the time at risk does not, since it grows every second while the mirror is behind and the words would change
 * under the operator's fingers (the failover's audit entry records the plan's figures of that moment).
 */
function RpoAcceptance({ words: shown, forced, onForce }: { words: string; forced: boolean; onForce: (force: boolean) => void }) {
  const [words] = useState(shown)
  const [typed, setTyped] = useState(forced ? words : '')
  // Un-forced from outside (the records changed): the words typed for the old figures no longer stand.
  const [wasForced, setWasForced] = useState(forced)
  if (wasForced !== forced) {
    setWasForced(forced)
    if (!forced && typed === words) setTyped('')
  }
  return (
    <div className="mt-2 space-y-1">
      <label htmlFor="rpo-acceptance" className="block text-sm font-medium text-slate-900 dark:text-slate-100">
        To fail over anyway, type <span className="font-mono font-semibold select-all">{words}</span> (recorded in the audit log with the figures)
      </label>
      <input
        id="rpo-acceptance"
        autoComplete="off"
        spellCheck={false}
        value={typed}
        onChange={(event) => {
          setTyped(event.target.value)
          const matches = event.target.value === words
          if (matches !== forced) onForce(matches)
        }}
        className="w-full max-w-md rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
      />
    </div>
  )
}

/** An accepted loss of N records does not accept N + 1: when the records at risk change, the acceptance is taken back. */
function useUnforceWhenRecordsChange(records: number | null | undefined, forced: boolean, unforce: () => void) {
  const accepted = useRef(records)
  useEffect(() => {
    if (accepted.current === records) return
    accepted.current = records
    if (forced) unforce()
  }, [records, forced, unforce])
}

/**
 * Step 2: the dry run's preflight gates, each passed (✓) or failed (✕) with its detail and, when failed,
 * what to do. A failing warning gate blocks until the operator ticks "Force past this gate" (sent as
 * `force` and kept in the audit log); a failing blocking gate cannot be forced.
 */
export function GatesStep({ plan, forced, onForce }: { plan: FailoverPlan; forced: readonly string[]; onForce: (gate: string, force: boolean) => void }) {
  const decision = decideGates(plan.gates, forced)
  useUnforceWhenRecordsChange(plan.rpo?.records, forced.includes('rpo-objective'), () => onForce('rpo-objective', false))
  // Failing gates first: they are what the operator has to decide about.
  const gates = [...plan.gates].sort((a, b) => Number(a.ok) - Number(b.ok))
  return (
    <div className="space-y-3">
      <p role="status" className={`text-sm font-medium ${decision.canProceed ? 'text-slate-800 dark:text-slate-200' : 'text-red-800 dark:text-red-300'}`}>
        {decision.blocking.length > 0
          ? `✕ ${decision.blocking.map((gate) => gateTitle(gate.name)).join(', ')} cannot be forced: change the topic selection.`
          : decision.unforced.length > 0
            ? `✕ ${decision.unforced.length} failing gate${decision.unforced.length === 1 ? '' : 's'} (${decision.unforced.map((gate) => gateTitle(gate.name)).join(', ')}): force past ${decision.unforced.length === 1 ? 'it' : 'them'} to go on, or go back.`
            : decision.forced.length > 0
              ? `▲ Every failing gate is forced (${decision.forced.map((gate) => gateTitle(gate.name)).join(', ')}).`
              : '✓ Every gate passes.'}
      </p>
    <ul className="space-y-2" aria-label="Preflight gates">
      {gates.map((gate) => {
        const isForced = forced.includes(gate.name)
        const tone = gate.ok
          ? 'border-slate-200 dark:border-slate-700'
          : isForced
            ? 'border-amber-300 bg-amber-50/60 dark:border-amber-700 dark:bg-amber-950/40'
            : 'border-red-300 bg-red-50/60 dark:border-red-800 dark:bg-red-950/40'
        return (
          <li key={gate.name} className={`rounded-lg border p-3 ${tone}`} data-gate={gate.name} data-ok={gate.ok}>
            <div className="flex flex-wrap items-baseline gap-x-2">
              <span aria-hidden className={`font-mono ${gate.ok ? 'text-emerald-700 dark:text-emerald-400' : 'text-red-700 dark:text-red-400'}`}>
                {gate.ok ? '✓' : '✕'}
              </span>
              <span className="font-medium">{gateTitle(gate.name)}</span>
              <span className="text-sm text-slate-700 dark:text-slate-300">{gate.ok ? 'passed' : isForced ? 'failed · forced' : 'failed'}</span>
              {gate.severity === 'blocking' && !gate.ok && <span className="text-xs font-semibold text-red-800 uppercase dark:text-red-300">cannot be forced</span>}
            </div>
            <p className="mt-1 text-sm break-words text-slate-700 dark:text-slate-300">{gate.detail}</p>
            {!gate.ok && GATE_ADVICE[gate.name] !== undefined && <p className="mt-1 text-sm text-slate-800 dark:text-slate-200">What to do: {GATE_ADVICE[gate.name]}</p>}
            {isForceable(gate) && gate.name === 'rpo-objective' && plan.rpo !== undefined && (
              <RpoAcceptance key={String(plan.rpo.records)} words={rpoAcceptance(plan.rpo)} forced={isForced} onForce={(force) => onForce(gate.name, force)} />
            )}
            {isForceable(gate) && gate.name !== 'rpo-objective' && (
              <label className="mt-2 flex items-center gap-2 text-sm font-medium text-slate-900 dark:text-slate-100">
                <input type="checkbox" checked={isForced} onChange={(event) => onForce(gate.name, event.target.checked)} className="size-4 accent-red-600" />
                Force past this gate (recorded in the audit log)
              </label>
            )}
          </li>
        )
      })}
    </ul>
    </div>
  )
}
