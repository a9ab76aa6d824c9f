'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { CreateClusterRequest } from '@/lib/api/clusters'
import { clusterEndpoints } from '@/lib/api/routes'
import type { ProduceRequest } from '@/lib/api/records'
import type { CreateTopicRequest, PatchTopicConfigsRequest } from '@/lib/api/topics'
import { callEndpoint } from './call-endpoint'
import { endpointQuery } from './endpoint-query'
import { queryKeys } from './query-keys'

/**
 * Cluster and topic administration from the dashboard (issue #19). Every mutation refreshes what shows the
 * cluster on success; the `cluster` events of the stream do the same for other tabs (cache-sync.ts).
 */

function useRefreshCluster() {
  const queryClient = useQueryClient()
  return (cluster: string, topic?: string) => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listClusters) })
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.getCluster, { cluster }) })
    void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listTopics, { cluster }) })
    if (topic !== undefined) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listPartitions, { cluster, topic }) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.getTopicConfigs, { cluster, topic }) })
    }
  }
}

export function useCreateCluster() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (request: CreateClusterRequest) => callEndpoint(clusterEndpoints.createCluster, { body: request }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listClusters) }),
  })
}

export function useDeleteCluster() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (cluster: string) => callEndpoint(clusterEndpoints.deleteCluster, { params: { cluster } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.of(clusterEndpoints.listClusters) }),
  })
}

export function useCreateTopic(cluster: string) {
  const refresh = useRefreshCluster()
  return useMutation({
    mutationFn: (request: CreateTopicRequest) => callEndpoint(clusterEndpoints.createTopic, { params: { cluster }, body: request }),
    onSuccess: (topic) => refresh(cluster, topic.name),
  })
}

export function useTopicPartitions(cluster: string, topic: string) {
  return useQuery(endpointQuery(clusterEndpoints.listPartitions, { params: { cluster, topic } }))
}

export function useTopicConfigs(cluster: string, topic: string) {
  return useQuery(endpointQuery(clusterEndpoints.getTopicConfigs, { params: { cluster, topic } }))
}

export function useCreatePartitions(cluster: string, topic: string) {
  const refresh = useRefreshCluster()
  return useMutation({
    mutationFn: (count: number) => callEndpoint(clusterEndpoints.createPartitions, { params: { cluster, topic }, body: { count } }),
    onSuccess: () => refresh(cluster, topic),
  })
}

export function useDeleteRecords(cluster: string, topic: string) {
  const refresh = useRefreshCluster()
  return useMutation({
    mutationFn: ({ partition, beforeOffset }: { partition: number; beforeOffset: number }) =>
      callEndpoint(clusterEndpoints.deleteRecords, { params: { cluster, topic, partition }, body: { beforeOffset } }),
    onSuccess: () => refresh(cluster, topic),
  })
}

export function usePatchTopicConfigs(cluster: string, topic: string) {
  const refresh = useRefreshCluster()
  return useMutation({
    mutationFn: (request: PatchTopicConfigsRequest) => callEndpoint(clusterEndpoints.patchTopicConfigs, { params: { cluster, topic }, body: request }),
    onSuccess: () => refresh(cluster, topic),
  })
}

export function useDeleteTopic(cluster: string, topic: string) {
  const refresh = useRefreshCluster()
  return useMutation({
    mutationFn: () => callEndpoint(clusterEndpoints.deleteTopic, { params: { cluster, topic } }),
    onSuccess: () => refresh(cluster, topic),
  })
}

export function useProduceRecord(cluster: string, topic: string) {
  const refresh = useRefreshCluster()
  return useMutation({
    mutationFn: (request: ProduceRequest) => callEndpoint(clusterEndpoints.produce, { params: { cluster, topic }, body: request }),
    onSuccess: () => refresh(cluster, topic),
  })
}

/** The topics of a cluster chosen in a form: no request until one is chosen. */
export function useTopicsOf(cluster: string) {
  return useQuery({ ...endpointQuery(clusterEndpoints.listTopics, { params: { cluster } }), enabled: cluster !== '' })
}
