import { PartitionSkeleton } from '@/components/partition/partition-skeleton'

export default function Loading() {
  return <PartitionSkeleton />
}
