'use client'

import { useState, type FormEvent } from 'react'
import { buttonClass } from '@/components/ui/button-class'
import { formatOffset } from '@/lib/ui/format'
import { LOG_WINDOW_SIZES, isLogWindowSize, type LogBounds, type LogWindow, type LogWindowSize } from '@/lib/ui/log-strip'

/** Moves the tapes' window: start, previous, next, end, the truncation point, the mirrored position, any offset. */
export function LogPaging({
  window,
  bounds,
  truncationOffset,
  mirroredOffset,
  onStart,
  onPrevious,
  onNext,
  onEnd,
  onJump,
  onSize,
}: {
  window: LogWindow
  bounds: LogBounds
  truncationOffset: number | null
  mirroredOffset: number | null
  onStart: () => void
  onPrevious: () => void
  onNext: () => void
  onEnd: () => void
  onJump: (offset: number) => void
  onSize: (size: LogWindowSize) => void
}) {
  const [target, setTarget] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const shownFrom = Math.max(window.from, bounds.start)
  const shownTo = Math.min(window.from + window.size, bounds.end)
  const atStart = shownFrom <= bounds.start
  const atEnd = shownTo >= bounds.end
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const text = target.trim()
    if (!/^\d{1,16}$/.test(text)) {
      setProblem('Enter an offset: a whole number.')
      return
    }
    const offset = Number(text)
    if (offset < bounds.start || offset >= Math.max(bounds.end, bounds.start + 1)) {
      setProblem(`Offset ${formatOffset(offset)} is outside both logs (${formatOffset(bounds.start)} to ${formatOffset(Math.max(bounds.start, bounds.end - 1))}).`)
      return
    }
    setProblem(null)
    onJump(offset)
  }
  return (
    <div className="flex flex-wrap items-end gap-x-3 gap-y-2">
      <div role="group" aria-label="Move through the logs" className="flex flex-wrap gap-1">
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={onStart} disabled={atStart}>
          ⇤ Start
        </button>
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={onPrevious} disabled={atStart}>
          ‹ Previous
        </button>
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={onNext} disabled={atEnd}>
          Next ›
        </button>
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={onEnd} disabled={atEnd}>
          End ⇥
        </button>
        {mirroredOffset !== null && (
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => onJump(mirroredOffset)}>
            Mirrored position
          </button>
        )}
        {truncationOffset !== null && (
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => onJump(truncationOffset)}>
            ✂ Truncation point
          </button>
        )}
      </div>
      <form onSubmit={submit} className="flex items-end gap-1" noValidate>
        <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
          Jump to offset
          <input
            value={target}
            onChange={(event) => setTarget(event.target.value)}
            inputMode="numeric"
            aria-invalid={problem !== null}
            aria-describedby={problem === null ? undefined : 'log-jump-problem'}
            className="mt-0.5 w-28 rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
          />
        </label>
        <button type="submit" className={buttonClass('secondary', 'sm')}>
          Go
        </button>
      </form>
      <label className="flex flex-col text-xs text-slate-600 dark:text-slate-300">
        Offsets per page
        <select
          value={window.size}
          onChange={(event) => {
            const size = Number(event.target.value)
            if (isLogWindowSize(size)) onSize(size)
          }}
          className="mt-0.5 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
        >
          {LOG_WINDOW_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <p className="text-xs text-slate-600 dark:text-slate-300" aria-live="polite">
        {shownTo > shownFrom ? (
          <>
            Offsets <span className="font-mono">{formatOffset(shownFrom)}</span>–<span className="font-mono">{formatOffset(shownTo - 1)}</span> of{' '}
            <span className="font-mono">{formatOffset(bounds.start)}</span>–<span className="font-mono">{formatOffset(Math.max(bounds.start, bounds.end - 1))}</span>
          </>
        ) : (
          'No offsets yet'
        )}
      </p>
      {problem !== null && (
        <p id="log-jump-problem" role="alert" className="basis-full text-xs font-medium text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
    </div>
  )
}
