'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useId, useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { endpointQuery } from '@/components/data/endpoint-query'
import { useCanOperate } from '@/components/data/session-context'
import { buttonClass } from '@/components/ui/button-class'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel, describeError } from '@/components/ui/error-panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { mirrorEndpoints } from '@/lib/api/routes'
import type { UnfenceResponse } from '@/lib/api/mirrors'
import { counted } from '@/lib/ui/format'

/** The fences are read from the source; an operator watching the page sees a failback's lift within this. */
const REFRESH_MS = 10_000

/**
 * The old source a planned switchover left fenced (issue #34), on the mirror page and the operation page: which
 * topics still refuse client writes, since when and by which operation, and, for an operator, the audited
 * unfence behind the mirror's name typed out (POST /mirrors/{m}/unfence). The fences are read from the source
 * (GET /mirrors/{m}/fences); a source that does not answer is said so, never shown as unfenced. Renders nothing
 * when the mirror keeps no fence.
 */
export function SourceFencePanel({ mirror }: { mirror: string }) {
  const id = useId()
  const queryClient = useQueryClient()
  const canOperate = useCanOperate({ mirror })
  const query = endpointQuery(mirrorEndpoints.listMirrorFences, { params: { mirror } })
  const fences = useQuery({ ...query, refetchInterval: REFRESH_MS, retry: false })
  const [open, setOpen] = useState(false)
  const [typed, setTyped] = useState('')
  const [lifted, setLifted] = useState<UnfenceResponse | null>(null)
  const unfence = useMutation({
    mutationFn: () => callEndpoint(mirrorEndpoints.unfenceMirror, { params: { mirror }, body: { confirm: typed } }),
    onSuccess: (answer) => {
      setLifted(answer)
      setOpen(false)
      setTyped('')
      void queryClient.invalidateQueries({ queryKey: query.queryKey })
    },
  })

  // A failed re-read keeps the fences last read (and the open dialog); only a first read that failed says unknown.
  if (fences.isError && fences.data === undefined) {
    const { code, message } = describeError(fences.error)
    return (
      <p role="status" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50" data-testid="source-fence-unknown">
        Whether the old source still refuses client writes is unknown: <code className="font-mono text-xs font-semibold">{code}</code> {message}
      </p>
    )
  }
  const held = fences.data?.fences ?? []
  if (held.length === 0) {
    if (lifted === null || lifted.unfenced.length === 0) return null
    return (
      <p role="status" className="rounded-lg border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-50" data-testid="source-unfenced">
        ✓ Lifted the fence on {counted(lifted.unfenced.length, 'topic')} of <span className="font-mono">{lifted.sourceCluster}</span>: it takes client writes again.
      </p>
    )
  }
  const sourceCluster = fences.data?.sourceCluster ?? ''
  const operations = [...new Set(held.map((fence) => fence.operation))]
  const since = Math.min(...held.map((fence) => fence.since))
  const matches = typed === mirror
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg border border-indigo-300 bg-indigo-50 p-4 text-indigo-950 dark:border-indigo-800 dark:bg-indigo-950/50 dark:text-indigo-50" data-testid="source-fence">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <h2 id={`${id}-title`} className="flex flex-wrap items-center gap-x-1.5 font-semibold">
            {/* An SVG, not the emoji: Chromium on a server without an emoji font draws a box. */}
            <svg aria-hidden viewBox="0 0 20 20" className="h-4 w-4 shrink-0" fill="currentColor">
              <path fillRule="evenodd" d="M10 2a4 4 0 0 0-4 4v2H5a1 1 0 0 0-1 1v8a1 1 0 0 0 1 1h10a1 1 0 0 0 1-1V9a1 1 0 0 0-1-1h-1V6a4 4 0 0 0-4-4Zm2 6V6a2 2 0 1 0-4 0v2h4Z" clipRule="evenodd" />
            </svg>
            The old source <span className="font-mono">{sourceCluster}</span> refuses client writes
          </h2>
          <p className="text-sm">
            {counted(held.length, 'topic')} fenced by the planned switchover{' '}
            {operations.map((operation, index) => (
              <span key={operation}>
                {index > 0 && ', '}
                <Link prefetch={false} className="font-mono underline underline-offset-2" href={`/operations/${encodeURIComponent(operation)}`}>
                  {operation.slice(0, 8)}
                </Link>
              </span>
            ))}{' '}
            since <RelativeTime at={since} />: the split-brain guard. A failback lifts it by itself; unfence only to write to the old source again without one.
          </p>
          <ul className="flex flex-wrap gap-x-3 gap-y-0.5 font-mono text-xs break-all" aria-label="Fenced topics">
            {held.slice(0, 24).map((fence) => (
              <li key={fence.topic}>{fence.topic}</li>
            ))}
            {held.length > 24 && <li>and {held.length - 24} more</li>}
          </ul>
        </div>
        {canOperate && (
          <button type="button" className={buttonClass('secondary')} onClick={() => setOpen(true)}>
            Unfence…
          </button>
        )}
      </div>
      <ConfirmDialog
        open={open}
        title={`Unfence the old source ${sourceCluster}?`}
        confirmLabel="Unfence"
        destructive
        pending={unfence.isPending}
        confirmDisabled={!matches}
        onCancel={() => {
          setOpen(false)
          setTyped('')
          unfence.reset()
        }}
        onConfirm={() => {
          if (matches) unfence.mutate()
        }}
      >
        <div className="space-y-3">
          <p>
            Clients may write to {counted(held.length, 'topic')} of <span className="font-mono">{sourceCluster}</span> again. Producers still pointed there then write to the old source while
            consumers read the new one (split brain), and a later failback truncates what they wrote. Audited.
          </p>
          <label htmlFor={`${id}-typed`} className="block font-medium">
            Type <span className="font-mono">{mirror}</span> to confirm
          </label>
          <input
            id={`${id}-typed`}
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            autoComplete="off"
            spellCheck={false}
            className="w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
          />
          {unfence.isError && <ErrorPanel error={unfence.error} title="The unfence was refused" />}
        </div>
      </ConfirmDialog>
    </section>
  )
}
