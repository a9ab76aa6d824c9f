'use client'

import { useQuery } from '@tanstack/react-query'
import { partitionHistoryRequest } from '@/components/partition/queries'
import { endpointQuery } from './endpoint-query'

/** A mirror partition's transitions, oldest first as the API lists them; kept current by cache-sync's partition events. */
export function usePartitionHistory(mirror: string, topic: string, partition: number) {
  const request = partitionHistoryRequest(mirror, topic, partition)
  return useQuery(endpointQuery(request.endpoint, request))
}
