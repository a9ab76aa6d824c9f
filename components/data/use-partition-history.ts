'use client'

import { useQuery } from '@tanstack/react-query'
import { partitionHistoryRequest } from '@/components/partition/queries'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

/** A mirror partition's transitions, oldest first as the API lists them; kept current by cache-sync's partition events. */
export function usePartitionHistory(mirror: string, topic: string, partition: number) {
  const { endpoint, params } = partitionHistoryRequest(mirror, topic, partition)
  return useQuery({
    queryKey: queryKeys.request(endpoint, params),
    queryFn: ({ signal }) => callEndpoint(endpoint, { params, signal }),
  })
}
