'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useCallback, useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { queryKeys } from '@/components/data/query-keys'
import { ErrorPanel } from '@/components/ui/error-panel'
import { mirrorEndpoints } from '@/lib/api/routes'

export interface RetryTarget {
  readonly topic: string
  readonly partition: number
}

export interface PartitionRetry {
  /** Asks the engine to retry this one FAILED partition now (POST …/topics/recover with `partitions`). */
  readonly retry: (target: RetryTarget) => void
  /** The partition whose retry is on its way, if any. */
  readonly pending: RetryTarget | null
  /** The last retry's outcome: what was asked, and the API's error when it was refused. */
  readonly outcome: { target: RetryTarget; error: unknown } | null
  readonly dismiss: () => void
}

/**
 * A row's "Retry now": the one FAILED partition, not its topic, straight away (the engine would retry it
 * anyway at its next attempt, so there is nothing to confirm). A refusal keeps the API's code and message for
 * the page to show; nothing changes then.
 */
export function useRetryPartition(mirror: string): PartitionRetry {
  const queryClient = useQueryClient()
  const [outcome, setOutcome] = useState<PartitionRetry['outcome']>(null)
  const mutation = useMutation({
    mutationFn: (target: RetryTarget) => callEndpoint(mirrorEndpoints.recoverMirrorTopics, { params: { mirror }, body: { partitions: [{ topic: target.topic, partition: target.partition }] } }),
    onSuccess: (_, target) => {
      setOutcome({ target, error: null })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.listMirrorPartitions, { mirror }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.partitionHistory, { mirror }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(mirrorEndpoints.getMirror, { mirror }) })
    },
    onError: (error, target) => setOutcome({ target, error }),
  })
  const { mutate } = mutation
  const retry = useCallback(
    (target: RetryTarget) => {
      setOutcome(null)
      mutate(target)
    },
    [mutate],
  )
  const dismiss = useCallback(() => setOutcome(null), [])
  return { retry, pending: mutation.isPending ? (mutation.variables ?? null) : null, outcome, dismiss }
}

/** What the last "Retry now" did: a quiet confirmation, or the refusal with the API's code and message. */
export function RetryOutcome({ retry }: { retry: PartitionRetry }) {
  const { outcome } = retry
  if (outcome === null) return null
  const name = `${outcome.target.topic}-${outcome.target.partition}`
  if (outcome.error === null) {
    return (
      <p role="status" className="text-sm text-emerald-800 dark:text-emerald-200" data-testid="retry-outcome">
        ✓ Retry requested for {name}.
      </p>
    )
  }
  return <ErrorPanel compact title={`Retry of ${name} refused`} error={outcome.error} onRetry={() => retry.retry(outcome.target)} />
}
