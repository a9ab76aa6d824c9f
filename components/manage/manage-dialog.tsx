'use client'

import { useEffect, useId, useRef, type ReactNode } from 'react'
import { createPortal } from 'react-dom'

/**
 * A modal for a management form (native <dialog>: focus stays inside, Escape closes unless work is in flight).
 * Unlike ConfirmDialog it holds its own buttons, since its forms have steps. Only mounted on a click, so
 * `document` exists when it renders.
 */
export function ManageDialog({ title, onClose, busy = false, children }: { title: string; onClose: () => void; busy?: boolean; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
  }, [])
  // Rendered under <body>: opened from a table cell, it must not inherit the cell's text styles.
  return createPortal(
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        if (!busy) onClose()
      }}
      className="m-auto text-left font-normal normal-case max-h-[calc(100dvh-2rem)] w-[min(40rem,calc(100vw-1.5rem))] overflow-y-auto rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="flex items-start justify-between gap-3 border-b border-slate-100 px-5 py-3 dark:border-slate-800">
        <h2 id={titleId} className="min-w-0 text-lg font-semibold break-words">
          {title}
        </h2>
        <button
          type="button"
          disabled={busy}
          onClick={onClose}
          aria-label="Close"
          className="rounded-md px-2 py-0.5 text-lg leading-none text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:opacity-50 dark:text-slate-300 dark:hover:bg-slate-800"
        >
          ×
        </button>
      </div>
      <div className="p-5">{children}</div>
    </dialog>,
    document.body,
  )
}
