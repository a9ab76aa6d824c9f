import { drillEndpoints } from '@/lib/api/endpoints'
import { Drill, DrillPhase, type DrillList } from '@/lib/api/drills'
import { DRILL_CHECK_TITLES } from '@/lib/drill/check-titles'
import { DRILL_STATUS_STYLE } from '@/lib/ui/status-style'
import { clockTime, dateTime, formatDuration } from '@/lib/ui/format'
import type { Action } from '../action'
import type { Context } from '../context'
import { eventData, EventStream } from '../event-stream'
import { EXIT, RefusedError } from '../exit'
import { option } from '../flags'
import { paint, renderTable, type Style } from '../format'

/**
 * `--drill --mirror M`: the failover rehearsed on a copy of the destination taken at the mirrored point, while
 * the mirror keeps mirroring (issue #37's drills, `POST /mirrors/{m}/drills`); followed over the event stream,
 * a line per phase, until it ends: its checks, measured RTO and RPO, and the production lag meanwhile. Exit 0
 * when it succeeded, 1 when it failed or was cancelled (a failed check is a failover that would have failed).
 * `--id ID` follows or shows one, `--history` lists the mirror's, `--report ID` prints one as a document
 * (Markdown with --format md), `--cancel ID` stops a running one.
 */

export const drillAction: Action = {
  name: 'drill',
  flag: '--drill',
  origin: 'mirrorboard',
  summary: 'Rehearse the failover on a copy of the destination while the mirror keeps mirroring: checks, RTO, RPO',
  usage: '--drill --mirror M [--topics a,b] [--no-wait] | --drill --id ID | --drill --mirror M --history | --drill --report ID [--format md] | --drill --cancel ID',
  examples: ['mirrorboard --drill --mirror dr', 'mirrorboard --drill --mirror dr --history', 'mirrorboard --drill --report d-4k2x9 --format md > drill.md'],
  options: [
    option('--mirror <name>', 'the mirror to rehearse (or whose drills --history lists)'),
    option('--topics <topic,...>', "only these topics of the mirror (names; all by default)"),
    option('--id <drill>', 'follow or show this drill instead of starting one'),
    option('--history', "the mirror's drills, newest first, and whether one is overdue"),
    option('--report <drill>', 'this drill as a report: JSON, or Markdown with --format md'),
    option('--format <format>', 'the report as json (default) or md (Markdown)', { choices: ['json', 'md'] }),
    option('--cancel <drill>', 'stop this running drill at its next step (its copy is removed)'),
    option('--no-wait', 'return once the drill is started'),
  ],
  details: [
    'Nothing changes on the mirror, its source or its destination: the failover runs on a copy that is removed at the end.',
    'Exit 0 when every check passed; 1 when a check failed, the drill failed or was cancelled.',
  ].join('\n'),
  async run(context) {
    const { api, out, flags, io, style } = context
    const modes = (['id', 'history', 'report', 'cancel'] as const).filter((name) => flags.has(name))
    if (modes.length > 1) throw flags.usageError(`--${modes.join(' and --')} are different things: one at a time`)
    const report = flags.string('report')
    if (report !== undefined) {
      if (flags.string('format') === 'md') {
        io.stdout.write(await api.text(drillEndpoints.drillReport, { params: { id: report }, query: { format: 'md' } }))
        return EXIT.ok
      }
      const drill = await api.call(drillEndpoints.drillReport, { params: { id: report } })
      out.result(drill, () => renderDrill(drill, style))
      return EXIT.ok
    }
    const cancel = flags.string('cancel')
    if (cancel !== undefined) {
      const drill = await api.call(drillEndpoints.cancelDrill, { params: { id: cancel } })
      out.result(drill, () => `Drill ${drill.id} of ${drill.mirror}: ${drill.status}\n`)
      return EXIT.ok
    }
    if (flags.boolean('history')) {
      const mirror = flags.required('mirror', 'with --history')
      const list = await api.call(drillEndpoints.listMirrorDrills, { params: { mirror } })
      out.result(list, () => renderHistory(mirror, list, style))
      return EXIT.ok
    }
    let id = flags.string('id')
    if (id === undefined) {
      const mirror = flags.required('mirror', 'unless --id names a drill')
      const topics = flags.list('topics')
      id = (await api.call(drillEndpoints.startDrill, { params: { mirror }, body: topics === undefined ? {} : { topics } })).drill
      out.note(`Drill ${id} of ${mirror} started`)
      if (!flags.boolean('wait')) {
        out.result({ drill: id }, () => `Follow it with mirrorboard --drill --id ${id}\n`)
        return EXIT.ok
      }
    }
    const drill = await followDrill(context, id)
    out.result(drill, () => renderDrill(drill, style))
    if (drill.status !== 'succeeded') {
      const failedChecks = drill.checks.filter((check) => !check.ok).map((check) => check.name)
      const why = drill.error ?? (failedChecks.length > 0 ? `failed checks: ${failedChecks.join(', ')}` : `stopped in ${drill.stoppedIn ?? 'an unknown phase'}`)
      throw new RefusedError(drill.status === 'cancelled' ? 'DRILL_CANCELLED' : 'DRILL_FAILED', `drill ${drill.id} of ${drill.mirror} ${drill.status}: ${why}`)
    }
    return EXIT.ok
  },
}

/** Phases in the order a drill goes through them. */
const PHASE_ORDER = DrillPhase.options

/**
 * Whether `next` is news about the drill held: the stream is opened before the drill is read, so events sent in
 * between arrive after a read that is already past them, and would print a phase going backwards.
 */
export function isNewer(held: Pick<Drill, 'phase' | 'status'>, next: Pick<Drill, 'phase' | 'status'>): boolean {
  if (held.status !== 'running') return false
  return next.status !== 'running' || PHASE_ORDER.indexOf(next.phase) >= PHASE_ORDER.indexOf(held.phase)
}

/** The drill until it ends: a line each time its phase changes, from the stream (its events carry the whole drill). */
async function followDrill({ api, io, out }: Context, id: string): Promise<Drill> {
  const controller = new AbortController()
  const stop = () => controller.abort()
  io.signal.addEventListener('abort', stop, { once: true })
  let phase = ''
  const show = (drill: Drill) => {
    if (drill.phase === phase) return
    phase = drill.phase
    out.note(`${clockTime(io.now())}  ${drill.id}: ${drill.phase === 'done' ? drill.status : drill.phase}`)
  }
  try {
    const stream = await EventStream.open(api, ['drill'], controller.signal)
    let current = await api.call(drillEndpoints.getDrill, { params: { id } })
    show(current)
    if (current.status !== 'running') return current
    for await (const event of stream) {
      if (event.type === 'resync') current = await api.call(drillEndpoints.getDrill, { params: { id } })
      else if (event.type === 'drill') {
        const parsed = Drill.safeParse(eventData(event))
        if (!parsed.success || parsed.data.id !== id || !isNewer(current, parsed.data)) continue
        current = parsed.data
      } else continue
      show(current)
      if (current.status !== 'running') break
    }
    return current
  } catch (error) {
    if (io.signal.aborted) out.warn(`Interrupted: drill ${id} goes on in the server (follow it with mirrorboard --drill --id ${id})`)
    throw error
  } finally {
    io.signal.removeEventListener('abort', stop)
    controller.abort()
  }
}

function renderDrill(drill: Drill, style: Style): string {
  const status = DRILL_STATUS_STYLE[drill.status]
  const rpo = drill.rpo.records === null ? 'unknown' : `${drill.rpo.records} record${drill.rpo.records === 1 ? '' : 's'}${drill.rpo.seconds === null ? '' : ` (${formatDuration(drill.rpo.seconds * 1000)})`}`
  const lines = [
    `Drill ${drill.id} of ${drill.mirror}: ${paint(`${status.icon} ${drill.status}`, status.tone, style)}${drill.stoppedIn === null ? '' : ` (stopped in ${drill.stoppedIn})`}`,
    `RTO ${drill.rtoMs === null ? 'unknown' : formatDuration(drill.rtoMs)} · RPO ${rpo}` +
      (drill.productionLag === null ? '' : ` · production lag meanwhile: max ${drill.productionLag.maxOffsetLag} records, ${formatDuration(drill.productionLag.maxTimeLagMs)}`),
    ...(drill.error === null ? [] : [`Error: ${drill.error}`]),
    '',
    renderTable(
      drill.checks,
      [
        { header: 'CHECK', value: (check) => check.name },
        { header: 'RESULT', value: (check) => (check.ok ? '✓ passed' : '✕ failed'), tone: (check) => (check.ok ? 'healthy' : 'danger') },
        { header: 'DETAIL', value: (check) => `${DRILL_CHECK_TITLES[check.name]}: ${check.detail}` },
      ],
      style,
    ).trimEnd(),
  ]
  if (drill.partitions.length > 0) {
    lines.push(
      '',
      renderTable(
        drill.partitions,
        [
          { header: 'TOPIC', value: (entry) => entry.topic },
          { header: 'PARTITION', value: (entry) => String(entry.partition) },
          { header: 'MIRRORED-OFFSET', value: (entry) => String(entry.mirroredOffset) },
          { header: 'MARKERS', value: (entry) => entry.markers.map((marker) => `${marker.type}${marker.producerId === null ? '' : ` ${marker.producerId}`}@${marker.offset}`).join(', ') || '-' },
        ],
        style,
      ).trimEnd(),
    )
  }
  if (drill.skipped.length > 0) lines.push('', `Not drilled (not MIRRORING): ${drill.skipped.map((entry) => `${entry.topic}-${entry.partition} (${entry.state})`).join(', ')}`)
  return `${lines.join('\n')}\n`
}

function renderHistory(mirror: string, list: DrillList, style: Style): string {
  const cadence =
    list.intervalDays === null
      ? `No drillIntervalDays objective for ${mirror}`
      : `${mirror} is to be drilled every ${list.intervalDays} days: ${list.overdue === true ? paint('overdue', 'danger', style) : 'on time'}`
  const last = list.lastSucceededAt === null ? 'no drill has succeeded yet' : `last success ${dateTime(list.lastSucceededAt)}`
  return [
    `${cadence}; ${last}.`,
    '',
    renderTable(
      list.drills,
      [
        { header: 'ID', value: (drill) => drill.id },
        { header: 'STATUS', value: (drill) => drill.status, tone: (drill) => DRILL_STATUS_STYLE[drill.status].tone },
        { header: 'STARTED', value: (drill) => dateTime(drill.startedAt) },
        { header: 'RTO', value: (drill) => (drill.rtoMs === null ? '-' : formatDuration(drill.rtoMs)) },
        { header: 'RPO-RECORDS', value: (drill) => (drill.rpo.records === null ? '-' : String(drill.rpo.records)) },
        { header: 'CHECKS', value: (drill) => `${drill.checks.filter((check) => check.ok).length}/${drill.checks.length} passed` },
        { header: 'BY', value: (drill) => drill.requestedBy?.actor ?? '-' },
      ],
      style,
    ),
  ].join('\n')
}
