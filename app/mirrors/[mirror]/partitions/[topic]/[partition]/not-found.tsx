import { PartitionNotFound } from '@/components/partition/partition-not-found'

export const metadata = { title: 'Partition not found' }

export default function NotFound() {
  return <PartitionNotFound />
}
