import 'server-only'
import type { Mirror, MirrorPartition } from '@/lib/api/mirrors'
import type { PartitionPreview } from '@/lib/ui/partition-preview'
import { DEFAULT_SORT, comparePartitions } from '@/lib/ui/partition-table'
import type { MirrorApi } from '@/server/api/mirror-api'

/**
 * Rows the mirror page renders with its HTML: a tall first screen (36rem of 32 px rows is 18, a phone's
 * two-line cards fewer) and the virtualizer's overscan. More would only make the HTML heavier.
 */
export const FIRST_SCREEN_ROWS = 40

/**
 * The partition table's first screen in its default order (topic, then partition), read topic by topic so
 * a 10,000-partition mirror costs the first topic's partitions, not the whole list: the page shows these
 * rows at once while the browser fetches the full list (UI.md §4: navigation to visible rows < 1.5 s).
 * null when they cannot be read; the table then waits for the list as before.
 */
export function firstPartitionRows(api: MirrorApi, mirror: Mirror): PartitionPreview | null {
  const compare = comparePartitions(DEFAULT_SORT)
  const topics = [...mirror.topics].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const rows: MirrorPartition[] = []
  try {
    for (const topic of topics) {
      if (rows.length >= FIRST_SCREEN_ROWS) break
      rows.push(...[...api.partitions(mirror.name, { topic })].sort(compare).slice(0, FIRST_SCREEN_ROWS - rows.length))
    }
  } catch {
    return null
  }
  const total = Object.values(mirror.partitionsByState).reduce((sum, count) => sum + (count ?? 0), 0)
  return { partitions: rows, total, partitionsByState: mirror.partitionsByState }
}
