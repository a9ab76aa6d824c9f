import 'server-only'
import type { PartitionLogApi } from '@/server/storage/types'

/**
 * Runs `change` on the log of every replica of a partition, in replica order: an open log as it is, a stopped
 * broker's log opened for the duration and closed after (truncation and log start changes reach every replica,
 * running or not, as the mirror powers need).
 */
export async function forEveryReplicaLog<T>(
  replicas: readonly number[],
  openLogs: ReadonlyMap<number, PartitionLogApi>,
  openStopped: (brokerId: number) => Promise<PartitionLogApi>,
  change: (log: PartitionLogApi) => Promise<T>,
): Promise<Map<number, T>> {
  const results = new Map<number, T>()
  for (const brokerId of replicas) {
    const open = openLogs.get(brokerId)
    if (open) {
      results.set(brokerId, await change(open))
      continue
    }
    const log = await openStopped(brokerId)
    try {
      results.set(brokerId, await change(log))
    } finally {
      await log.close()
    }
  }
  return results
}
