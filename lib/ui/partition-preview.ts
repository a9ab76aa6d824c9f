import type { MirrorPartition, MirrorPartitionState } from '@/lib/api/mirrors'

/**
 * The first screen of a mirror's partition table as the server page read it (server/pages/mirror-first-rows.ts),
 * shown until the whole list arrives: its rows in the table's default order, and the mirror's totals for the
 * counts. Here, not beside the store that shows it, because the server builds it and imports no component.
 */
export interface PartitionPreview {
  readonly partitions: readonly MirrorPartition[]
  readonly total: number
  readonly partitionsByState: Readonly<Partial<Record<MirrorPartitionState, number>>>
}
