import { verificationEndpoints } from '@/lib/api/endpoints'
import { VerificationSummary, type Verification } from '@/lib/api/verifications'
import { clockTime, formatBytes } from '@/lib/ui/format'
import type { Action } from '../action'
import { MIRROR_OPTION } from '../action'
import type { Context } from '../context'
import { eventData, EventStream } from '../event-stream'
import { EXIT, RefusedError } from '../exit'
import { option } from '../flags'
import { paint, renderTable, type Column } from '../format'

/**
 * `--verify --mirror M`: source and destination compared over the mirrored range of every partition, batch by
 * batch (bytes and CRC on an embedded destination, record content on a Kafka one), in the server's background;
 * followed over the event stream until it ends. Exit 0 when every partition is identical, 1 otherwise.
 * `--verify --id ID` follows (or shows) one already started.
 */

const PROGRESS_EVERY_MS = 2_000

const STATUS_TONE = { running: 'progress', passed: 'healthy', mismatched: 'danger', failed: 'danger', cancelled: 'neutral' } as const
const PARTITION_TONE = { pending: 'neutral', running: 'progress', identical: 'healthy', mismatched: 'danger', failed: 'danger', cancelled: 'neutral' } as const

export const verifyAction: Action = {
  name: 'verify',
  flag: '--verify',
  origin: 'mirrorboard',
  summary: 'Compare source and destination byte for byte over the mirrored range',
  usage: '--verify --mirror M [--topics a,b] [--no-wait] | --verify --id ID',
  examples: ['mirrorboard --verify --mirror dr', 'mirrorboard --verify --id v-3k9x2m'],
  options: [
    MIRROR_OPTION,
    option('--topics <topic,...>', "only these topics of the mirror (names; all by default)"),
    option('--id <verification>', 'follow or show this verification instead of starting one'),
    option('--no-wait', 'return once the verification is started'),
  ],
  async run(context) {
    const { api, out, flags } = context
    let id = flags.string('id')
    if (id === undefined) {
      const mirror = flags.required('mirror', 'unless --id names a verification')
      const topics = flags.list('topics')
      id = (await api.call(verificationEndpoints.verifyMirror, { params: { mirror }, body: topics === undefined ? {} : { topics } })).verification
      out.note(`Verification ${id} of ${mirror} started`)
      if (!flags.boolean('wait')) {
        out.result({ verification: id }, () => `Follow it with mirrorboard --verify --id ${id}\n`)
        return EXIT.ok
      }
    }
    const verification = await followVerification(context, id)
    out.result(verification, () => renderVerification(verification, context))
    if (verification.status !== 'passed') {
      const code = verification.status === 'mismatched' ? 'VERIFICATION_MISMATCHED' : verification.status === 'cancelled' ? 'VERIFICATION_CANCELLED' : 'VERIFICATION_FAILED'
      throw new RefusedError(code, `verification ${verification.id} of ${verification.mirror}: ${verification.status}${verification.error === null ? '' : ` (${verification.error})`}; ${verification.totals.mismatches} mismatches`)
    }
    return EXIT.ok
  },
}

async function followVerification({ api, io, out }: Context, id: string): Promise<Verification> {
  const controller = new AbortController()
  const stop = () => controller.abort()
  io.signal.addEventListener('abort', stop, { once: true })
  try {
    const stream = await EventStream.open(api, ['verification'], controller.signal)
    let current = await api.call(verificationEndpoints.getVerification, { params: { id } })
    let shownAt = 0
    const show = (summary: Pick<Verification, 'totals' | 'status'>) => {
      const { totals } = summary
      out.note(`${clockTime(io.now())}  ${totals.verifiedOffsets}/${totals.offsets} offsets compared · ${totals.done}/${totals.partitions} partitions · ${totals.mismatches} mismatches · ${formatBytes(totals.bytes)}`)
      shownAt = io.now()
    }
    show(current)
    if (current.status !== 'running') return current
    for await (const event of stream) {
      if (event.type === 'resync') current = await api.call(verificationEndpoints.getVerification, { params: { id } })
      if (event.type !== 'verification') continue
      const summary = VerificationSummary.safeParse(eventData(event))
      if (!summary.success || summary.data.id !== id) continue
      if (summary.data.status !== 'running') break
      if (io.now() - shownAt >= PROGRESS_EVERY_MS) show(summary.data)
    }
    current = await api.call(verificationEndpoints.getVerification, { params: { id } })
    show(current)
    return current
  } finally {
    io.signal.removeEventListener('abort', stop)
    controller.abort()
  }
}

function renderVerification(verification: Verification, { style }: Context): string {
  const columns: Column<Verification['partitions'][number]>[] = [
    { header: 'TOPIC', value: (row) => row.topic },
    { header: 'PARTITION', value: (row) => String(row.partition) },
    { header: 'RANGE', value: (row) => `${row.fromOffset}-${row.toOffset}` },
    { header: 'MODE', value: (row) => row.mode },
    { header: 'STATUS', value: (row) => row.status, tone: (row) => PARTITION_TONE[row.status] },
    { header: 'MISMATCHES', value: (row) => String(row.mismatchCount) },
    { header: 'SUMMARY', value: (row) => row.error ?? row.summary },
  ]
  const mismatches = verification.partitions.flatMap((row) => row.mismatches.slice(0, 5).map((mismatch) => `  ${row.topic}-${row.partition} offset ${mismatch.offset} ${mismatch.kind}: ${mismatch.detail}`))
  const status = `Verification ${verification.id} of ${verification.mirror}: ${verification.status}`
  return [
    paint(status, STATUS_TONE[verification.status], style),
    '',
    renderTable(verification.partitions, columns, style).trimEnd(),
    ...(mismatches.length > 0 ? ['', 'First mismatches:', ...mismatches] : []),
    '',
  ].join('\n')
}
