import { mirrorEndpoints } from '@/lib/api/endpoints'
import { OperationStatus, type Operation } from '@/lib/api/operations'
import { OPERATION_STATUS_STYLE, SWITCHOVER_PHASE_STYLE } from '@/lib/ui/status-style'
import { dateTime, formatDuration } from '@/lib/ui/format'
import type { Action } from '../action'
import { EXIT, RefusedError } from '../exit'
import { option } from '../flags'
import { renderJson, renderTable } from '../format'
import { watchOperation } from '../operation-watch'

/**
 * `--operations`: the failovers the server ran, newest first; `--watch ID` follows one live until it ends (exit 0
 * when it succeeded, 1 when it failed); `--report ID` prints its post-mortem (Markdown with --format md);
 * `--cancel ID` rolls back a planned switchover that has not begun to stop (the source unfenced, nothing lost).
 */
export const operationsAction: Action = {
  name: 'operations',
  flag: '--operations',
  origin: 'mirrorboard',
  summary: 'Failover operations; --watch ID follows one live, --report ID prints its post-mortem, --cancel ID rolls back a switchover',
  usage: '--operations [--mirror M] [--status running|succeeded|failed] [--limit N] | --watch ID | --report ID [--format md] | --cancel ID',
  examples: ['mirrorboard --operations --status running', 'mirrorboard --operations --watch op-6f1c2a', 'mirrorboard --operations --report op-6f1c2a --format md > postmortem.md'],
  options: [
    option('--mirror <name>', 'only operations of this mirror'),
    option('--status <status>', 'only running, succeeded, failed or rolledBack ones', { choices: OperationStatus.options }),
    option('--limit <n>', 'at most this many, newest first (default 100)'),
    option('--watch <id>', 'follow this operation live until it ends: every STOPPING step as it completes'),
    option('--report <id>', "this operation's report: the plan confirmed, markers, timings, RPO and RTO"),
    option('--cancel <id>', 'roll back this planned switchover before it stops: the source is unfenced, the mirror mirrors on'),
    option('--format <format>', 'the report as json (default) or md (Markdown)', { choices: ['json', 'md'] }),
  ],
  async run(context) {
    const { api, out, flags, style } = context
    const watch = flags.string('watch')
    const report = flags.string('report')
    const cancel = flags.string('cancel')
    if ([watch, report, cancel].filter((value) => value !== undefined).length > 1) throw flags.usageError('--watch, --report and --cancel are different things: one at a time')
    if (cancel !== undefined) {
      const operation = await api.call(mirrorEndpoints.cancelOperation, { params: { id: cancel } })
      out.result(operation, () => `Operation ${operation.id} is rolling back: the source is unfenced and ${operation.mirror} mirrors on (follow it with mirrorboard --operations --watch ${operation.id})\n`)
      return EXIT.ok
    }
    if (watch !== undefined) {
      const operation = await watchOperation(context, watch)
      if (out.machine) out.result(operation, () => '')
      if (operation.status === 'failed') throw new RefusedError('OPERATION_FAILED', `operation ${operation.id} failed`)
      if (operation.status === 'rolledBack') throw new RefusedError('OPERATION_ROLLED_BACK', `operation ${operation.id} rolled back: ${operation.switchover?.reason ?? 'no reason recorded'}`)
      return EXIT.ok
    }
    if (report !== undefined) {
      if (flags.string('format') === 'md') {
        context.io.stdout.write(await api.text(mirrorEndpoints.operationReport, { params: { id: report }, query: { format: 'md' } }))
        return EXIT.ok
      }
      const answer = await api.call(mirrorEndpoints.operationReport, { params: { id: report } })
      // The report is a document, not rows: JSON unless --output yaml.
      out.result(answer, () => renderJson(answer))
      return EXIT.ok
    }
    const limit = flags.integer('limit', { min: 1, max: 1000 })
    const { operations } = await api.call(mirrorEndpoints.listOperations, { query: { mirror: flags.string('mirror'), status: flags.string('status'), limit } })
    out.result(operations, () =>
      renderTable(
        operations,
        [
          { header: 'ID', value: (row: Operation) => row.id },
          { header: 'KIND', value: (row) => row.kind },
          { header: 'MIRROR', value: (row) => row.mirror },
          // A switchover that rolled back kept its promise (nothing lost): said as such, not as a failure.
          { header: 'STATUS', value: (row) => (row.switchover?.phase === 'rolledBack' ? 'rolled back' : row.status), tone: (row) => (row.switchover?.phase === 'rolledBack' ? SWITCHOVER_PHASE_STYLE.rolledBack.tone : OPERATION_STATUS_STYLE[row.status].tone) },
          { header: 'PARTITIONS', value: (row) => `${row.partitions.filter((entry) => entry.state === 'STOPPED').length}/${row.partitions.length} STOPPED` },
          { header: 'STARTED', value: (row) => dateTime(row.startedAt) },
          { header: 'TOOK', value: (row) => (row.finishedAt === null ? '-' : formatDuration(row.finishedAt - row.startedAt)) },
          { header: 'BY', value: (row) => row.requestedBy?.actor ?? '-' },
        ],
        style,
      ),
    )
  },
}
