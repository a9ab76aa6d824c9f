import { mirrorEndpoints } from '@/lib/api/endpoints'
import type { DescribeEntry } from '@/lib/api/mirror-describe'
import { BROKER_MIRROR_CONFIG_DEFAULTS } from '@/lib/mirror/constants'
import { STATE_METADATA } from '@/lib/mirror/state-metadata'
import { isMirrorPartitionState, MIRROR_PARTITION_STATES, type MirrorPartitionState } from '@/lib/mirror/states'
import { STATE_STYLE, type StateTone } from '@/lib/ui/state-style'
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
 * errorMessage}, -1 where not known. The entries are the server's own (`GET /mirrors/{m}/describe`, built by
 * lib/mirror/describe-entries.ts), so the command line and the API cannot disagree. Without --mirror, every
 * mirror, one after the other by name.
 */

const STATE_NAMES = ['api', 'kip'] as const

/** A state by either name (ours, or the voted KIP's with --state-names kip) → ours, for its colour. */
const BY_KIP_NAME = new Map<string, MirrorPartitionState>(MIRROR_PARTITION_STATES.map((state) => [STATE_METADATA[state].kipName, state]))

function toneOf(state: string): StateTone | null {
  const ours = isMirrorPartitionState(state) ? state : BY_KIP_NAME.get(state)
  return ours === undefined ? null : STATE_STYLE[ours].tone
}

async function describeMirror(api: Api, mirror: string, failed: boolean, stateNames: (typeof STATE_NAMES)[number] | undefined): Promise<DescribeEntry[]> {
  return api.call(mirrorEndpoints.describeMirror, { params: { mirror }, query: { failed: failed ? 'true' : undefined, stateNames } })
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
  usage: '--describe [--mirror M] [--failed] [--json] [--state-names api|kip]',
  examples: ['mirrorboard --describe --mirror dr', 'mirrorboard --describe --failed', 'mirrorboard --describe --mirror dr --json | jq \'.[] | select(.lag > 0)\''],
  options: [
    option('--mirror <name>', 'the mirror (every mirror when left out)'),
    option('--failed', 'only FAILED partitions, with their retry attempts and errors'),
    option('--state-names <names>', "api (default): the dashboard's state names; kip: the voted KIP's, as Apache Kafka's tool prints them (LOG_ALIGNMENT for PREPARING, ULE_RECOVERY for ULE_LOG_TRUNCATION)", { choices: STATE_NAMES }),
  ],
  details: [
    'SOURCE-OFFSET is the source high watermark of the last fetch, DESTINATION-OFFSET the destination high watermark,',
    'LAG their difference; all three are "-" (-1 in --json) unless the partition is MIRRORING and has fetched.',
    'RETRY is attempts/mirror.failed.retry.max.attempts, or NonRetryable for a failure that is not retried.',
  ].join('\n'),
  async run({ api, out, flags, style }) {
    const failed = flags.boolean('failed')
    const stateNames = flags.choice('stateNames', STATE_NAMES)
    const named = flags.string('mirror')
    const names = named !== undefined ? [named] : (await api.call(mirrorEndpoints.listMirrors)).mirrors.map((mirror) => mirror.name).sort()
    const entries = (await Promise.all(names.map((name) => describeMirror(api, name, failed, stateNames)))).flat()
    // RETRY's maximum is the mirror's setting: read only for --failed, and only for mirrors with a FAILED partition.
    const failing = [...new Set(entries.map((entry) => entry.mirror))]
    const maxAttempts = new Map(failed ? await Promise.all(failing.map(async (name) => [name, maxAttemptsOf((await readMirror(api, name)).config)] as const)) : [])
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
              { header: 'STATE', value: (entry) => entry.state, tone: (entry) => toneOf(entry.state) },
            ],
            style,
          ),
    )
  },
}
