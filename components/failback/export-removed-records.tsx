'use client'

import { useRef, useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { clusterEndpoints } from '@/lib/api/routes'
import { exportLine, recordsInRange, type ExportRange } from '@/lib/failover/failback'
import { formatCount } from '@/lib/ui/format'

/** Records per read (the records API's maximum). */
const PAGE_LIMIT = 1_000

/**
 * Downloads exactly the records a failback will remove from the old source, as NDJSON (one record a line:
 * topic, partition, offset, type, producer id, epochs, key, value, timestamp). The file is streamed: pages
 * are read from the records API one at a time and written to a ReadableStream the browser turns into a
 * Blob, so no list of every record is ever held in the page.
 */
export function ExportRemovedRecords({ cluster, ranges, total, fileName }: { cluster: string; ranges: readonly ExportRange[]; total: number; fileName: string }) {
  const [status, setStatus] = useState<{ kind: 'idle' } | { kind: 'running'; written: number } | { kind: 'done'; written: number } | { kind: 'failed'; error: unknown }>({ kind: 'idle' })
  const abort = useRef<AbortController | null>(null)

  const run = async () => {
    abort.current?.abort()
    const controller = new AbortController()
    abort.current = controller
    let written = 0
    setStatus({ kind: 'running', written })
    const encoder = new TextEncoder()
    const queue = [...ranges]
    let current: { range: ExportRange; nextOffset: number } | null = null
    const stream = new ReadableStream<Uint8Array>({
      async pull(sink) {
        for (;;) {
          if (current === null) {
            const range = queue.shift()
            if (range === undefined) {
              sink.close()
              return
            }
            current = { range, nextOffset: range.fromOffset }
          }
          const { range, nextOffset } = current
          if (nextOffset >= range.toOffset) {
            current = null
            continue
          }
          const page = await callEndpoint(clusterEndpoints.readRecords, {
            params: { cluster, topic: range.topic, partition: range.partition },
            query: { fromOffset: nextOffset, limit: Math.min(PAGE_LIMIT, range.toOffset - nextOffset), isolation: 'read_uncommitted' },
            signal: controller.signal,
          })
          const lines = recordsInRange(page.records, range).map((record) => exportLine(range.topic, range.partition, record))
          // A page that moves no further ends the range: the log ends (or was cut) before it.
          current = page.nextOffset > nextOffset && page.records.length > 0 ? { range, nextOffset: page.nextOffset } : null
          if (lines.length === 0) continue
          written += lines.length
          setStatus({ kind: 'running', written })
          sink.enqueue(encoder.encode(lines.join('')))
          return
        }
      },
      cancel() {
        controller.abort()
      },
    })
    try {
      const blob = await new Response(stream, { headers: { 'content-type': 'application/x-ndjson' } }).blob()
      const url = URL.createObjectURL(blob)
      const link = document.createElement('a')
      link.href = url
      link.download = fileName
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
      setStatus({ kind: 'done', written })
    } catch (error) {
      if (!controller.signal.aborted) setStatus({ kind: 'failed', error })
    }
  }

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={`${buttonClass('secondary')} whitespace-normal! text-left`} disabled={status.kind === 'running' || ranges.length === 0} onClick={() => void run()}>
          <span aria-hidden>↓</span> Download the {formatCount(total)} records that will be removed (NDJSON)
        </button>
        <span role="status" className="text-sm text-slate-700 dark:text-slate-300">
          {status.kind === 'running' && `Exporting… ${formatCount(status.written)} of ${formatCount(total)}`}
          {status.kind === 'done' && `✓ Exported ${formatCount(status.written)} records to ${fileName}`}
          {ranges.length === 0 && 'Nothing will be removed: no export needed.'}
        </span>
      </div>
      {status.kind === 'failed' && <ErrorPanel error={status.error} title="The export stopped" onRetry={() => void run()} compact />}
    </div>
  )
}
