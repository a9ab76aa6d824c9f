'use client'

import type { ReactNode } from 'react'
import { ErrorPanel } from '@/components/ui/error-panel'

/**
 * The pieces every management form is made of: a labelled field with its hint and its inline issue (tied to
 * the control by aria-describedby, so a screen reader reads them with it), and the API's refusal.
 */

export const inputClass =
  'block w-full min-w-0 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 placeholder:text-slate-400 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 aria-[invalid=true]:border-red-500 disabled:opacity-60 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:placeholder:text-slate-500 dark:aria-[invalid=true]:border-red-400'

export const monoInputClass = `${inputClass} font-mono`

/** The ids a control names in aria-describedby: its hint and, when there is one, its issue. */
export function describedBy(id: string, hint: boolean, issue: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : null, issue === undefined ? null : `${id}-issue`].filter((part) => part !== null)
  return ids.length === 0 ? undefined : ids.join(' ')
}

export function controlProps(id: string, hint: ReactNode | undefined, issue: string | undefined) {
  return { id, 'aria-invalid': issue !== undefined, 'aria-describedby': describedBy(id, hint !== undefined, issue) }
}

export function Field({ id, label, hint, issue, children, className = '' }: { id: string; label: ReactNode; hint?: ReactNode; issue?: string; children: ReactNode; className?: string }) {
  return (
    <div className={`min-w-0 ${className}`}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <div className="mt-1">{children}</div>
      {hint !== undefined && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
      {issue !== undefined && <FieldIssue id={`${id}-issue`} issue={issue} />}
    </div>
  )
}

export function FieldIssue({ id, issue }: { id: string; issue: string }) {
  return (
    <p id={id} className="mt-1 flex items-start gap-1 text-xs font-medium text-red-700 dark:text-red-300">
      <span aria-hidden>✕</span>
      {issue}
    </p>
  )
}

/** The API refused: its code and message, as it sent them. */
export function Refusal({ error, title }: { error: unknown; title: string }) {
  return <ErrorPanel compact error={error} title={title} />
}

/** What a change did, in one sentence, announced to screen readers. */
export function Done({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="flex items-start gap-2 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">
      <span aria-hidden>✓</span>
      <span className="min-w-0 break-words">{children}</span>
    </p>
  )
}
