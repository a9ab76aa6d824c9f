'use client'

import type { ReactNode } from 'react'
import { Done, Refusal } from './form-controls'

/**
 * The scaffold every management form is built on: a form named for screen readers that leaves validation to
 * the API's own schema (`noValidate`; inline issues come from use-form-issues.ts), its fields, one row of
 * actions, and under it the API's refusal with its code and message, or what the change did. A form whose
 * change needs a second look first goes to its ReviewStep (`useReview`, review-step.tsx) on submit.
 *
 * Actions sit at the end in a dialog and at the start on a page; `divided` draws a rule above them when the
 * form is the body of a panel (the mirror's settings).
 */
export function ManageForm({
  label,
  onSubmit,
  actions,
  actionsAt = 'end',
  divided = false,
  refusal = null,
  after,
  done,
  className = 'space-y-4',
  children,
}: {
  /** The form's accessible name ("Add a cluster"). */
  label: string
  /** The submit, its default (a page load) already prevented. */
  onSubmit: () => void
  actions: ReactNode
  actionsAt?: 'start' | 'end'
  divided?: boolean
  refusal?: { readonly error: unknown; readonly title: string } | null
  /** A line about the refusal, under it (what to do about a 412, the secrets that were cleared). */
  after?: ReactNode
  /** What the change did, in a sentence; announced. */
  done?: ReactNode
  className?: string
  children: ReactNode
}) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        onSubmit()
      }}
      noValidate
      aria-label={label}
      className={className}
    >
      {children}
      <div
        className={`flex flex-wrap items-center ${actionsAt === 'end' ? 'justify-end gap-2' : 'gap-3'} ${divided ? 'border-t border-slate-100 pt-4 dark:border-slate-800' : ''}`}
      >
        {actions}
      </div>
      {(refusal !== null || present(after)) && (
        <div className="space-y-2">
          {refusal !== null && <Refusal error={refusal.error} title={refusal.title} />}
          {after}
        </div>
      )}
      {present(done) && <Done>{done}</Done>}
    </form>
  )
}

/** `cond && <p/>` leaves false, null or undefined when there is nothing to show. */
function present(node: ReactNode): boolean {
  return node !== undefined && node !== null && node !== false
}
