import { alertEndpoints, systemEndpoints } from '@/lib/api/endpoints'
import { AlertState, type Alert } from '@/lib/api/alerts'
import { AuditOutcome, type AuditEntry } from '@/lib/api/audit'
import { AUDIT_OUTCOME_STYLE } from '@/lib/ui/status-style'
import { dateTime, formatDuration } from '@/lib/ui/format'
import type { Action } from '../action'
import { option } from '../flags'
import type { Flags } from '../flags'
import { renderTable } from '../format'

/**
 * The two read-outs an on-call operator scripts around: `--alerts` (what the built-in rules fire, firing first)
 * and `--audit` (who changed what and how it ended, newest first, the same entries the dashboard's audit page
 * shows; failovers, failbacks and everything this command line sends are in it).
 */

export const alertsAction: Action = {
  name: 'alerts',
  flag: '--alerts',
  origin: 'mirrorboard',
  summary: 'Alerts of the built-in rules, firing first',
  usage: '--alerts [--state firing|resolved] [--mirror M]',
  examples: ['mirrorboard --alerts --state firing', 'mirrorboard --alerts --mirror dr --json'],
  options: [option('--state <state>', 'only firing or only resolved alerts', { choices: AlertState.options }), option('--mirror <name>', 'only alerts of this mirror')],
  async run({ api, out, flags, style, io }) {
    const { alerts } = await api.call(alertEndpoints.listAlerts, { query: { state: flags.string('state'), mirror: flags.string('mirror') } })
    const now = io.now()
    out.result(alerts, () =>
      renderTable(
        alerts,
        [
          { header: 'STATE', value: (row: Alert) => `${row.state}${row.silenced ? ' (silenced)' : ''}`, tone: (row) => (row.state === 'resolved' ? 'healthy' : row.severity === 'critical' ? 'danger' : 'paused') },
          { header: 'SEVERITY', value: (row) => row.severity },
          { header: 'RULE', value: (row) => row.rule },
          { header: 'MIRROR', value: (row) => row.mirror },
          { header: 'WHERE', value: (row) => (row.topic === undefined ? '-' : row.partition === undefined ? row.topic : `${row.topic}-${row.partition}`) },
          { header: 'FOR', value: (row) => formatDuration((row.resolvedAt ?? now) - row.since) },
          { header: 'SUMMARY', value: (row) => row.summary },
        ],
        style,
      ),
    )
  },
}

/** A time as a flag gives it: milliseconds since the epoch, or an ISO 8601 date and time. */
function timeFlag(flags: Flags, name: string): number | undefined {
  const value = flags.string(name)
  if (value === undefined) return undefined
  const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(at) || at < 0) throw flags.usageError(`--${name} must be a time: milliseconds since the epoch, or ISO 8601 such as 2026-05-01T08:00:00Z (got "${value}")`)
  return at
}

export const auditAction: Action = {
  name: 'audit',
  flag: '--audit',
  origin: 'mirrorboard',
  summary: 'The audit log: every change, who made it and how it ended, newest first',
  usage: '--audit [--actor A] [--action X] [--outcome ok|rejected|failed] [--from T] [--to T] [--limit N]',
  examples: ['mirrorboard --audit --action mirror.failover --limit 20', "mirrorboard --audit --outcome rejected --from 2026-05-01T00:00:00Z"],
  options: [
    option('--actor <actor>', 'only this actor (token:operator, session:…)'),
    option('--action <action>', 'only this action (mirror.failover, topic.create, …)'),
    option('--outcome <outcome>', 'only ok, rejected or failed', { choices: AuditOutcome.options }),
    option('--from <time>', 'entries at or after this time (ms since the epoch, or ISO 8601)'),
    option('--to <time>', 'entries before this time'),
    option('--limit <n>', 'at most this many (default 100)'),
  ],
  async run({ api, out, flags, style }) {
    const { entries } = await api.call(systemEndpoints.audit, {
      query: {
        actor: flags.string('actor'),
        action: flags.string('action'),
        outcome: flags.string('outcome'),
        from: timeFlag(flags, 'from'),
        to: timeFlag(flags, 'to'),
        limit: flags.integer('limit', { min: 1, max: 1000 }),
      },
    })
    out.result(entries, () =>
      renderTable(
        entries,
        [
          { header: 'ID', value: (row: AuditEntry) => String(row.id) },
          { header: 'AT', value: (row) => dateTime(row.at) },
          { header: 'ACTOR', value: (row) => `${row.actor}${row.count === undefined ? '' : ` ×${row.count}`}` },
          { header: 'ACTION', value: (row) => `${row.action}${row.dryRun ? ' (dry run)' : ''}` },
          { header: 'TARGET', value: (row) => row.target },
          { header: 'OUTCOME', value: (row) => row.outcome, tone: (row) => AUDIT_OUTCOME_STYLE[row.outcome].tone },
          { header: 'DETAIL', value: (row) => (row.error === null ? (row.operation === undefined ? '-' : `operation ${row.operation}`) : `${row.error.code}: ${row.error.message}`) },
        ],
        style,
      ),
    )
  },
}
