'use client'

import { useState, type ReactNode } from 'react'
import { buttonClass } from '@/components/ui/button-class'
import { Refusal } from './form-controls'

/**
 * A form's two steps: filling it in, then its ReviewStep. `review()` goes to the review (once the form's
 * checks passed); `back()` returns to the form and clears the refusal of the last attempt, so the form
 * does not show an answer to a request it no longer stands for.
 */
export function useReview(mutation: { reset: () => void }) {
  const [reviewing, setReviewing] = useState(false)
  return {
    reviewing,
    review: () => setReviewing(true),
    back: () => {
      mutation.reset()
      setReviewing(false)
    },
  }
}

/**
 * The confirmation of a topic action: what it will do, in a sentence, then the button that does it (red
 * when it removes data) beside the way back. A refusal shows the API's code and message here.
 */
export function ReviewStep({
  effect,
  confirmLabel,
  destructive,
  pending,
  error,
  onConfirm,
  onBack,
  confirmDisabled = false,
  children,
}: {
  effect: ReactNode
  confirmLabel: string
  destructive: boolean
  pending: boolean
  error: unknown
  onConfirm: () => void
  onBack: () => void
  /** The confirmation is not complete yet (a name still to type). */
  confirmDisabled?: boolean
  children?: ReactNode
}) {
  return (
    <div className="space-y-4">
      <div
        role="group"
        aria-label="What this does"
        className={`rounded-md border px-3 py-2.5 text-sm ${destructive ? 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-50' : 'border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-800/60'}`}
      >
        {effect}
      </div>
      {children}
      {error !== null && <Refusal error={error} title="Refused" />}
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" disabled={pending} onClick={onBack} className={buttonClass('secondary')}>
          Back
        </button>
        <button type="button" disabled={pending || confirmDisabled} onClick={onConfirm} className={buttonClass(destructive ? 'danger' : 'primary')}>
          {pending ? 'Working…' : confirmLabel}
        </button>
      </div>
    </div>
  )
}
