'use client'

import { useQuery } from '@tanstack/react-query'
import { systemEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

/**
 * The instances sharing the mirroring work. No event announces a heartbeat, so this is read again every few
 * seconds: an instance that stops heart-beating turns dead here without a reload.
 */
export function useInstances() {
  return useQuery({
    ...endpointQuery(systemEndpoints.instances),
    refetchInterval: 5_000,
  })
}
