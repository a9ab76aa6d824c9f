'use client'

import Link from 'next/link'
import { useState } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useCanOperate, useOperateRefusal } from '@/components/data/session-context'
import type { TopicAction } from '@/components/data/use-mirror-actions'
import { buttonClass } from '@/components/ui/button-class'
import type { Mirror } from '@/lib/api/mirrors'
import { StartTopicsDialog } from './start-topics-dialog'
import { TopicActionDialog, type ActionResult } from './topic-action-dialog'

type OpenDialog = TopicAction | 'start' | null

/**
 * The operator's controls for a mirror (none for viewers): pause, resume, recover (when something FAILED)
 * and start topics, each behind a confirmation; the failover and failback wizards are pages of their own.
 */
export function MirrorActions({ mirror, store, failed }: { mirror: Mirror; store: MirrorPartitionStore; failed: number }) {
  const canOperate = useCanOperate({ mirror: mirror.name })
  // An operator of other mirrors sees why the controls are not here; a viewer everywhere sees none.
  const refusal = useOperateRefusal({ mirror: mirror.name })
  const [open, setOpen] = useState<OpenDialog>(null)
  const [result, setResult] = useState<ActionResult | null>(null)
  if (!canOperate) {
    return refusal === null ? null : (
      <div role="group" aria-label="Mirror actions" className="flex flex-col items-start gap-1 lg:items-end">
        <button type="button" disabled aria-describedby="mirror-actions-refusal" className={buttonClass('secondary', 'sm')}>
          Failover…
        </button>
        <p id="mirror-actions-refusal" className="max-w-xs text-xs [overflow-wrap:anywhere] text-slate-600 lg:text-right dark:text-slate-400">
          {refusal.charAt(0).toUpperCase() + refusal.slice(1)}.
        </p>
      </div>
    )
  }
  const base = `/mirrors/${encodeURIComponent(mirror.name)}`
  const done = (next: ActionResult) => {
    setOpen(null)
    setResult(next)
  }
  const openDialog = (dialog: OpenDialog) => {
    setResult(null)
    setOpen(dialog)
  }
  return (
    <div className="flex flex-col items-start gap-2 lg:items-end">
      <div role="group" aria-label="Mirror actions" className="flex flex-wrap gap-2 lg:justify-end">
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => openDialog('pause')}>
          <span aria-hidden>❚❚</span> Pause
        </button>
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => openDialog('resume')}>
          <span aria-hidden>▶</span> Resume
        </button>
        {failed > 0 && (
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => openDialog('recover')}>
            <span aria-hidden>↻</span> Recover {failed.toLocaleString('en-US')} failed
          </button>
        )}
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => openDialog('start')}>
          <span aria-hidden>+</span> Start topics…
        </button>
        <Link href={`${base}/failover`} className={buttonClass('secondary', 'sm')}>
          Failover…
        </Link>
        <Link href={`${base}/failback`} className={buttonClass('secondary', 'sm')}>
          Failback…
        </Link>
        <Link href={`${base}/settings`} className={buttonClass('secondary', 'sm')}>
          <span aria-hidden>⚙</span> Settings
        </Link>
      </div>
      {result !== null && (
        <p role="status" className="flex max-w-xl items-start gap-2 rounded-md bg-emerald-50 px-3 py-1.5 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
          <span aria-hidden>✓</span>
          <span>{result.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => setResult(null)} className="ml-1 rounded px-1 text-emerald-800 hover:bg-emerald-100 dark:text-emerald-200 dark:hover:bg-emerald-900">
            ×
          </button>
        </p>
      )}
      {(open === 'pause' || open === 'resume' || open === 'recover') && (
        <TopicActionDialog mirror={mirror.name} action={open} store={store} topics={mirror.topics} onClose={() => setOpen(null)} onDone={done} />
      )}
      {open === 'start' && (
        <StartTopicsDialog mirror={mirror.name} sourceCluster={mirror.sourceCluster} mirrored={mirror.topics} onClose={() => setOpen(null)} onDone={done} />
      )}
    </div>
  )
}
