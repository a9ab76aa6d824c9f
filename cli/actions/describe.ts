import { mirrorEndpoints } from '@/lib/api/endpoints'
import type { MirrorPartition } from '@/lib/api/mirrors'
import { BROKER_MIRROR_CONFIG_DEFAULTS } from '@/lib/mirror/constants'
import { isMirrorPartitionState } from '@/lib/mirror/states'
import { STATE_STYLE } from '@/lib/ui/state-style'
import type { Api } from '../api'
import type { Action } from '../action'
import { option } from '../flags'
import { dashIfUnknown, renderTable } from '../format'
import { readMirror } from '../mirror-reads'

/**
 * `--describe [--mirror M] [--failed] [--json]` exactly as kafka-cluster-mirrors.sh prints it (KIP-1279.md §6.3):
 * columns MIRROR, TOPIC, PARTITION, SOURCE-OFFSET, DESTINATION-OFFSET, LAG, STATE with "-" for -1; with --failed
 * MIRROR, TOPIC, PARTITION, RETRY ("n/max", or "NonRetryable" for a failure not retried), ERROR; with --json the
 * tool's array of {mirror, topic, partition, sourceOffset, destinationOffset, lag, state, retryAttempt,
 * errorMessage}, -1 where not known. Without --mirror, every mirror, one after the other by name.
 */

/** One entry of the tool's --json array, in its field order. */
export interface DescribeEntry {
  mirror: string
  topic: string
  partition: number
  sourceOffset: number
  destinationOffset: number
  lag: number
  state: string
  retryAttempt: number
  errorMessage: string | null
}

const UNKNOWN = -1

/**
 * The entries of one mirror from its partitions, sorted by topic then partition as the tool sorts them (Java's
 * String order: UTF-16 code units). Offsets exist only while a partition has a fetcher (MIRRORING), as the KIP's
 * prototype drops them with the fetcher, so every other state shows -1.
 */
export function describeEntries(mirror: string, partitions: readonly MirrorPartition[]): DescribeEntry[] {
  return partitions
    .map((partition): DescribeEntry => {
      const fetching = partition.state === 'MIRRORING'
      const sourceOffset = fetching ? (partition.sourceHighWatermark ?? UNKNOWN) : UNKNOWN
      const destinationOffset = fetching ? partition.destinationHighWatermark : UNKNOWN
      return {
        mirror,
        topic: partition.topic,
        partition: partition.partition,
        sourceOffset,
        destinationOffset,
        lag: sourceOffset === UNKNOWN ? UNKNOWN : Math.max(0, sourceOffset - destinationOffset),
        state: partition.state,
        retryAttempt: partition.retryAttempt,
        errorMessage: partition.error,
      }
    })
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
}

async function describeMirror(api: Api, mirror: string, failed: boolean): Promise<DescribeEntry[]> {
  const { partitions } = await api.call(mirrorEndpoints.listMirrorPartitions, { params: { mirror }, query: { state: failed ? 'FAILED' : undefined } })
  return describeEntries(mirror, partitions)
}

/** RETRY as the tool prints it: attempts so far over the mirror's maximum, or NonRetryable. */
export function retryText(retryAttempt: number, maxAttempts: number): string {
  return retryAttempt < 0 ? 'NonRetryable' : `${retryAttempt}/${maxAttempts}`
}

function maxAttemptsOf(config: Readonly<Record<string, unknown>>): number {
  const value = config['mirror.failed.retry.max.attempts']
  return typeof value === 'number' ? value : BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.max.attempts']
}

export const describeAction: Action = {
  name: 'describe',
  flag: '--describe',
  origin: 'kip',
  summary: 'Partitions of a mirror (or all): offsets, lag and state; --failed: retries and errors',
  usage: '--describe [--mirror M] [--failed] [--json]',
  examples: ['mirrorboard --describe --mirror dr', 'mirrorboard --describe --failed', 'mirrorboard --describe --mirror dr --json | jq \'.[] | select(.lag > 0)\''],
  options: [option('--mirror <name>', 'the mirror (every mirror when left out)'), option('--failed', 'only FAILED partitions, with their retry attempts and errors')],
  details: [
    'SOURCE-OFFSET is the source high watermark of the last fetch, DESTINATION-OFFSET the destination high watermark,',
    'LAG their difference; all three are "-" (-1 in --json) unless the partition is MIRRORING and has fetched.',
    'RETRY is attempts/mirror.failed.retry.max.attempts, or NonRetryable for a failure that is not retried.',
  ].join('\n'),
  async run({ api, out, flags, style }) {
    const failed = flags.boolean('failed')
    const named = flags.string('mirror')
    const names = named !== undefined ? [named] : (await api.call(mirrorEndpoints.listMirrors)).mirrors.map((mirror) => mirror.name).sort()
    const entries = (await Promise.all(names.map((name) => describeMirror(api, name, failed)))).flat()
    // RETRY's maximum is the mirror's setting: read only for --failed.
    const maxAttempts = new Map(failed ? await Promise.all(names.map(async (name) => [name, maxAttemptsOf((await readMirror(api, name)).config)] as const)) : [])
    const tone = (entry: DescribeEntry) => (isMirrorPartitionState(entry.state) ? STATE_STYLE[entry.state].tone : null)
    out.result(entries, () =>
      failed
        ? renderTable(
            entries,
            [
              { header: 'MIRROR', value: (entry) => entry.mirror },
              { header: 'TOPIC', value: (entry) => entry.topic },
              { header: 'PARTITION', value: (entry) => String(entry.partition) },
              { header: 'RETRY', value: (entry) => retryText(entry.retryAttempt, maxAttempts.get(entry.mirror) ?? 0), tone: (entry) => (entry.retryAttempt < 0 ? 'danger' : null) },
              { header: 'ERROR', value: (entry) => entry.errorMessage ?? '-' },
            ],
            style,
          )
        : renderTable(
            entries,
            [
              { header: 'MIRROR', value: (entry) => entry.mirror },
              { header: 'TOPIC', value: (entry) => entry.topic },
              { header: 'PARTITION', value: (entry) => String(entry.partition) },
              { header: 'SOURCE-OFFSET', value: (entry) => dashIfUnknown(entry.sourceOffset) },
              { header: 'DESTINATION-OFFSET', value: (entry) => dashIfUnknown(entry.destinationOffset) },
              { header: 'LAG', value: (entry) => dashIfUnknown(entry.lag) },
              { header: 'STATE', value: (entry) => entry.state, tone },
            ],
            style,
          ),
    )
  },
}
