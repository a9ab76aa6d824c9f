'use client'

import { useRouter } from 'next/navigation'
import { useId, useMemo, useReducer } from 'react'
import { useTopicsOf } from '@/components/data/use-cluster-admin'
import { useClusters } from '@/components/data/use-clusters'
import { useCreateMirror } from '@/components/data/use-mirror-admin'
import { useMirrors } from '@/components/data/use-mirrors'
import { TopicChecklist } from '@/components/mirror/topic-checklist'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Skeleton } from '@/components/ui/panel'
import { StepPanel } from '@/components/ui/step-wizard'
import { CreateMirrorRequest } from '@/lib/api/mirrors'
import { CREATE_MIRROR_WIZARD, createMirrorReducer, createMirrorRequestOf, initialCreateMirrorState, requestKey as requestKeyOf, type CreateMirrorDraft } from '@/lib/ui/create-mirror-wizard'
import { splitList } from '@/lib/ui/form-issues'
import type { MirrorConfigKey } from '@/lib/ui/mirror-config-fields'
import { createConfigInput } from '@/lib/ui/mirror-config-input'
import { mirrorDirection } from '@/lib/ui/mirror-direction'
import { DEFAULT_TOPICS_EXCLUDE, previewTopics } from '@/lib/ui/topic-patterns'
import { ConfigFields } from './config-fields'
import { DirectionNote } from './direction-note'
import { controlProps, Field, inputClass, monoInputClass } from './form-controls'
import { ManageForm } from './manage-form'
import { PlanTable } from './plan-table'
import { useFormIssues } from './use-form-issues'

/**
 * Create a mirror in two steps (the machine of lib/ui/create-mirror-wizard.ts, each step a StepPanel): the
 * form (clusters, topics by name and by pattern with a live preview of the source topics they take, the KIP
 * settings with their defaults), then the dry run's truncation plan per partition; only the plan's
 * confirmation creates it. Any change to the form drops the plan, so what is confirmed is what was previewed.
 * On success the mirror's page shows its partitions reach MIRRORING.
 */
export function CreateMirrorWizard({ initialSource, initialDestination }: { initialSource: string; initialDestination: string }) {
  const id = useId()
  const router = useRouter()
  const clusters = useClusters()
  const mirrors = useMirrors()
  const mutation = useCreateMirror()
  const [state, dispatch] = useReducer(createMirrorReducer, null, () => initialCreateMirrorState(initialSource, initialDestination))
  const { draft } = state
  const sourceTopics = useTopicsOf(draft.source)
  const request = createMirrorRequestOf(draft)
  const form = useFormIssues(CreateMirrorRequest, request)
  const currentPlan = state.step === 'plan' ? state.plan : null

  const update = (change: Partial<CreateMirrorDraft>) => {
    dispatch({ type: 'edited', change })
    if (mutation.isError) mutation.reset()
  }
  const clusterNames = (clusters.data?.clusters ?? []).map((cluster) => cluster.name)
  const topicNames = useMemo(() => (draft.source === '' ? [] : (sourceTopics.data?.topics ?? []).map((topic) => topic.name).filter((name) => !name.startsWith('__'))), [draft.source, sourceTopics.data])
  const partitionsOf = new Map((sourceTopics.data?.topics ?? []).map((topic) => [topic.name, topic.partitions]))
  const preview = previewTopics({
    sourceTopics: draft.source === '' ? [] : (sourceTopics.data?.topics ?? []).map((topic) => topic.name),
    named: [...draft.named],
    include: splitList(draft.include),
    exclude: draft.exclude.trim() === '' ? DEFAULT_TOPICS_EXCLUDE : splitList(draft.exclude),
  })
  const direction = draft.source !== '' && draft.destination !== '' ? mirrorDirection(mirrors.data?.mirrors ?? [], draft.source, draft.destination) : null

  const previewPlan = () => {
    if (mutation.isPending || !form.check()) return
    const asked = requestKeyOf(draft)
    mutation.mutate(
      { ...request, dryRun: true },
      {
        onSuccess: (answer) => {
          if (answer.kind === 'plan') dispatch({ type: 'previewed', plan: answer.plan, request: asked })
        },
      },
    )
  }
  const confirm = () => {
    if (mutation.isPending || currentPlan === null) return
    mutation.mutate(request, { onSuccess: () => router.push(`/mirrors/${encodeURIComponent(request.name)}`) })
  }

  if (clusters.isPending) return <Skeleton className="h-64 w-full" />
  if (clusters.isError) return <ErrorPanel error={clusters.error} title="Could not load clusters" onRetry={() => void clusters.refetch()} />

  const clusterSelect = (key: 'source' | 'destination', label: string, hint: string, path: string) => (
    <Field id={`${id}-${key}`} label={label} hint={hint} issue={form.issue(path)}>
      <select
        {...controlProps(`${id}-${key}`, hint, form.issue(path))}
        value={draft[key]}
        onChange={(event) => update(key === 'source' ? { source: event.target.value, named: new Set() } : { destination: event.target.value })}
        onBlur={() => form.touch(path)}
        className={`${inputClass} font-mono`}
      >
        <option value="">Choose a cluster</option>
        {clusterNames.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </Field>
  )

  return (
    <div className="space-y-6">
      <ManageForm
        label="Create a mirror"
        onSubmit={previewPlan}
        className="space-y-6"
        actionsAt="start"
        actions={
          <>
            <button type="submit" disabled={mutation.isPending} className={buttonClass(currentPlan === null ? 'primary' : 'secondary')}>
              {mutation.isPending && currentPlan === null ? 'Planning…' : currentPlan === null ? 'Preview the plan (dry run)' : 'Preview again'}
            </button>
            <span className="text-xs text-slate-600 dark:text-slate-400">Nothing is created until you confirm the plan.</span>
          </>
        }
        refusal={mutation.isError ? { error: mutation.error, title: currentPlan === null ? 'The dry run was refused' : 'Creating the mirror was refused' } : null}
      >
        <StepPanel steps={CREATE_MIRROR_WIZARD} step="clusters" id="mirror-clusters">
          <div className="grid gap-4 sm:grid-cols-3">
            <Field id={`${id}-name`} label="Mirror name" hint="Letters, digits, “.”, “_” and “-”." issue={form.issue('name')}>
              <input
                {...controlProps(`${id}-name`, true, form.issue('name'))}
                value={draft.name}
                onChange={(event) => update({ name: event.target.value })}
                onBlur={() => form.touch('name')}
                autoComplete="off"
                spellCheck={false}
                className={monoInputClass}
              />
            </Field>
            {clusterSelect('source', 'Source cluster', 'Where the topics are written today.', 'sourceCluster')}
            {clusterSelect('destination', 'Destination cluster', 'Pulls from the source and owns the mirror; its copies are read-only.', 'destinationCluster')}
          </div>
          {direction !== null && (
            <div className="mt-4">
              <DirectionNote direction={direction} source={draft.source} destination={draft.destination} />
            </div>
          )}
        </StepPanel>

        <StepPanel steps={CREATE_MIRROR_WIZARD} step="topics" id="mirror-topics">
          {draft.source === '' ? (
            <p className="text-sm text-slate-600 dark:text-slate-300">Choose the source cluster to see its topics.</p>
          ) : sourceTopics.isPending ? (
            <Skeleton className="h-32 w-full" />
          ) : sourceTopics.isError ? (
            <ErrorPanel compact error={sourceTopics.error} title={`Could not list the topics of ${draft.source}`} onRetry={() => void sourceTopics.refetch()} />
          ) : (
            <div className="grid gap-6 lg:grid-cols-2">
              <div className="min-w-0 space-y-4">
                {topicNames.length === 0 ? (
                  <p className="text-sm text-slate-600 dark:text-slate-300">{draft.source} has no topics yet; patterns below take the ones created later, at each metadata refresh.</p>
                ) : (
                  <TopicChecklist
                    legend="By name"
                    topics={topicNames.map((topic) => ({ topic, note: `${partitionsOf.get(topic) ?? 0} ${partitionsOf.get(topic) === 1 ? 'partition' : 'partitions'}` }))}
                    selected={draft.named}
                    onChange={(named) => update({ named })}
                  />
                )}
                <Field
                  id={`${id}-include`}
                  label="Include patterns"
                  hint="Regular expressions matching whole topic names, one a line (orders.* takes orders and orders-eu). Kept as topics.include: matching topics created later are started too."
                  issue={form.issue('topicsInclude')}
                >
                  <textarea
                    {...controlProps(`${id}-include`, true, form.issue('topicsInclude'))}
                    rows={2}
                    value={draft.include}
                    onChange={(event) => update({ include: event.target.value })}
                    onBlur={() => form.touch('topicsInclude')}
                    spellCheck={false}
                    className={`${monoInputClass} text-xs`}
                  />
                </Field>
                <Field
                  id={`${id}-exclude`}
                  label="Exclude patterns"
                  hint={`Take topics back out of what the include patterns matched. Default: ${DEFAULT_TOPICS_EXCLUDE.join(', ')} (internal topics).`}
                  issue={form.issue('topicsExclude')}
                >
                  <textarea
                    {...controlProps(`${id}-exclude`, true, form.issue('topicsExclude'))}
                    rows={2}
                    value={draft.exclude}
                    placeholder={DEFAULT_TOPICS_EXCLUDE.join('\n')}
                    onChange={(event) => update({ exclude: event.target.value })}
                    onBlur={() => form.touch('topicsExclude')}
                    spellCheck={false}
                    className={`${monoInputClass} text-xs`}
                  />
                </Field>
              </div>
              <TopicPreview preview={preview} partitionsOf={partitionsOf} />
            </div>
          )}
        </StepPanel>

        <StepPanel steps={CREATE_MIRROR_WIZARD} step="settings" id="mirror-settings">
          <details>
            <summary className="cursor-pointer rounded text-sm font-medium text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
              {Object.keys(createConfigInput(draft.config)).length === 0 ? 'Every setting at its default (open to change)' : `${Object.keys(createConfigInput(draft.config)).length} settings changed (open to review)`}
            </summary>
            <div className="mt-4">
              <ConfigFields
                idPrefix={id}
                mode="create"
                texts={draft.config}
                omit={['topics.include', 'topics.exclude']}
                onChange={(key: MirrorConfigKey, text) => update({ config: { ...draft.config, [key]: text } })}
                issue={form.issue}
                touch={form.touch}
              />
            </div>
          </details>
        </StepPanel>
      </ManageForm>

      {currentPlan !== null && (
        <StepPanel steps={CREATE_MIRROR_WIZARD} step="plan" id="mirror-plan">
          <div className="space-y-4">
            <PlanTable plan={currentPlan} />
            <p className="text-sm text-slate-700 dark:text-slate-300">
              Confirming creates <span className="font-mono font-semibold">{request.name}</span> on {request.destinationCluster}: each partition above is created read-only there,
              truncated as shown, then fetched from {request.sourceCluster} until it is MIRRORING.
            </p>
            <button type="button" onClick={confirm} disabled={mutation.isPending} className={buttonClass('primary')}>
              {mutation.isPending ? 'Creating…' : `Create mirror ${request.name}`}
            </button>
          </div>
        </StepPanel>
      )}
    </div>
  )
}

function TopicPreview({ preview, partitionsOf }: { preview: ReturnType<typeof previewTopics>; partitionsOf: ReadonlyMap<string, number> }) {
  const partitions = preview.taken.reduce((sum, topic) => sum + (partitionsOf.get(topic) ?? 0), 0)
  return (
    <section aria-label="Topics this mirror takes" aria-live="polite" className="min-w-0 self-start rounded-md border border-slate-200 p-3 dark:border-slate-700">
      <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        {preview.taken.length === 0
          ? 'No topic matches yet'
          : `Takes ${preview.taken.length} ${preview.taken.length === 1 ? 'topic' : 'topics'} · ${partitions} ${partitions === 1 ? 'partition' : 'partitions'}`}
      </h3>
      {preview.taken.length > 0 && (
        <ul aria-label="Matching source topics" className="mt-2 flex max-h-48 flex-wrap gap-1.5 overflow-auto">
          {preview.taken.map((topic) => (
            <li key={topic} className="rounded bg-indigo-50 px-1.5 py-0.5 font-mono text-xs text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100">
              ✓ {topic}
            </li>
          ))}
        </ul>
      )}
      {preview.excluded.length > 0 && (
        <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          Excluded: <span className="font-mono">{preview.excluded.join(', ')}</span>
        </p>
      )}
      {preview.invalid.length > 0 && (
        <p className="mt-2 text-xs font-medium text-red-700 dark:text-red-300">
          ✕ Not a valid pattern: <span className="font-mono">{preview.invalid.join(', ')}</span>
        </p>
      )}
      {preview.taken.length === 0 && (
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Tick topics or type an include pattern; a mirror without topics can start some later.</p>
      )}
    </section>
  )
}
