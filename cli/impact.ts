import type { FailoverPlan } from '@/lib/api/mirrors'
import { byImpact, hasImpact, planTotals } from '@/lib/failover/plan-totals'
import { STATE_STYLE } from '@/lib/ui/state-style'
import { formatDuration } from '@/lib/ui/format'
import { isMirrorPartitionState } from '@/lib/mirror/states'
import { paint, renderTable, type Style } from './format'
import { FENCE_METHOD_TEXT } from './switchover-progress'

/**
 * A failover's impact preview as text, read before confirming (the wizard's steps 2 and 3): the preflight gates,
 * then the partitions that lose or change something, worst first (at most ROWS; --json has them all), then the
 * totals. Unknown figures say "unknown", never 0; lower bounds from a silent source say "≥". A planned
 * switchover's plan first says how the source is fenced and how long the drain may take; a mirror with an RPO
 * objective says whether this failover keeps it.
 */

const ROWS = 50

type PlanPartition = FailoverPlan['partitions'][number]

function atRisk(partition: PlanPartition): string {
  const risk = partition.atRisk
  if (risk !== undefined) return risk.records === null ? 'unknown' : `${risk.known ? '' : '≥'}${risk.records}`
  return partition.recordsAtRisk === null ? 'unknown' : String(partition.recordsAtRisk)
}

function timeAtRisk(partition: PlanPartition): string {
  const ms = partition.atRisk?.timeMs ?? partition.timeAtRiskMs
  if (ms === null) return 'unknown'
  return `${partition.atRisk !== undefined && !partition.atRisk.known ? '≥' : ''}${formatDuration(ms)}`
}

function rpoLine(rpo: NonNullable<FailoverPlan['rpo']>, style: Style): string {
  const bound = (rpo.known ? '' : '≥')
  const objective = [rpo.objective.rpoRecords === undefined ? null : `${rpo.objective.rpoRecords} records`, rpo.objective.rpoSeconds === undefined ? null : `${rpo.objective.rpoSeconds} s`].filter((part) => part !== null).join(' and ')
  const atRisk = `${rpo.records === null ? 'unknown' : `${bound}${rpo.records}`} records, ${rpo.seconds === null ? 'unknown' : `${bound}${rpo.seconds} s`} at risk`
  const tone = rpo.status === 'met' ? 'healthy' : rpo.status === 'breached' ? 'danger' : 'paused'
  return `at most ${objective}: ${paint(rpo.status, tone, style)} (${atRisk})`
}

export function renderImpact(plan: FailoverPlan, style: Style, type: string): string {
  const totals = planTotals(plan.partitions)
  const lines: string[] = [`Impact preview: ${type} failover of ${plan.mirror}, ${totals.partitionsToStop} of ${totals.partitions} partition${totals.partitions === 1 ? '' : 's'} to stop`]
  if (plan.switchover !== undefined) {
    const { fenceMethod, drainTimeoutMs, transactionGraceMs } = plan.switchover
    lines.push(
      `Switchover: 1. fence the source: ${FENCE_METHOD_TEXT[fenceMethod]}; transactions open at the fence get ${formatDuration(transactionGraceMs)}`,
      `            2. drain until every destination log end equals the source's; not drained in ${formatDuration(drainTimeoutMs)}: roll back, nothing lost`,
      '            3. stop: the STOPPING steps on every partition',
    )
  }
  if (plan.rpo !== undefined) lines.push(`RPO objective: ${rpoLine(plan.rpo, style)}`)
  lines.push('', 'Gates:')
  for (const gate of plan.gates) {
    const mark = gate.ok ? paint('✓', 'healthy', style) : paint('✕', gate.severity === 'blocking' ? 'danger' : 'paused', style)
    lines.push(`  ${mark} ${gate.name}${gate.ok ? '' : ` (${gate.severity ?? 'warning'})`}: ${gate.detail}`)
  }
  const shown = plan.partitions.filter(hasImpact).sort(byImpact)
  lines.push('')
  if (shown.length === 0) lines.push('Every partition: nothing at risk, no transaction to abort, no consumer group behind.')
  else {
    lines.push(
      renderTable(
        shown.slice(0, ROWS),
        [
          { header: 'TOPIC', value: (row) => row.topic },
          { header: 'PARTITION', value: (row) => String(row.partition) },
          { header: 'STATE', value: (row) => row.state, tone: (row) => (isMirrorPartitionState(row.state) ? STATE_STYLE[row.state].tone : null) },
          { header: 'MIRRORED-OFFSET', value: (row) => String(row.mirroredOffset) },
          { header: 'SOURCE-LOG-END', value: (row) => (row.sourceLogEndOffset === null ? 'unknown' : String(row.sourceLogEndOffset)) },
          { header: 'RECORDS-AT-RISK', value: atRisk, tone: (row) => (row.recordsAtRisk === 0 ? null : 'paused') },
          { header: 'TIME-AT-RISK', value: timeAtRisk },
          { header: 'TRANSACTIONS-TO-ABORT', value: (row) => row.transactionsToAbort.map((t) => `pid ${t.producerId} epoch ${t.producerEpoch} from ${t.firstOffset}`).join(', ') || '-' },
          { header: 'GROUPS-BEHIND', value: (row) => row.consumerGroupsBehind.map((g) => `${g.groupId}@${g.committedOffset ?? 'none'}`).join(', ') || '-' },
        ],
        style,
      ).trimEnd(),
    )
    if (shown.length > ROWS) lines.push(`… and ${shown.length - ROWS} more partitions with an impact (--json lists them all)`)
  }
  const records = totals.recordsAtRisk === null ? 'unknown records' : `${totals.recordsAtRisk} record${totals.recordsAtRisk === 1 ? '' : 's'}`
  lines.push(
    '',
    `Total: ${records} at risk${totals.maxTimeAtRiskMs ? ` (the oldest ${formatDuration(totals.maxTimeAtRiskMs)} old)` : ''}, ` +
      `${totals.transactionsToAbort} transaction${totals.transactionsToAbort === 1 ? '' : 's'} to abort` +
      `${totals.producersToAbort.length > 0 ? ` (producers ${totals.producersToAbort.join(', ')})` : ''}, ` +
      `${totals.consumerGroupsBehind.length} consumer group${totals.consumerGroupsBehind.length === 1 ? '' : 's'} behind` +
      `${totals.failedPartitionsForced > 0 ? `, ${totals.failedPartitionsForced} FAILED partition${totals.failedPartitionsForced === 1 ? '' : 's'} stopped with what they mirrored` : ''}.`,
    '',
  )
  return lines.join('\n')
}
