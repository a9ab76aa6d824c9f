'use client'

import Link from 'next/link'
import { useId, useState } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useCanOperate, useOperateRefusal } from '@/components/data/session-context'
import type { TopicAction } from '@/components/data/use-mirror-actions'
import { buttonClass } from '@/components/ui/button-class'
import type { Mirror } from '@/lib/api/mirrors'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { mirrorActionStates, type MirrorAction } from '@/lib/ui/mirror-actions'
import { StartTopicsDialog } from './start-topics-dialog'
import { TopicActionDialog, type ActionResult } from './topic-action-dialog'
import { formatInteger } from '@/lib/ui/format'

type OpenDialog = TopicAction | 'start' | null

const MIRROR_ACTIONS: ReadonlyArray<{ action: MirrorAction; title: string }> = [
  { action: 'recover', title: 'Recover' },
  { action: 'pause', title: 'Pause' },
  { action: 'resume', title: 'Resume' },
  { action: 'failover', title: 'Failover' },
  { action: 'failback', title: 'Failback' },
]

type Counts = Readonly<Partial<Record<MirrorPartitionState, number>>>

/**
 * The operator's controls for a mirror (none for viewers), state-aware (lib/ui/mirror-actions.ts): the one action
 * the state calls for is the primary button, and an action that cannot apply is disabled with its reason beside
 * it (for the eye, and as its accessible description). Pause, resume and recover confirm in a dialog; the
 * failover and failback wizards are pages of their own.
 */
export function MirrorActions({ mirror, store, counts, recoverInBand = false }: { mirror: Mirror; store: MirrorPartitionStore; counts: Counts; recoverInBand?: boolean }) {
  const canOperate = useCanOperate({ mirror: mirror.name })
  // An operator of other mirrors sees why the controls are not here; a viewer everywhere sees none.
  const refusal = useOperateRefusal({ mirror: mirror.name })
  const [open, setOpen] = useState<OpenDialog>(null)
  const [result, setResult] = useState<ActionResult | null>(null)
  const reasonsId = useId()
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
  const states = mirrorActionStates(counts)
  const failed = counts.FAILED ?? 0
  const done = (next: ActionResult) => {
    setOpen(null)
    setResult(next)
  }
  const openDialog = (dialog: OpenDialog) => {
    setResult(null)
    setOpen(dialog)
  }
  const look = (action: MirrorAction) => buttonClass(states[action].primary ? 'primary' : 'secondary', 'sm')
  const disabledReasons = MIRROR_ACTIONS.filter(({ action }) => !states[action].enabled && !(action === 'recover' && recoverInBand))
  const button = (action: 'pause' | 'resume' | 'recover', icon: string, label: string) => (
    <button
      type="button"
      className={look(action)}
      disabled={!states[action].enabled}
      aria-describedby={states[action].enabled ? undefined : `${reasonsId}-${action}`}
      title={states[action].reason ?? undefined}
      data-primary={states[action].primary || undefined}
      onClick={() => openDialog(action)}
    >
      <span aria-hidden>{icon}</span> {label}
    </button>
  )
  const wizard = (action: 'failover' | 'failback', label: string) =>
    states[action].enabled ? (
      <Link prefetch={false} href={`${base}/${action}`} className={look(action)} data-primary={states[action].primary || undefined}>
        {label}
      </Link>
    ) : (
      <button type="button" disabled className={look(action)} aria-describedby={`${reasonsId}-${action}`} title={states[action].reason ?? undefined}>
        {label}
      </button>
    )
  return (
    <div className="flex flex-col items-start gap-2 lg:items-end">
      <div role="group" aria-label="Mirror actions" className="flex flex-wrap gap-2 lg:justify-end">
        {/* While the incident band shows, its Recover is the page's one primary action: not a second one here. */}
        {!recoverInBand && button('recover', '↻', failed > 0 ? `Recover ${formatInteger(failed)} failed` : 'Recover')}
        {button('pause', '❚❚', 'Pause')}
        {button('resume', '▶', 'Resume')}
        {wizard('failover', 'Failover…')}
        {wizard('failback', 'Failback…')}
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => openDialog('start')}>
          <span aria-hidden>+</span> Start topics…
        </button>
        <Link prefetch={false} href={`${base}/settings`} className={buttonClass('secondary', 'sm')}>
          <span aria-hidden>⚙</span> Settings
        </Link>
      </div>
      {disabledReasons.length > 0 && (
        <ul className="max-w-xl text-xs text-slate-500 lg:text-right dark:text-slate-400" aria-label="Why some actions are unavailable">
          {disabledReasons.map(({ action, title }) => (
            <li key={action} id={`${reasonsId}-${action}`}>
              {title}: {states[action].reason}
            </li>
          ))}
        </ul>
      )}
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
