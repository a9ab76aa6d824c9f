'use client'

import { useQuery } from '@tanstack/react-query'
import { HealthResponse } from '@/lib/api/health'

export const healthKeys = { all: ['health'] as const }

export function useHealth() {
  return useQuery({
    queryKey: healthKeys.all,
    queryFn: async ({ signal }) => {
      const response = await fetch('/api/v1/health', { signal, cache: 'no-store' })
      if (!response.ok) throw new Error(`health check answered HTTP ${response.status}`)
      return HealthResponse.parse(await response.json())
    },
    refetchInterval: 5_000,
  })
}
