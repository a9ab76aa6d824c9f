/**
 * The failover's post-mortem as a Markdown document (GET /operations/{id}/report?format=md): the same facts as
 * the JSON report (lib/api/operation-report.ts), in the order a team reads them after an incident — what
 * happened and whether the objectives held, the timeline, the gates and who forced them, the markers written,
 * whether the mirrored data is identical, where consumer groups resume, what to do next. Pure.
 */
import type { OperationReport } from '../api/operation-report'
import { cell, code, document, table, text, utc } from '../report/markdown'
import { formatDuration } from '../ui/format'

const OBJECTIVE_NAMES = { rpoRecords: 'RPO (records)', rpoSeconds: 'RPO (seconds)', rtoSeconds: 'RTO (seconds)' } as const

function figure(value: number | null, unit: 'records' | 'seconds'): string {
  if (value === null) return 'unknown'
  return unit === 'seconds' ? `${Number(value.toFixed(3))} s` : `${value}`
}

function summary(report: OperationReport): string {
  const { operation, totals, confirmation, measured } = report
  const took = operation.durationMs === null ? 'still running' : formatDuration(operation.durationMs)
  return [
    '## Summary',
    '',
    `- Mirror ${code(operation.mirror)}: ${code(operation.sourceCluster ?? '?')} → ${code(operation.destinationCluster ?? '?')}`,
    `- Status: **${operation.status}** — ${totals.stopped} of ${totals.partitions} partition(s) STOPPED and writable${totals.failed > 0 ? `, ${totals.failed} failed` : ''}`,
    `- Confirmed by ${code(confirmation.confirmedBy ?? 'unrecorded')} at ${utc(confirmation.confirmedAt)}; finished ${operation.finishedAt === null ? '—' : `at ${utc(operation.finishedAt)}`} (${took})`,
    `- Forced gates: ${confirmation.forcedGates.length === 0 ? 'none' : confirmation.forcedGates.map((gate) => code(gate.name)).join(', ')}`,
    `- Measured RTO (confirmation → last partition writable): ${measured.rtoMs === null ? 'not reached' : formatDuration(measured.rtoMs)}`,
    `- Measured RPO when confirmed: ${figure(measured.rpo.records, 'records')} record(s) at risk, oldest ${figure(measured.rpo.seconds, 'seconds')}`,
    ...(measured.switchover === undefined ? [] : [switchoverLine(measured.switchover)]),
    `- Transactions aborted: ${totals.transactionsAborted}${totals.producersAborted.length > 0 ? ` (producers ${totals.producersAborted.join(', ')})` : ''}`,
  ].join('\n')
}

function switchoverLine(times: NonNullable<OperationReport['measured']['switchover']>): string {
  const took = (ms: number | null) => (ms === null ? '—' : formatDuration(ms))
  const lost = times.recordsLost === null ? 'not measured' : `${times.recordsLost}`
  return `- Planned switchover: fence ${took(times.fenceMs)}, drain ${took(times.drainMs)}, stop ${took(times.stopMs)}; client writes refused for ${took(times.writesRefusedMs)}; records lost (measured at STOPPED): ${lost}`
}

function objectives(report: OperationReport): string {
  if (report.objectives === null) return '## Objectives\n\nNone set for this mirror (`PATCH /mirrors/{mirror}` with `config.objectives`): the measured figures above stand alone.'
  if (report.objectiveResults.length === 0) return '## Objectives\n\nThe mirror sets no RPO or RTO objective.'
  const rows = report.objectiveResults.map((result) => {
    const unit = result.name === 'rpoRecords' ? 'records' : 'seconds'
    return [OBJECTIVE_NAMES[result.name], figure(result.objective, unit), figure(result.measured, unit), result.met === null ? 'unknown' : result.met ? '✓ met' : '✕ breached']
  })
  return `## Objectives\n\n${table(['objective', 'target', 'measured', 'result'], rows, ['l', 'r', 'r', 'l'])}`
}

function timeline(report: OperationReport): string {
  return `## Timeline\n\n${table(['time', 'event', 'what happened'], report.timeline.map((entry) => [utc(entry.at), entry.event, entry.detail]))}`
}

function gates(report: OperationReport): string {
  const forced = new Set(report.confirmation.forcedGates.map((gate) => gate.name))
  const rows = report.plan.gates.map((gate) => [gate.name, gate.ok ? '✓ passed' : '✕ failed', gate.severity ?? 'warning', forced.has(gate.name) ? 'forced' : '', gate.detail])
  return `## Preflight gates\n\n${rows.length === 0 ? 'No gates were evaluated.' : table(['gate', 'result', 'severity', 'forced', 'detail'], rows)}`
}

function markers(report: OperationReport): string {
  const rows = report.partitions.map((partition) => [
    `${partition.topic}-${partition.partition}`,
    partition.state,
    partition.lastMirrorPosition === null ? null : `epoch ${partition.lastMirrorPosition.epoch}, offset ${partition.lastMirrorPosition.offset}`,
    partition.aborted.length === 0 ? 'none' : partition.aborted.map((marker) => `${marker.offset} (producer ${marker.producerId}, epoch ${marker.producerEpoch})`).join('; '),
    partition.pidResetOffset,
    partition.finalLeaderEpoch,
    partition.error,
  ])
  return `## Markers written\n\nRead back from the destination's log, at and after each last mirror position.\n\n${table(['partition', 'state', 'last mirror position', 'ABORT markers (offset)', 'MIRROR_PID_RESET at', 'leader epoch', 'error'], rows, ['l', 'l', 'l', 'l', 'r', 'r', 'l'])}`
}

function verification(report: OperationReport): string {
  const found = report.verification
  if (found === null) return '## Verification\n\nNo verification of this failover was found (one starts by itself when a failover finishes; it may have been removed from history).'
  const intro = `Verification ${code(found.id)}: **${found.status}** — source and destination compared up to each partition's last mirror position.`
  const rows = found.partitions.map((partition) => [`${partition.topic}-${partition.partition}`, partition.status, partition.summary, partition.mismatchCount])
  return `## Verification\n\n${intro}\n\n${table(['partition', 'result', 'identical up to', 'mismatches'], rows, ['l', 'l', 'l', 'r'])}`
}

function groups(report: OperationReport): string {
  if (report.consumerGroups.length === 0) return '## Consumer groups\n\nNo consumer group has a committed offset on these partitions of the destination.'
  const rows = report.consumerGroups.map((group) => [group.groupId, `${group.topic}-${group.partition}`, group.resumeAt, group.committedAtSource, group.offsetsToReprocess])
  return `## Consumer groups: where to resume\n\nEach group resumes on ${code(report.operation.destinationCluster ?? 'the destination')} at its committed offset there (synced by the mirror).\n\n${table(['group', 'partition', 'resumes at', 'committed at the source', 'records read again'], rows, ['l', 'l', 'r', 'r', 'r'])}`
}

function nextSteps(report: OperationReport): string {
  const destination = report.operation.destinationCluster ?? 'the destination'
  const source = report.operation.sourceCluster ?? 'the old source'
  return [
    '## Next steps',
    '',
    `- Point producers and consumers at ${code(destination)}; the topics there are writable.`,
    `- Keep producers off ${code(source)}: records written there now are not mirrored (Mirrorboard raises a split-brain notice if it sees any).`,
    `- Once ${code(source)} is back, fail back with a reverse mirror (the failback wizard previews what it truncates).`,
  ].join('\n')
}

export function failoverReportMarkdown(report: OperationReport): string {
  const { operation } = report
  return document([
    `# Failover of ${text(operation.mirror)}: post-mortem`,
    `Operation ${code(operation.id)} · generated ${utc(report.generatedAt)} · ${cell(report.format)}`,
    summary(report),
    objectives(report),
    timeline(report),
    gates(report),
    markers(report),
    verification(report),
    groups(report),
    nextSteps(report),
  ])
}
