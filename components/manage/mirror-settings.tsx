'use client'

import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { useId, useState } from 'react'
import { useDeleteMirror, usePatchMirror } from '@/components/data/use-mirror-admin'
import { useMirror } from '@/components/data/use-mirrors'
import { buttonClass } from '@/components/ui/button-class'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { isApiError } from '@/lib/api/errors'
import { PatchMirrorRequest, type Mirror } from '@/lib/api/mirrors'
import type { MirrorConfigKey } from '@/lib/ui/mirror-config-fields'
import { changedConfigInput, textsOfConfig, type ConfigTexts } from '@/lib/ui/mirror-config-input'
import { ConfigFields } from './config-fields'
import { Refusal } from './form-controls'
import { ManageForm } from './manage-form'
import { useFormIssues } from './use-form-issues'
import { formatInteger } from '@/lib/ui/format'

/**
 * A mirror's settings page: the same KIP config as at creation, filled with the mirror's values; saving sends
 * only what changed (PATCH with If-Match on the state version the page read, so a change made meanwhile is
 * refused with 412 rather than overwritten). Below, deleting the mirror, which the API allows once every
 * topic is STOPPED.
 */
export function MirrorSettings({ name }: { name: string }) {
  const mirror = useMirror(name)
  if (mirror.data === undefined) {
    return mirror.isError ? <ErrorPanel error={mirror.error} title="Could not load this mirror" onRetry={() => void mirror.refetch()} /> : <Skeleton className="h-96 w-full" />
  }
  return (
    <div className="space-y-6">
      <SettingsForm mirror={mirror.data} onReread={() => void mirror.refetch()} />
      <DeleteSection mirror={mirror.data} />
    </div>
  )
}

function SettingsForm({ mirror, onReread }: { mirror: Mirror; onReread: () => void }) {
  const id = useId()
  const mutation = usePatchMirror(mirror.name)
  const [texts, setTexts] = useState<ConfigTexts>(() => textsOfConfig(mirror.config))
  const changes = changedConfigInput(mirror.config, texts)
  const changedKeys = Object.keys(changes)
  const form = useFormIssues(PatchMirrorRequest, { config: changes })
  const submit = () => {
    if (mutation.isPending || changedKeys.length === 0 || !form.check()) return
    mutation.mutate(
      { config: PatchMirrorRequest.parse({ config: changes }).config, stateVersion: mirror.stateVersion },
      { onSuccess: (updated) => setTexts(textsOfConfig(updated.config)) },
    )
  }
  const stale = isApiError(mutation.error, 'PRECONDITION_FAILED')
  return (
    <Panel id="settings" title="Settings">
      <ManageForm
        label="Mirror settings"
        onSubmit={submit}
        actionsAt="start"
        divided
        className="space-y-5"
        actions={
          <>
            <button type="submit" disabled={mutation.isPending || changedKeys.length === 0} className={buttonClass('primary')}>
              {mutation.isPending ? 'Saving…' : changedKeys.length === 0 ? 'No changes' : `Save ${changedKeys.length} ${changedKeys.length === 1 ? 'change' : 'changes'}`}
            </button>
            {changedKeys.length > 0 && (
              <>
                <button type="button" className={buttonClass('ghost', 'sm')} onClick={() => setTexts(textsOfConfig(mirror.config))}>
                  Discard
                </button>
                <span className="min-w-0 text-xs break-words text-slate-600 dark:text-slate-400">
                  Changes <span className="font-mono">{changedKeys.join(', ')}</span>; applied at once, without stopping the mirror.
                </span>
              </>
            )}
          </>
        }
        refusal={mutation.isError ? { error: mutation.error, title: 'The settings were not saved' } : null}
        after={
          stale && (
            <p className="flex flex-wrap items-center gap-2 text-sm">
              The mirror changed since this page read it (a partition changed state, or someone else saved). Your edits are kept:
              <button
                type="button"
                className={buttonClass('secondary', 'sm')}
                onClick={() => {
                  mutation.reset()
                  onReread()
                }}
              >
                Read the mirror again
              </button>
              then save.
            </p>
          )
        }
        done={mutation.isSuccess && 'Saved. The mirror uses the new settings from its next round.'}
      >
        <ConfigFields
            idPrefix={id}
            mode="edit"
            texts={texts}
            onChange={(key: MirrorConfigKey, text) => {
              setTexts((previous) => ({ ...previous, [key]: text }))
              if (mutation.isError || mutation.isSuccess) mutation.reset()
            }}
            issue={form.issue}
          touch={form.touch}
        />
      </ManageForm>
    </Panel>
  )
}

function DeleteSection({ mirror }: { mirror: Mirror }) {
  const router = useRouter()
  const mutation = useDeleteMirror(mirror.name)
  const [confirming, setConfirming] = useState(false)
  const counts = Object.entries(mirror.partitionsByState).filter(([, count]) => (count ?? 0) > 0)
  const notStopped = counts.filter(([state]) => state !== 'STOPPED').reduce((sum, [, count]) => sum + (count ?? 0), 0)
  const base = `/mirrors/${encodeURIComponent(mirror.name)}`
  return (
    <Panel id="delete-mirror" title="Delete this mirror">
      <div className="space-y-3 text-sm text-slate-700 dark:text-slate-300">
        <p>
          Deleting removes the mirror’s definition and its partitions’ state from {mirror.destinationCluster}. The topics and their records stay on both
          clusters; on {mirror.destinationCluster} they are no longer mirror topics.
        </p>
        {notStopped > 0 ? (
          <p className="rounded-md bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
            <span aria-hidden>⊘ </span>
            {formatInteger(notStopped)} {notStopped === 1 ? 'partition is' : 'partitions are'} not STOPPED ({counts.filter(([state]) => state !== 'STOPPED').map(([state, count]) => `${state} ${count}`).join(', ')}). A mirror
            can be deleted once every topic is STOPPED:{' '}
            <Link prefetch={false} href={`${base}/failover`} className="font-medium text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
              fail it over
            </Link>{' '}
            first.
          </p>
        ) : (
          <button type="button" className={buttonClass('danger')} onClick={() => setConfirming(true)}>
            Delete mirror {mirror.name}…
          </button>
        )}
      </div>
      {confirming && (
        <ConfirmDialog
          open
          destructive
          title={`Delete mirror ${mirror.name}?`}
          confirmLabel="Delete the mirror"
          pending={mutation.isPending}
          onCancel={() => {
            mutation.reset()
            setConfirming(false)
          }}
          onConfirm={() => mutation.mutate({ stateVersion: mirror.stateVersion }, { onSuccess: () => router.push('/') })}
        >
          <div className="space-y-3">
            <p>
              {mirror.topics.length} {mirror.topics.length === 1 ? 'topic stays' : 'topics stay'} on {mirror.destinationCluster} with their records, as ordinary
              writable topics. The mirror’s history and lag are gone; a new mirror between these clusters truncates its partitions to what they share again.
            </p>
            {mutation.isError && <Refusal error={mutation.error} title="Delete refused" />}
          </div>
        </ConfirmDialog>
      )}
    </Panel>
  )
}
