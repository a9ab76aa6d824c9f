import { mirrorEndpoints } from '@/lib/api/endpoints'
import { TruncationPlanResponse, type CreateMirrorRequest, type Mirror, type TruncationPlan } from '@/lib/api/mirrors'
import { defaultReverseMirrorName, failbackProgress, failbackTotals } from '@/lib/failover/failback'
import { clockTime } from '@/lib/ui/format'
import type { Action } from '../action'
import { MIRROR_OPTION } from '../action'
import { confirmation } from '../confirm'
import type { Context } from '../context'
import { EXIT, RefusedError } from '../exit'
import { option } from '../flags'
import { renderTable, type Style } from '../format'
import { readMirror } from '../mirror-reads'

/**
 * `--failback --mirror M`: after a failover, the old source follows the new one. It creates the reverse mirror
 * (M's destination → M's source), as the wizard does: first its dry run, the truncation preview (where each
 * partition of the old source is cut back, and how many records go for good), then the typed confirmation of
 * the old source's name, then the mirror, followed until every partition MIRRORS (exit 0) or one fails for good
 * (exit 1).
 */

const POLL_MS = 1_000

export const failbackAction: Action = {
  name: 'failback',
  flag: '--failback',
  origin: 'mirrorboard',
  summary: 'Fail back: the old source follows the new one (a reverse mirror, after a truncation preview)',
  usage: '--failback --mirror M [--name R] [--dry-run] [--confirm OLD-SOURCE] [--no-wait]',
  examples: ['mirrorboard --failback --mirror dr --dry-run', 'mirrorboard --failback --mirror dr --confirm us-east'],
  options: [
    MIRROR_OPTION,
    option('--name <mirror>', 'the reverse mirror (default: <mirror>-failback)'),
    option('--dry-run', 'print the truncation preview and stop there'),
    option('--confirm <cluster>', "the old source's name, as typed in the wizard: required when not at a terminal"),
    option('--no-wait', 'return once the reverse mirror is created'),
  ],
  details: [
    "Every partition of M must be STOPPED (fail over first). RECORDS-TO-REMOVE are records the old source took after the",
    'failover: they are removed for good (export them first: GET …/records of each partition from TRUNCATE-TO on).',
  ].join('\n'),
  async run(context) {
    const { api, out, flags, style } = context
    const mirror = await readMirror(api, flags.required('mirror'))
    const total = Object.values(mirror.partitionsByState).reduce<number>((sum, count) => sum + (count ?? 0), 0)
    const stopped = mirror.partitionsByState.STOPPED ?? 0
    if (total === 0 || stopped !== total) {
      throw new RefusedError('INVALID_MIRROR_STATE', `fail over ${mirror.name} first: ${stopped} of ${total} partitions are STOPPED (mirrorboard --stop --mirror ${mirror.name})`)
    }
    const { mirrors } = await api.call(mirrorEndpoints.listMirrors)
    const name = flags.string('name') ?? defaultReverseMirrorName(mirror.name, mirrors.map((entry) => entry.name))
    const request: CreateMirrorRequest = { name, sourceCluster: mirror.destinationCluster, destinationCluster: mirror.sourceCluster, topics: [...mirror.topics] }
    const { plan } = TruncationPlanResponse.parse((await api.send(mirrorEndpoints.createMirror, { body: { ...request, dryRun: true } })).data)
    const preview = renderPreview(mirror, name, plan, style)
    if (flags.boolean('dryRun')) {
      out.result({ name, plan }, () => preview)
      return EXIT.ok
    }
    out.note(preview)
    const typed = await confirmation(context, mirror.sourceCluster, `the failback of ${mirror.name} (it truncates ${mirror.sourceCluster})`)
    if (typed !== mirror.sourceCluster) throw new RefusedError('CONFIRMATION_REQUIRED', `--confirm must name the old source ${mirror.sourceCluster} (got "${typed}"): nothing was done`)
    const reverse = await api.call(mirrorEndpoints.createMirror, { body: request })
    out.note(`Created mirror ${reverse.name}: ${reverse.sourceCluster} → ${reverse.destinationCluster}`)
    if (!flags.boolean('wait')) {
      out.result(reverse, () => `Follow it with mirrorboard --describe --mirror ${reverse.name}\n`)
      return EXIT.ok
    }
    const final = await followFailback(context, reverse.name, plan.partitions.length)
    out.result(final, () => `Failback done: every partition of ${final.name} MIRRORS; ${mirror.sourceCluster} now follows ${mirror.destinationCluster}\n`)
    return EXIT.ok
  },
}

function renderPreview(mirror: Mirror, name: string, plan: TruncationPlan, style: Style): string {
  const totals = failbackTotals(plan.partitions)
  const lines = [`Truncation preview: mirror ${name} (${mirror.destinationCluster} → ${mirror.sourceCluster}), ${plan.partitions.length} partitions`]
  const writes = mirror.splitBrain?.recordsWritten ?? 0
  if (writes > 0) lines.push(`Warning: ${writes} records were written to ${mirror.sourceCluster} after the failover; the failback removes them.`)
  lines.push(
    '',
    renderTable(
      plan.partitions,
      [
        { header: 'TOPIC', value: (entry) => entry.topic },
        { header: 'PARTITION', value: (entry) => String(entry.partition) },
        { header: 'TRUNCATE-TO', value: (entry) => (entry.truncateTo === null ? 'log start' : String(entry.truncateTo)) },
        { header: 'RECORDS-TO-REMOVE', value: (entry) => String(entry.recordsToRemove), tone: (entry) => (entry.recordsToRemove > 0 ? 'danger' : null) },
        { header: 'LAST-MIRROR-POSITION', value: (entry) => (entry.lastMirrorPosition === null ? '-' : `epoch ${entry.lastMirrorPosition.epoch} offset ${entry.lastMirrorPosition.offset}`) },
        { header: 'REBUILD', value: (entry) => (entry.rebuild === true ? 'yes' : '-') },
      ],
      style,
    ).trimEnd(),
    '',
    `Total: ${totals.recordsToRemove} record${totals.recordsToRemove === 1 ? '' : 's'} removed from ${mirror.sourceCluster} in ${totals.partitionsTruncated} partition${totals.partitionsTruncated === 1 ? '' : 's'}` +
      `${totals.partitionsFromScratch > 0 ? `, ${totals.partitionsFromScratch} copied again from the log start` : ''}.`,
    '',
  )
  return lines.join('\n')
}

/** Polls the reverse mirror until every partition MIRRORS; a partition FAILED for good ends it with exit 1. */
async function followFailback({ api, io, out }: Context, name: string, expected: number): Promise<Mirror> {
  let last = ''
  for (;;) {
    const mirror = await readMirror(api, name)
    const progress = failbackProgress(mirror.partitionsByState, expected)
    const counts = Object.entries(mirror.partitionsByState)
      .filter((entry) => (entry[1] ?? 0) > 0)
      .map(([state, count]) => `${state} ${count}`)
      .join(' · ')
    if (counts !== last) out.note(`${clockTime(io.now())}  ${name}: ${counts}`)
    last = counts
    if (progress.done) return mirror
    if (progress.failed > 0) {
      const { partitions } = await api.call(mirrorEndpoints.listMirrorPartitions, { params: { mirror: name }, query: { state: 'FAILED' } })
      const forGood = partitions.filter((partition) => partition.retryAttempt < 0)
      if (forGood.length > 0) {
        throw new RefusedError('FAILBACK_FAILED', `${forGood.length} partition(s) of ${name} FAILED for good: ${forGood.slice(0, 5).map((partition) => `${partition.topic}-${partition.partition}: ${partition.error ?? 'no reason given'}`).join('; ')}`)
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    if (io.signal.aborted) throw io.signal.reason
  }
}
