'use client'

import { useQuery } from '@tanstack/react-query'
import { clusterEndpoints } from '@/lib/api/endpoints'
import { callEndpoint } from './call-endpoint'
import { queryKeys } from './query-keys'

export function useClusters() {
  return useQuery({
    queryKey: queryKeys.request(clusterEndpoints.listClusters),
    queryFn: ({ signal }) => callEndpoint(clusterEndpoints.listClusters, { signal }),
  })
}

export function useCluster(cluster: string) {
  return useQuery({
    queryKey: queryKeys.request(clusterEndpoints.getCluster, { cluster }),
    queryFn: ({ signal }) => callEndpoint(clusterEndpoints.getCluster, { params: { cluster }, signal }),
  })
}

export function useTopics(cluster: string) {
  return useQuery({
    queryKey: queryKeys.request(clusterEndpoints.listTopics, { cluster }),
    queryFn: ({ signal }) => callEndpoint(clusterEndpoints.listTopics, { params: { cluster }, signal }),
  })
}

export function useGroups(cluster: string) {
  return useQuery({
    queryKey: queryKeys.request(clusterEndpoints.listGroups, { cluster }),
    queryFn: ({ signal }) => callEndpoint(clusterEndpoints.listGroups, { params: { cluster }, signal }),
  })
}
