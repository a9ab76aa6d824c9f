import { mirrorEndpoints } from '@/lib/api/endpoints'
import { FailoverAccepted, FailoverPlanResponse, FAILOVER_GATE_NAMES } from '@/lib/api/mirrors'
import { MAX_DRAIN_TIMEOUT_MS, MAX_TRANSACTION_GRACE_MS } from '@/lib/failover/switchover'
import { decideGates } from '@/lib/failover/gate-forcing'
import type { Action } from '../action'
import { MIRROR_OPTION, TOPICS_OPTION } from '../action'
import { confirmation } from '../confirm'
import { EXIT, RefusedError } from '../exit'
import { option } from '../flags'
import { renderImpact } from '../impact'
import { patternsOf, readMirror, selectTopics } from '../mirror-reads'
import { watchOperation } from '../operation-watch'

/**
 * `--stop`: the KIP's failover of a mirror's topics (all, or those --topics matches). It reads the plan first
 * (a dry run) and prints the impact preview: gates, records at risk, transactions to abort, consumer groups
 * behind. A failing warning gate must be forced by name (--force), as in the wizard; then the typed
 * confirmation (--confirm M when not at a terminal), the failover itself, and its progress until every
 * partition is STOPPED (exit 0) or the operation fails (exit 1). --dry-run stops after the preview.
 * `--type planned` is the switchover (issue #34): the preview adds the write fence and the drain's bounds, the
 * progress its phases; a switchover that rolls back (drain timeout, cancel) exits 1 with the reason.
 */

export const FAILOVER_TYPES = ['planned', 'unplanned'] as const

export const stopAction: Action = {
  name: 'stop',
  flag: '--stop',
  origin: 'kip',
  summary: 'Fail over: stop mirroring and make the topics writable on the destination',
  usage: "--stop --mirror M [--topics 'regex,…'] [--type planned|unplanned] [--drain-timeout-ms MS] [--transaction-grace-ms MS] [--dry-run] [--force GATE,…] [--confirm M] [--no-wait]",
  examples: [
    'mirrorboard --stop --mirror dr --dry-run',
    'mirrorboard --stop --mirror dr --type planned --confirm dr',
    'mirrorboard --stop --mirror dr --type unplanned --force source-reachable,lag-threshold --confirm dr',
  ],
  options: [
    MIRROR_OPTION,
    TOPICS_OPTION,
    option('--type <type>', 'planned: fence the source and drain it first (no loss); unplanned (default): stop now with what was mirrored', { choices: FAILOVER_TYPES }),
    option('--drain-timeout-ms <ms>', 'planned: how long the drain may take before the switchover rolls back (default 120000)'),
    option('--transaction-grace-ms <ms>', "planned: how long transactions open at the fence may take before the source's coordinator aborts them (default 30000)"),
    option('--dry-run', 'print the impact preview and stop there'),
    option('--force <gate,...>', `fail over past these failing warning gates (${FAILOVER_GATE_NAMES.join(', ')})`),
    option('--confirm <mirror>', "the mirror's name, as typed in the wizard: required when not at a terminal"),
    option('--no-wait', 'return once the failover is accepted, without following it'),
  ],
  details: [
    'The preview comes first, on stdout (stderr with --json). A failing warning gate refuses the failover unless it is',
    'named in --force; a failing blocking gate always does. At a terminal the mirror name is asked for; in a script',
    'pass --confirm M. Progress is printed until every partition is STOPPED: exit 0, or 1 when the operation fails.',
    'A planned switchover fences the source, drains, then stops (its phases are printed); when it cannot drain in',
    'time, or is cancelled (POST /operations/{id}/cancel), it rolls back, nothing lost: exit 1 with the reason.',
  ].join('\n'),
  async run(context) {
    const { api, out, flags, style } = context
    const mirrorName = flags.required('mirror')
    const patterns = patternsOf(flags, 'topics')
    const type = flags.choice('type', FAILOVER_TYPES) ?? 'unplanned'
    const drainTimeoutMs = flags.integer('drainTimeoutMs', { min: 1_000, max: MAX_DRAIN_TIMEOUT_MS })
    const transactionGraceMs = flags.integer('transactionGraceMs', { min: 0, max: MAX_TRANSACTION_GRACE_MS })
    if (type !== 'planned' && (drainTimeoutMs !== undefined || transactionGraceMs !== undefined)) throw flags.usageError('--drain-timeout-ms and --transaction-grace-ms are for --type planned')
    const typed = { type, ...(drainTimeoutMs === undefined ? {} : { drainTimeoutMs }), ...(transactionGraceMs === undefined ? {} : { transactionGraceMs }) }
    const forced = flags.list('force')
    for (const gate of forced ?? []) if (!(FAILOVER_GATE_NAMES as readonly string[]).includes(gate)) throw flags.usageError(`--force ${gate}: no such gate (${FAILOVER_GATE_NAMES.join(', ')})`)
    const topics = patterns === undefined ? undefined : selectTopics(await readMirror(api, mirrorName), patterns)
    const selection = topics === undefined ? {} : { topics }

    const preview = FailoverPlanResponse.parse((await api.send(mirrorEndpoints.failover, { params: { mirror: mirrorName }, body: { ...selection, ...typed, dryRun: true } })).data)
    const impact = renderImpact(preview.plan, style, type)
    if (flags.boolean('dryRun')) {
      out.result(preview, () => impact)
      return EXIT.ok
    }
    out.note(impact)
    const decision = decideGates(preview.plan.gates, forced ?? [])
    const describe = (gates: readonly { name: string; detail: string }[]) => gates.map((gate) => `${gate.name} (${gate.detail})`).join('; ')
    if (decision.blocking.length > 0) throw new RefusedError('INVALID_MIRROR_STATE', `the failover preflight has a blocking gate: ${describe(decision.blocking)}`)
    if (decision.unforced.length > 0) {
      throw new RefusedError('INVALID_MIRROR_STATE', `failing gates not forced: ${describe(decision.unforced)}; add --force ${decision.unforced.map((gate) => gate.name).join(',')} to fail over anyway`)
    }

    const confirm = await confirmation(context, mirrorName, `the failover of ${mirrorName}`)
    const accepted = FailoverAccepted.parse(
      (await api.send(mirrorEndpoints.failover, { params: { mirror: mirrorName }, body: { ...selection, ...typed, confirm, force: forced ?? [] } })).data,
    )
    out.note(`Failover of ${mirrorName} accepted: operation ${accepted.operation}`)
    if (!flags.boolean('wait')) {
      out.result({ operation: accepted.operation, plan: accepted.plan }, () => `Follow it with mirrorboard --operations --watch ${accepted.operation}\n`)
      return EXIT.ok
    }
    const operation = await watchOperation(context, accepted.operation)
    if (out.machine) out.result({ operation, plan: accepted.plan }, () => '')
    if (operation.status === 'rolledBack' || operation.switchover?.phase === 'rolledBack') {
      throw new RefusedError('SWITCHOVER_ROLLED_BACK', `operation ${operation.id} rolled back: ${operation.switchover?.reason ?? 'no reason given'}; the source takes writes again, nothing lost`)
    }
    if (operation.status !== 'succeeded') {
      const failed = operation.partitions.filter((entry) => entry.state !== 'STOPPED').map((entry) => `${entry.topic}-${entry.partition}${entry.error === null ? '' : `: ${entry.error}`}`)
      throw new RefusedError('OPERATION_FAILED', `operation ${operation.id} ${operation.status}; not STOPPED: ${failed.slice(0, 10).join('; ')}${failed.length > 10 ? `; … ${failed.length - 10} more` : ''}`)
    }
    return EXIT.ok
  },
}
