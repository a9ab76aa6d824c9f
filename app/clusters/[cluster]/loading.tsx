import { ClusterPageSkeleton } from '@/components/clusters/cluster-page-skeleton'

export default function Loading() {
  return <ClusterPageSkeleton />
}
