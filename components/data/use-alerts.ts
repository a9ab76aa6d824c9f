'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { alertEndpoints } from '@/lib/api/routes'
import type { CreateReceiverRequest, CreateSilenceRequest } from '@/lib/api/alerts'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

/**
 * Alerts of the built-in rules, receivers and silences. `alert` events refetch alerts and receivers (a
 * delivery follows each change: cache-sync.ts); receivers are read again every 2 s while a delivery retries,
 * so its attempts show as they happen.
 */

export function useAlerts(query: { state?: 'firing' | 'resolved' } = {}) {
  return useQuery({
    queryKey: queryKeys.request(alertEndpoints.listAlerts, {}, query),
    queryFn: ({ signal }) => callEndpoint(alertEndpoints.listAlerts, { query, signal }),
  })
}

export function useReceivers() {
  return useQuery({
    queryKey: queryKeys.request(alertEndpoints.listReceivers),
    queryFn: ({ signal }) => callEndpoint(alertEndpoints.listReceivers, { signal }),
    refetchInterval: (query) => (query.state.data?.receivers.some((receiver) => receiver.retrying > 0) ? 2_000 : false),
  })
}

export function useSilences() {
  return useQuery({
    queryKey: queryKeys.request(alertEndpoints.listSilences),
    queryFn: ({ signal }) => callEndpoint(alertEndpoints.listSilences, { signal }),
  })
}

function useAlertMutation<V, R>(mutationFn: (variables: V) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn,
    onSettled: () => {
      for (const endpoint of [alertEndpoints.listAlerts, alertEndpoints.listReceivers, alertEndpoints.listSilences]) void queryClient.invalidateQueries({ queryKey: queryKeys.of(endpoint) })
    },
  })
}

export function useCreateReceiver() {
  return useAlertMutation((body: CreateReceiverRequest) => callEndpoint(alertEndpoints.createReceiver, { body }))
}

export function useDeleteReceiver() {
  return useAlertMutation((name: string) => callEndpoint(alertEndpoints.deleteReceiver, { params: { name } }))
}

export function useTestReceiver() {
  return useAlertMutation((name: string) => callEndpoint(alertEndpoints.testReceiver, { params: { name } }))
}

export function useCreateSilence() {
  return useAlertMutation((body: CreateSilenceRequest) => callEndpoint(alertEndpoints.createSilence, { body }))
}

export function useDeleteSilence() {
  return useAlertMutation((id: string) => callEndpoint(alertEndpoints.deleteSilence, { params: { id } }))
}
