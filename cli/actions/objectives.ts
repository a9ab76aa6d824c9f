import { mirrorEndpoints } from '@/lib/api/endpoints'
import { MirrorObjectives, type Mirror } from '@/lib/api/mirrors'
import { objectivesOf } from '@/lib/failover/objectives'
import { dateTime, formatDuration } from '@/lib/ui/format'
import type { Action } from '../action'
import { MIRROR_OPTION } from '../action'
import { EXIT } from '../exit'
import { option, type Flags } from '../flags'
import { paint, renderFields, type Style } from '../format'
import { ifMatch, readMirror } from '../mirror-reads'

/**
 * `--objectives`: a mirror's objectives (API.md §"Round 3" `config.objectives`) and where the mirror stands
 * against them now: the RPO in records and seconds against its lag (what an unplanned failover would lose; the
 * failover's rpo-objective gate compares the same), the RTO the reports measure against, and the drill cadence
 * (last successful drill, next due, overdue). With --rpo-records, --rpo-seconds, --rto-seconds or
 * --drill-interval-days it sets them (the others kept; `none` removes one), --clear removes them all: a PATCH of
 * the mirror's config with If-Match, so a change made meanwhile is refused, not overwritten.
 */

type Objectives = MirrorObjectives
type Key = keyof Objectives

/** The flags that set an objective, each with its attribute, unit and bounds (the API's, checked before sending). */
const SETTERS: ReadonlyArray<{ key: Key; flag: string; attribute: string; what: string }> = [
  { key: 'rpoRecords', flag: '--rpo-records', attribute: 'rpoRecords', what: 'at most this many records lost by an unplanned failover (an integer)' },
  { key: 'rpoSeconds', flag: '--rpo-seconds', attribute: 'rpoSeconds', what: 'at most this many seconds of records lost by an unplanned failover' },
  { key: 'rtoSeconds', flag: '--rto-seconds', attribute: 'rtoSeconds', what: 'a failover takes at most this long (the post-mortem and drills measure against it)' },
  { key: 'drillIntervalDays', flag: '--drill-interval-days', attribute: 'drillIntervalDays', what: 'a successful drill at least this often (DrillOverdue fires after it)' },
]

/** The changes the flags ask for: a number, or null to remove; undefined when no setter was given. */
function requested(flags: Flags): Map<Key, number | null> | undefined {
  const changes = new Map<Key, number | null>()
  for (const setter of SETTERS) {
    const value = flags.string(setter.attribute)
    if (value === undefined) continue
    if (value === 'none') {
      changes.set(setter.key, null)
      continue
    }
    const number = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN
    const checked = MirrorObjectives.shape[setter.key].safeParse(number)
    if (!checked.success || Number.isNaN(number)) {
      throw flags.usageError(`${setter.flag} must be ${setter.key === 'rpoRecords' ? 'an integer' : 'a number'} within the API's bounds, or none (got "${value}")${checked.success ? '' : `: ${checked.error.issues[0]?.message ?? ''}`}`)
    }
    changes.set(setter.key, number)
  }
  return changes.size === 0 ? undefined : changes
}

function standing(mirror: Mirror, objectives: Objectives | null, style: Style): Array<[string, string]> {
  const bound = mirror.lagKnown === false ? '≥' : ''
  const lagRecords = mirror.totalOffsetLag
  const lagSeconds = mirror.maxTimeLagMs === null ? null : mirror.maxTimeLagMs / 1000
  const against = (objective: number | undefined, now: number | null, unit: string): string => {
    const current = now === null ? 'unknown' : `${bound}${unit === 's' ? formatDuration(now * 1000) : `${now} records`}`
    if (objective === undefined) return `none set (at risk now: ${current})`
    const status = now === null ? paint('unknown', 'paused', style) : now <= objective ? paint('met', 'healthy', style) : paint('breached', 'danger', style)
    return `${unit === 's' ? formatDuration(objective * 1000) : `${objective} records`}: ${status} (at risk now: ${current})`
  }
  const drills = mirror.drills
  const cadence = (() => {
    if (objectives?.drillIntervalDays === undefined) return `none set${drills?.lastSucceededAt ? ` (last successful drill ${dateTime(drills.lastSucceededAt)})` : ''}`
    const every = `every ${objectives.drillIntervalDays} day${objectives.drillIntervalDays === 1 ? '' : 's'}`
    if (drills === undefined || drills.lastSucceededAt === null) return `${every}: ${paint('overdue', 'danger', style)} (no successful drill yet)`
    const due = drills.dueAt === null ? '' : `, next due ${dateTime(drills.dueAt)}`
    return `${every}: ${drills.overdue === true ? paint('overdue', 'danger', style) : paint('on time', 'healthy', style)} (last successful drill ${dateTime(drills.lastSucceededAt)}${due})`
  })()
  return [
    ['mirror', mirror.name],
    ['rpo records', against(objectives?.rpoRecords, lagRecords, 'records')],
    ['rpo seconds', against(objectives?.rpoSeconds, lagSeconds, 's')],
    ['rto', objectives?.rtoSeconds === undefined ? 'none set' : formatDuration(objectives.rtoSeconds * 1000)],
    ['drills', cadence],
  ]
}

export const objectivesAction: Action = {
  name: 'objectives',
  flag: '--objectives',
  origin: 'mirrorboard',
  summary: "A mirror's objectives (RPO, RTO, drill cadence) and where it stands against them; sets them",
  usage: '--objectives --mirror M [--rpo-records N|none] [--rpo-seconds S|none] [--rto-seconds S|none] [--drill-interval-days D|none] [--clear]',
  examples: ['mirrorboard --objectives --mirror dr', 'mirrorboard --objectives --mirror dr --rpo-records 1000 --rpo-seconds 30 --drill-interval-days 30', 'mirrorboard --objectives --mirror dr --rto-seconds none'],
  options: [MIRROR_OPTION, ...SETTERS.map((setter) => option(`${setter.flag} <value>`, `${setter.what}; none removes it`)), option('--clear', 'remove every objective')],
  details: [
    'The RPO is what an unplanned failover may lose: one that would lose more is refused unless the rpo-objective gate',
    'is forced, and RpoObjectiveBreached fires while the lag is over it. Setting one objective keeps the others.',
  ].join('\n'),
  async run({ api, out, flags, style }) {
    const mirrorName = flags.required('mirror')
    const changes = requested(flags)
    const clear = flags.boolean('clear')
    if (clear && changes !== undefined) throw flags.usageError('--clear removes every objective: give it alone, or name the ones to change')
    let mirror = await readMirror(api, mirrorName)
    if (clear || changes !== undefined) {
      const next: Record<string, number> = { ...(objectivesOf(mirror.config) ?? {}) }
      for (const [key, value] of changes ?? []) {
        if (value === null) delete next[key]
        else next[key] = value
      }
      const objectives = clear || Object.keys(next).length === 0 ? null : MirrorObjectives.parse(next)
      mirror = await api.call(mirrorEndpoints.patchMirror, { params: { mirror: mirrorName }, body: { config: { objectives } }, headers: ifMatch(mirror) })
      out.note(objectives === null ? `Objectives of ${mirrorName} removed` : `Objectives of ${mirrorName} set`)
    }
    const objectives = objectivesOf(mirror.config)
    out.result({ mirror: mirror.name, objectives, lag: { records: mirror.totalOffsetLag, timeMs: mirror.maxTimeLagMs, known: mirror.lagKnown ?? true }, drills: mirror.drills ?? null }, () =>
      renderFields(standing(mirror, objectives, style)),
    )
    return EXIT.ok
  },
}
