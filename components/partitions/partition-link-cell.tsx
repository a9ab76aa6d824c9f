import Link from 'next/link'
import { partitionHref } from '@/lib/ui/partition-href'

/** The first cell of every per-partition table (failover impact, failback truncation, operation outcome). */
export function PartitionLinkCell({ mirror, topic, partition, className = '' }: { mirror: string; topic: string; partition: number; className?: string }) {
  return (
    <td className={`px-3 py-2 font-mono break-words ${className}`}>
      <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={partitionHref(mirror, topic, partition)}>
        {topic}-{partition}
      </Link>
    </td>
  )
}
