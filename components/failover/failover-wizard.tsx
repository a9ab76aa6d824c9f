'use client'

import { useCallback, useEffect, useReducer, useRef, useState } from 'react'
import { useFailoverMutation, useFailoverPlan } from '@/components/data/use-failover-plan'
import { useLiveOperation } from '@/components/data/use-live-operation'
import { useRunningFailover } from '@/components/data/use-running-failover'
import { OperationProgress, useWhenFinished } from '@/components/operations/operation-progress'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { StepWizard } from '@/components/ui/step-wizard'
import { isApiError } from '@/lib/api/errors'
import {
  areGatesCleared,
  canGoNext,
  canSubmit,
  defaultFailoverType,
  FAILOVER_WIZARD,
  failoverRequestOf,
  initialWizardState,
  wizardReducer,
  type FailoverStep,
} from '@/lib/failover/wizard-states'
import { ConfirmStep } from './confirm-step'
import { FailoverResult } from './failover-result'
import { GatesStep } from './gates-step'
import { ImpactStep } from './impact-step'
import { TopicsStep } from './topics-step'
import { TypeStep } from './type-step'
import { requesterName } from '@/lib/ui/requester-name'

/** A plan older than this is requested again before the confirmation (UI.md §2). */
const PLAN_MAX_AGE_MS = 30_000

const PLANNING_STEPS: readonly FailoverStep[] = ['gates', 'impact', 'confirm']
const BEFORE_PROGRESS: readonly FailoverStep[] = ['type', 'topics', 'gates', 'impact', 'confirm']

export interface WizardMirror {
  readonly name: string
  readonly sourceCluster: string
  readonly destinationCluster: string
  readonly topics: readonly string[]
}

/**
 * The failover wizard (UI.md §2): the machine of lib/failover/wizard-states.ts drawn by StepWizard, one step
 * at a time beside the rail. Opened while a failover of this mirror runs (a reload, another tab, another
 * operator), it goes straight to that operation's progress.
 */
export function FailoverWizard({ mirror, initialOperationId }: { mirror: WizardMirror; initialOperationId: string | null }) {
  const [state, dispatch] = useReducer(wizardReducer, initialOperationId, initialWizardState)
  const running = useRunningFailover(mirror.name, BEFORE_PROGRESS.includes(state.step))
  const runningId = running.data?.id
  useEffect(() => {
    if (runningId !== undefined && BEFORE_PROGRESS.includes(state.step) && !state.submitting) dispatch({ type: 'operationFound', operationId: runningId })
  }, [runningId, state.step, state.submitting])

  const topics = state.selection.mode === 'all' ? undefined : state.selection.topics
  // The type step reads what a failover now would lose (the unplanned dry run of every topic); the later
  // steps read the dry run of the chosen type.
  const typePlan = useFailoverPlan(mirror.name, undefined, state.step === 'type', 'unplanned')
  const offered = defaultFailoverType(typePlan.data)
  useEffect(() => {
    if (state.step === 'type' && state.type === null && offered !== null) dispatch({ type: 'typeChosen', failoverType: offered })
  }, [state.step, state.type, offered])
  const plan = useFailoverPlan(mirror.name, topics, PLANNING_STEPS.includes(state.step) && state.type !== null, state.type ?? 'unplanned')
  const { refetch: refetchPlan, dataUpdatedAt, isFetching: planFetching } = plan
  const previousStep = useRef<FailoverStep>(state.step)
  useEffect(() => {
    const from = previousStep.current
    previousStep.current = state.step
    if (from === state.step) return
    // A fresh dry run each time the operator arrives at the gates, and before confirming with an old one.
    if (state.step === 'gates' && from === 'topics' && dataUpdatedAt > 0 && !planFetching) void refetchPlan()
    if (state.step === 'confirm' && dataUpdatedAt > 0 && Date.now() - dataUpdatedAt > PLAN_MAX_AGE_MS) void refetchPlan()
  }, [state.step, dataUpdatedAt, planFetching, refetchPlan])

  // The address names the operation, so a reload (or a link sent to a colleague) opens it again.
  useEffect(() => {
    if (state.operationId === null) return
    const url = new URL(window.location.href)
    if (url.searchParams.get('operation') === state.operationId) return
    url.searchParams.set('operation', state.operationId)
    window.history.replaceState(window.history.state, '', url)
  }, [state.operationId])

  const onFinished = useCallback(() => dispatch({ type: 'finished' }), [])
  const mutation = useFailoverMutation(mirror.name)
  // The refusal as the API sent it (code, message), for the error panel; the machine keeps its code.
  const [refusalError, setRefusalError] = useState<unknown>(null)
  const submit = () => {
    if (!canSubmit(state, mirror.name)) return
    dispatch({ type: 'submitted', mirror: mirror.name })
    mutation.mutate(failoverRequestOf(state, mirror.name), {
      onSuccess: (accepted) => dispatch({ type: 'accepted', operationId: accepted.operation }),
      onError: (error) => {
        const other = isApiError(error) && error.code === 'CONFLICT' ? error.details?.operation : undefined
        if (typeof other === 'string') {
          dispatch({ type: 'operationFound', operationId: other })
          return
        }
        setRefusalError(error)
        dispatch({ type: 'refused', error: { code: isApiError(error) ? error.code : 'INTERNAL', message: error.message } })
        // The gates may have moved since the operator looked: the next look shows the engine's view.
        void refetchPlan()
      },
    })
  }

  const gates = plan.data?.gates ?? null
  const nextAllowed = canGoNext(state, { mirror: mirror.name, gates }) && !(PLANNING_STEPS.includes(state.step) && plan.isFetching)
  const stale = state.step === 'confirm' && plan.data !== undefined && !areGatesCleared(plan.data.gates, state.forced)

  return (
    <StepWizard
      steps={FAILOVER_WIZARD}
      current={state.step}
      label="Failover steps"
      navigation={
        BEFORE_PROGRESS.includes(state.step)
          ? {
              onBack: () => dispatch({ type: 'back' }),
              backDisabled: state.step === 'type' || state.submitting,
              ...(state.step === 'confirm' ? {} : { onNext: () => dispatch({ type: 'next', mirror: mirror.name, gates }), nextDisabled: !nextAllowed }),
            }
          : undefined
      }
    >
      {state.step === 'type' && typePlan.isPending && <Skeleton className="h-40 w-full" />}
      {state.step === 'type' && typePlan.isError && <ErrorPanel error={typePlan.error} title="The dry run failed" onRetry={() => void typePlan.refetch()} />}
      {state.step === 'type' && typePlan.data && (
        <TypeStep plan={typePlan.data} sourceCluster={mirror.sourceCluster} type={state.type} onChoose={(failoverType) => dispatch({ type: 'typeChosen', failoverType })} />
      )}
      {state.step === 'topics' && <TopicsStep topics={mirror.topics} selection={state.selection} onChange={(selection) => dispatch({ type: 'selectionChanged', selection })} />}
      {PLANNING_STEPS.includes(state.step) && plan.isPending && (
        <div className="space-y-2" aria-label="Requesting the dry run">
          <p className="text-sm text-slate-600 dark:text-slate-400">Requesting the dry run…</p>
          <Skeleton className="h-16 w-full" />
          <Skeleton className="h-16 w-full" />
        </div>
      )}
      {PLANNING_STEPS.includes(state.step) && plan.isError && <ErrorPanel error={plan.error} title="The dry run failed" onRetry={() => void plan.refetch()} />}
      {state.step === 'gates' && plan.data && (
        <GatesStep plan={plan.data} forced={state.forced} onForce={(gate, force) => dispatch({ type: 'forceToggled', gate, force })} />
      )}
      {state.step === 'impact' && plan.data && <ImpactStep plan={plan.data} mirror={mirror.name} />}
      {state.step === 'confirm' && plan.data && (
        <div className="space-y-3">
          {stale && (
            <p role="alert" className="text-sm font-medium text-red-800 dark:text-red-300">
              ✕ The gates changed since you checked them: go back to Gates.
            </p>
          )}
          {state.refusal !== null && <ErrorPanel error={refusalError} title="The failover was refused" />}
          <ConfirmStep
            mirror={mirror.name}
            destinationCluster={mirror.destinationCluster}
            plan={plan.data}
            forced={state.forced}
            type={state.type ?? 'unplanned'}
            confirmation={state.confirmation}
            submitting={state.submitting}
            canSubmit={canSubmit(state, mirror.name) && !stale && !plan.isFetching}
            onType={(text) => dispatch({ type: 'confirmationTyped', text })}
            onSubmit={submit}
          />
        </div>
      )}
      {(state.step === 'progress' || state.step === 'result') && state.operationId !== null && (
        <LiveOperation id={state.operationId} step={state.step} destinationCluster={mirror.destinationCluster} onFinished={onFinished} />
      )}
    </StepWizard>
  )
}

function LiveOperation({ id, step, destinationCluster, onFinished }: { id: string; step: FailoverStep; destinationCluster: string; onFinished: () => void }) {
  const operation = useLiveOperation(id)
  useWhenFinished(operation.data, onFinished)
  if (operation.isPending) return <Skeleton className="h-40 w-full" />
  if (operation.isError) return <ErrorPanel error={operation.error} title="Could not read the operation" onRetry={() => void operation.refetch()} />
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Operation <span className="font-mono">{id}</span>
        {operation.data.requestedBy ? <> · confirmed by <span className="font-semibold">{requesterName(operation.data.requestedBy)}</span></> : null}
      </p>
      {step === 'result' ? <FailoverResult operation={operation.data} destinationCluster={destinationCluster} /> : <OperationProgress operation={operation.data} canCancel />}
    </div>
  )
}
