/** The drill checks' names as people read them (the drill page, its report, the mirror's Drills tab). */
import type { DrillCheckName } from './checks'

export const DRILL_CHECK_TITLES: Readonly<Record<DrillCheckName, string>> = {
  'markers-as-planned': 'Markers where the plan said',
  'read-committed': 'read_committed sees exactly the committed data',
  'group-offsets': 'Consumer group offsets present and within the log',
  'idempotent-producer': 'An idempotent producer writes and reads back',
  'transactional-producer': 'A transactional producer writes and reads back',
  'source-untouched': 'Nothing reaches the source',
  'production-kept-mirroring': 'Production kept MIRRORING',
}
