'use client'

import { useEffect, useRef, type ReactNode } from 'react'
import { buttonClass } from './button-class'

/**
 * A modal confirmation (native <dialog>: focus is trapped and Escape cancels). The confirm button names the
 * action; a destructive one is red. While `pending`, both buttons are disabled so a double click cannot send twice.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  destructive = false,
  pending = false,
  confirmDisabled = false,
  onConfirm,
  onCancel,
}: {
  open: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  destructive?: boolean
  pending?: boolean
  /** The confirm button stays disabled (a name still to be typed). */
  confirmDisabled?: boolean
  onConfirm: () => void
  onCancel: () => void
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog
      ref={ref}
      aria-labelledby="confirm-dialog-title"
      onCancel={(event) => {
        event.preventDefault()
        if (!pending) onCancel()
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="p-5">
        <h2 id="confirm-dialog-title" className="text-lg font-semibold">
          {title}
        </h2>
        <div className="mt-2 text-sm text-slate-700 dark:text-slate-300">{children}</div>
      </div>
      <div className="flex justify-end gap-2 border-t border-slate-100 bg-slate-50 px-5 py-3 dark:border-slate-800 dark:bg-slate-950/40">
        <button type="button" disabled={pending} onClick={onCancel} className={buttonClass('secondary')}>
          Cancel
        </button>
        <button type="button" disabled={pending || confirmDisabled} onClick={onConfirm} className={buttonClass(destructive ? 'danger' : 'primary')}>
          {pending ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
