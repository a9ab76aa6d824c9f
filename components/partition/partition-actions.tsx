'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { queryKeys } from '@/components/data/query-keys'
import { useCanOperate } from '@/components/data/session-context'
import { buttonClass } from '@/components/ui/button-class'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel } from '@/components/ui/error-panel'
import { mirrorEndpoints } from '@/lib/api/routes'
import type { MirrorPartitionState } from '@/lib/api/mirrors'
import { RetryOutcome, useRetryPartition } from '@/components/partitions/use-retry-partition'

type TopicAction = 'pause' | 'resume' | 'recover'

const ENDPOINT = {
  pause: mirrorEndpoints.pauseMirrorTopics,
  resume: mirrorEndpoints.resumeMirrorTopics,
  recover: mirrorEndpoints.recoverMirrorTopics,
} as const

/** Which topic action this partition's state offers (the API acts on the whole topic). */
function actionFor(state: MirrorPartitionState): TopicAction | null {
  if (state === 'MIRRORING') return 'pause'
  if (state === 'PAUSED') return 'resume'
  if (state === 'FAILED') return 'recover'
  return null
}

const WORDING: Record<TopicAction, { button: string; title: (topic: string) => string; done: string; body: (topic: string, partitions: number, mirror: string) => string }> = {
  pause: {
    button: 'Pause topic',
    title: (topic) => `Pause mirroring of ${topic}?`,
    done: 'Pause requested',
    body: (topic, partitions, mirror) =>
      `Mirror ${mirror} stops fetching ${partitions === 1 ? 'the only partition' : `all ${partitions} partitions`} of ${topic}. The destination stays read-only and keeps what was mirrored; resuming continues from its log end, without truncation. Records written to the source meanwhile are at risk until then.`,
  },
  resume: {
    button: 'Resume topic',
    title: (topic) => `Resume mirroring of ${topic}?`,
    done: 'Resume requested',
    body: (topic, partitions, mirror) =>
      `Mirror ${mirror} fetches ${partitions === 1 ? 'the partition' : `all ${partitions} partitions`} of ${topic} again, from the destination's log end.`,
  },
  recover: {
    button: 'Recover topic',
    title: (topic) => `Recover the FAILED partitions of ${topic}?`,
    done: 'Recovery requested',
    body: (topic, _partitions, mirror) =>
      `Mirror ${mirror} retries every FAILED partition of ${topic} now, returning each to the state it failed in. Partitions that are not FAILED are left as they are.`,
  },
}

/**
 * The operator's actions for this partition's topic: pause, resume or recover (whichever its state allows),
 * each confirmed first; a refusal shows the API's code and message and changes nothing. Failover and failback
 * are wizards, linked. Viewers see none of it.
 */
export function PartitionActions({ mirror, topic, partition, state, topicPartitions }: { mirror: string; topic: string; partition: number; state: MirrorPartitionState; topicPartitions: number }) {
  const canOperate = useCanOperate({ mirror })
  const queryClient = useQueryClient()
  const retry = useRetryPartition(mirror)
  const [confirming, setConfirming] = useState<TopicAction | null>(null)
  const [done, setDone] = useState<string | null>(null)
  const mutation = useMutation({
    mutationFn: (action: TopicAction) => callEndpoint(ENDPOINT[action], { params: { mirror }, body: { topics: [topic] } }),
    onSuccess: (_, action) => {
      setConfirming(null)
      setDone(`${WORDING[action].done} for ${topic}.`)
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.listMirrorPartitions, { mirror }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.partitionHistory, { mirror }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.getMirror, { mirror }) })
    },
    onError: () => setConfirming(null),
  })
  if (!canOperate) return null
  const action = actionFor(state)
  const failedAction = mutation.isError ? mutation.variables : null
  return (
    <div className="flex flex-col items-stretch gap-2 sm:items-end">
      <div className="flex flex-wrap gap-2 sm:justify-end">
        {state === 'FAILED' && (
          <button
            type="button"
            className={buttonClass('primary')}
            data-primary
            disabled={retry.pending !== null}
            title={`Retry ${topic}-${partition} now, not at the engine's next attempt; the topic's other partitions are left as they are`}
            onClick={() => {
              mutation.reset()
              setDone(null)
              retry.retry({ topic, partition })
            }}
          >
            {retry.pending !== null ? 'Retrying…' : 'Retry now'}
          </button>
        )}
        {action !== null && (
          <button
            type="button"
            className={buttonClass(action === 'resume' ? 'primary' : 'secondary')}
            onClick={() => {
              mutation.reset()
              retry.dismiss()
              setDone(null)
              setConfirming(action)
            }}
          >
            {WORDING[action].button}
          </button>
        )}
        {state !== 'STOPPED' && state !== 'STOPPING' && (
          <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}/failover`} className={buttonClass('danger')}>
            Failover…
          </Link>
        )}
        {state === 'STOPPED' && (
          <Link prefetch={false} href={`/mirrors/${encodeURIComponent(mirror)}/failback`} className={buttonClass('secondary')}>
            Failback…
          </Link>
        )}
      </div>
      <RetryOutcome retry={retry} />
      {done !== null && (
        <p role="status" className="text-sm text-emerald-800 dark:text-emerald-200">
          ✓ {done}
        </p>
      )}
      {failedAction !== null && failedAction !== undefined && (
        <ErrorPanel compact title={`${WORDING[failedAction].button} refused`} error={mutation.error} onRetry={() => mutation.mutate(failedAction)} />
      )}
      {confirming !== null && (
        <ConfirmDialog
          open
          title={WORDING[confirming].title(topic)}
          confirmLabel={WORDING[confirming].button}
          pending={mutation.isPending}
          onConfirm={() => mutation.mutate(confirming)}
          onCancel={() => setConfirming(null)}
        >
          {WORDING[confirming].body(topic, topicPartitions, mirror)}
        </ConfirmDialog>
      )}
    </div>
  )
}
