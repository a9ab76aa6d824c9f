import type { MirrorConfigInput, MirrorObjectives } from '@/lib/api/mirrors'
import { BROKER_MIRROR_CONFIG_DEFAULTS, MIRROR_CONFIG_DEFAULTS } from '@/lib/mirror/constants'
import { DEFAULT_THROTTLED_REPLICAS, UNTHROTTLED_RATE } from '@/lib/mirror/replication-throttle'

/**
 * The mirror settings an operator may set (KIP-1279.md §7.3, `MirrorConfigInput`), grouped as the form shows
 * them, each with its default, so a field left empty says what the mirror will use. Keys are Kafka's own.
 */

export type ObjectiveKey = keyof MirrorObjectives
/**
 * A settings box: a config key of Kafka's, or one objective (`objectives.rpoSeconds`): the API takes the
 * objectives as one object, the form shows one box each.
 */
export type MirrorConfigKey = Exclude<keyof MirrorConfigInput, 'objectives'> | `objectives.${ObjectiveKey}`

/** `number` allows a fraction (seconds, days); `integer` does not. */
export type ConfigFieldKind = 'integer' | 'number' | 'patterns' | 'names'

export interface ConfigField {
  readonly key: MirrorConfigKey
  readonly label: string
  readonly help: string
  readonly kind: ConfigFieldKind
  /** Null: nothing applies when the box is empty (an objective not set). */
  readonly defaultValue: number | readonly string[] | null
  /** A unit for numbers, shown beside the box. */
  readonly unit?: 'ms' | 'bytes' | 'bytes/s' | 's' | 'records' | 'days'
}

export interface ConfigGroup {
  readonly title: string
  readonly fields: readonly ConfigField[]
}

export const MIRROR_CONFIG_GROUPS: readonly ConfigGroup[] = [
  {
    title: 'Topic filters',
    fields: [
      {
        key: 'topics.include',
        label: 'Topics to include',
        help: 'Regular expressions matching whole topic names; matching source topics are started at every metadata refresh. Empty: only topics started by name.',
        kind: 'patterns',
        defaultValue: MIRROR_CONFIG_DEFAULTS['topics.include'],
      },
      {
        key: 'topics.exclude',
        label: 'Topics to exclude',
        help: 'Patterns that take topics back out of what the include patterns matched.',
        kind: 'patterns',
        defaultValue: MIRROR_CONFIG_DEFAULTS['topics.exclude'],
      },
      {
        key: 'topic.properties.exclude',
        label: 'Topic configs not copied',
        help: 'Source topic configs never synced to the destination (they describe the source cluster, not the data). mirror.name is never copied whatever this says.',
        kind: 'names',
        defaultValue: MIRROR_CONFIG_DEFAULTS['topic.properties.exclude'],
      },
    ],
  },
  {
    title: 'Consumer group filters',
    fields: [
      {
        key: 'groups.include',
        label: 'Groups to include',
        help: 'Patterns of consumer groups whose committed offsets are synced to the destination.',
        kind: 'patterns',
        defaultValue: MIRROR_CONFIG_DEFAULTS['groups.include'],
      },
      { key: 'groups.exclude', label: 'Groups to exclude', help: 'Patterns taking groups back out of the included ones.', kind: 'patterns', defaultValue: MIRROR_CONFIG_DEFAULTS['groups.exclude'] },
    ],
  },
  {
    title: 'Refresh and retries',
    fields: [
      {
        key: 'mirror.metadata.refresh.interval.ms',
        label: 'Metadata refresh interval',
        help: 'How often the mirror re-reads the source: new topics matching the include patterns, new partitions, config changes.',
        kind: 'integer',
        unit: 'ms',
        defaultValue: BROKER_MIRROR_CONFIG_DEFAULTS['mirror.metadata.refresh.interval.ms'],
      },
      {
        key: 'mirror.failed.retry.initial.backoff.ms',
        label: 'Retry backoff, first',
        help: 'Wait before the first automatic retry of a FAILED partition; doubles with every attempt.',
        kind: 'integer',
        unit: 'ms',
        defaultValue: BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.initial.backoff.ms'],
      },
      {
        key: 'mirror.failed.retry.max.backoff.ms',
        label: 'Retry backoff, longest',
        help: 'The doubling stops here. Must not be below the first backoff.',
        kind: 'integer',
        unit: 'ms',
        defaultValue: BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.max.backoff.ms'],
      },
      {
        key: 'mirror.failed.retry.max.attempts',
        label: 'Retry attempts',
        help: 'Automatic retries before a FAILED partition waits for an operator (recover); 0 turns them off.',
        kind: 'integer',
        defaultValue: BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.max.attempts'],
      },
    ],
  },
  {
    title: 'Throttling',
    fields: [
      {
        key: 'fetch.max.bytes',
        label: 'Fetch size per partition',
        help: 'The most bytes fetched from one source partition in one round: lower it to throttle a mirror that crowds out producers.',
        kind: 'integer',
        unit: 'bytes',
        defaultValue: MIRROR_CONFIG_DEFAULTS['fetch.max.bytes'],
      },
      {
        key: 'fetch.response.max.bytes',
        label: 'Fetch size per round',
        help: 'The most bytes one fetch round takes from the source over all partitions.',
        kind: 'integer',
        unit: 'bytes',
        defaultValue: MIRROR_CONFIG_DEFAULTS['fetch.response.max.bytes'],
      },
      {
        key: 'mirror.replication.throttled.rate',
        label: 'Replication throttle',
        help: 'The most bytes per second the throttled partitions below fetch together; takes effect at the next fetch round. 0 turns the throttle off.',
        kind: 'integer',
        unit: 'bytes/s',
        defaultValue: UNTHROTTLED_RATE,
      },
      {
        key: 'mirror.replication.throttled.replicas',
        label: 'Throttled partitions',
        help: '* for every partition of the mirror, <topic>:* for every partition of a topic, <topic>:<partition> for one.',
        kind: 'names',
        defaultValue: DEFAULT_THROTTLED_REPLICAS,
      },
    ],
  },
  {
    title: 'Objectives',
    fields: [
      {
        key: 'objectives.rpoRecords',
        label: 'Recovery point, records',
        help: 'The most records a failover may lose. An unplanned failover beyond it is refused unless forced, and RpoObjectiveBreached fires.',
        kind: 'integer',
        unit: 'records',
        defaultValue: null,
      },
      {
        key: 'objectives.rpoSeconds',
        label: 'Recovery point, time',
        help: 'The oldest unmirrored record a failover may lose, in seconds; held like the records objective.',
        kind: 'number',
        unit: 's',
        defaultValue: null,
      },
      {
        key: 'objectives.rtoSeconds',
        label: 'Recovery time',
        help: 'How long a failover may take from confirmation to the last partition writable; reports and drills measure against it.',
        kind: 'number',
        unit: 's',
        defaultValue: null,
      },
      {
        key: 'objectives.drillIntervalDays',
        label: 'Drill interval',
        help: 'A successful drill at least this often; past it the mirror is overdue and DrillOverdue fires.',
        kind: 'number',
        unit: 'days',
        defaultValue: null,
      },
    ],
  },
]

export const MIRROR_CONFIG_FIELDS: readonly ConfigField[] = MIRROR_CONFIG_GROUPS.flatMap((group) => group.fields)

/** The text a field's box holds for a value: numbers as digits, lists one entry a line. */
export function configText(value: unknown): string {
  if (Array.isArray(value)) return value.join('\n')
  if (typeof value === 'number') return String(value)
  return typeof value === 'string' ? value : ''
}

/** A long default list is summed up: the box (placeholder or value) lists every entry. */
export function defaultText(field: ConfigField): string {
  if (field.defaultValue === null) return 'none set'
  if (!Array.isArray(field.defaultValue)) return String(field.defaultValue)
  const list: readonly string[] = field.defaultValue
  if (list.length === 0) return '(none)'
  return list.length <= 3 ? list.join(', ') : `${list.length} entries (${list.slice(0, 2).join(', ')}, …)`
}

/** The objective a box edits, or null for a config key of its own. */
export function objectiveOf(key: MirrorConfigKey): ObjectiveKey | null {
  return key.startsWith('objectives.') ? (key.slice('objectives.'.length) as ObjectiveKey) : null
}
