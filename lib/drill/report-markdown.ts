/**
 * A drill's report as a Markdown document (GET /drills/{id}/report?format=md): what was rehearsed, how it went
 * against the objectives, every check with its detail, what the failover wrote on the copy and what the
 * production mirror did meanwhile. Pure.
 */
import type { Drill } from '../api/drills'
import type { ReportObjectives } from '../api/operation-report'
import { code, document, table, text, utc } from '../report/markdown'
import { formatDuration } from '../ui/format'
import { DRILL_CHECK_TITLES } from './check-titles'

function objectives(drill: Drill, set: ReportObjectives | null): string {
  if (set === null) return '## Objectives\n\nNone set for this mirror: the measured figures stand alone.'
  const rows: Array<[string, string, string, string]> = []
  const row = (name: string, target: number | undefined, measured: number | null, unit: string) => {
    if (target === undefined) return
    rows.push([name, `${target} ${unit}`, measured === null ? 'unknown' : `${Number(measured.toFixed(3))} ${unit}`, measured === null ? 'unknown' : measured <= target ? '✓ met' : '✕ breached'])
  }
  row('RTO', set.rtoSeconds, drill.rtoMs === null ? null : drill.rtoMs / 1000, 's')
  row('RPO (records)', set.rpoRecords, drill.rpo.records, 'records')
  row('RPO (seconds)', set.rpoSeconds, drill.rpo.seconds, 's')
  if (set.drillIntervalDays !== undefined) rows.push(['Drill interval', `${set.drillIntervalDays} days`, 'this drill', drill.status === 'succeeded' ? '✓ renewed' : '✕ not renewed'])
  return rows.length === 0 ? '## Objectives\n\nThe mirror sets no RPO, RTO or drill interval objective.' : `## Objectives\n\n${table(['objective', 'target', 'measured', 'result'], rows)}`
}

export function drillReportMarkdown(drill: Drill, context: { objectives: ReportObjectives | null; generatedAt: number }): string {
  const lag = drill.productionLag
  const summary = [
    '## Summary',
    '',
    `- Mirror ${code(drill.mirror)}, topics ${drill.topics.map((topic) => code(topic)).join(', ')}: **${drill.status}**${drill.error ? ` — ${text(drill.error)}` : ''}`,
    `- Started ${utc(drill.startedAt)}${drill.finishedAt === null ? '' : `, ended ${utc(drill.finishedAt)} (${formatDuration(drill.finishedAt - drill.startedAt)})`}; requested by ${code(drill.requestedBy?.actorName ?? drill.requestedBy?.actor ?? 'unrecorded')}`,
    `- RTO (drill start → copy writable): ${drill.rtoMs === null ? 'not reached' : formatDuration(drill.rtoMs)}`,
    `- RPO when the copy was taken: ${drill.rpo.records ?? 'unknown'} record(s), oldest ${drill.rpo.seconds === null ? 'unknown' : `${Number(drill.rpo.seconds.toFixed(3))} s`}`,
    `- Production lag meanwhile: ${lag === null ? 'not sampled' : `max ${lag.maxOffsetLag} record(s) / ${formatDuration(lag.maxTimeLagMs)}, p99 ${lag.p99OffsetLag} / ${formatDuration(lag.p99TimeLagMs)} over ${lag.samples} samples`}`,
    `- Sandbox ${code(drill.sandbox.name)}: ${drill.sandbox.copiedFrom === 'files' ? `copied from the destination's files (${drill.sandbox.filesLinked} linked, ${drill.sandbox.bytesCopied} bytes copied)` : `filled from the destination broker's log (${drill.sandbox.bytesCopied} bytes)`}, ${drill.sandbox.removed ? 'removed' : 'still present'}`,
  ].join('\n')
  const checks = drill.checks.length === 0 ? '## Checks\n\nNo check ran.' : `## Checks\n\n${table(['check', 'result', 'detail'], drill.checks.map((check) => [DRILL_CHECK_TITLES[check.name], check.ok ? '✓ passed' : '✕ failed', check.detail]))}`
  const partitions = `## Partitions\n\n${table(
    ['partition', 'mirrored up to', 'source HW', 'planned aborts (producer)', 'markers written on the copy'],
    drill.partitions.map((p) => [
      `${p.topic}-${p.partition}`,
      p.mirroredOffset,
      p.sourceHighWatermark,
      p.plannedAborts.length === 0 ? 'none' : p.plannedAborts.map((a) => a.producerId).join(', '),
      p.markers.map((m) => `${m.type}${m.producerId === null ? '' : ` ${m.producerId}`} at ${m.offset}`).join(', ') || 'none',
    ]),
    ['l', 'r', 'r', 'l', 'l'],
  )}`
  const skipped = drill.skipped.length === 0 ? null : `## Not drilled\n\n${table(['partition', 'state'], drill.skipped.map((p) => [`${p.topic}-${p.partition}`, p.state]))}`
  const emulation = drill.sandbox.emulation.length === 0 ? null : `## Emulation\n\n${drill.sandbox.emulation.map((note) => `- ${text(note.message)}`).join('\n')}`
  return document([`# Drill of ${text(drill.mirror)}`, `Drill ${code(drill.id)} · generated ${utc(context.generatedAt)}`, summary, objectives(drill, context.objectives), checks, partitions, skipped, emulation])
}
