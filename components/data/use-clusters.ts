'use client'

import { useQuery } from '@tanstack/react-query'
import { clusterEndpoints } from '@/lib/api/routes'
import { endpointQuery } from './endpoint-query'

export function useClusters() {
  return useQuery(endpointQuery(clusterEndpoints.listClusters))
}

export function useCluster(cluster: string) {
  return useQuery(endpointQuery(clusterEndpoints.getCluster, { params: { cluster } }))
}

export function useTopics(cluster: string) {
  return useQuery(endpointQuery(clusterEndpoints.listTopics, { params: { cluster } }))
}

export function useGroups(cluster: string) {
  return useQuery(endpointQuery(clusterEndpoints.listGroups, { params: { cluster } }))
}
