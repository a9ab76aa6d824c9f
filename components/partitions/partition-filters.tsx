'use client'

import { memo, useEffect, useId, useState } from 'react'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { NO_FILTER, type PartitionFilter } from '@/lib/ui/partition-table'
import { STATE_STYLE, STATES_BY_SEVERITY, TONE_STYLE } from '@/lib/ui/state-style'
import { buttonClass } from '@/components/ui/button-class'
import { formatInteger } from '@/lib/ui/format'

export const LAG_THRESHOLDS: ReadonlyArray<{ value: number | null; label: string }> = [
  { value: null, label: 'Any lag' },
  { value: 0, label: 'Lag > 0' },
  { value: 100, label: 'Lag > 100' },
  { value: 1_000, label: 'Lag > 1k' },
  { value: 10_000, label: 'Lag > 10k' },
]

/**
 * Whether a select of the table's fieldset lists all its options: a task after the fieldset is enabled. Enabling it
 * restyles every option under it (Lighthouse's trace records each with a stack: 53 options' worth, about a third
 * of the 120–280 ms commit that follows big-2000's partition list); options inserted into an enabled select are not
 * restyled again. Until then the disabled select, which cannot be opened, holds only its chosen option.
 */
export function useOptionsAfter(enabled: boolean): boolean {
  const [shown, setShown] = useState(enabled)
  useEffect(() => {
    if (!enabled || shown) return
    const timer = setTimeout(() => setShown(true), 0)
    return () => clearTimeout(timer)
  }, [enabled, shown])
  return enabled && shown
}

export function isFiltering(filter: PartitionFilter): boolean {
  return filter.states.size > 0 || filter.topic !== null || filter.minOffsetLag !== null || filter.text.trim() !== ''
}

/**
 * State chips with counts (worst first), a topic select, a lag threshold and a search box. Memoised: the table
 * redraws on every live change, and React sets a controlled input's name and type again on each render.
 * `complete`: false while only the first screen of partitions is in (the table's fieldset is disabled then); a
 * disabled select cannot be opened, so it holds only its chosen option until then (useOptionsAfter).
 */
export const PartitionFilters = memo(function PartitionFilters({
  filter,
  counts,
  topics,
  onChange,
  complete = true,
}: {
  filter: PartitionFilter
  counts: Record<MirrorPartitionState, number>
  topics: ReadonlyArray<{ topic: string; partitions: number }>
  onChange: (filter: PartitionFilter) => void
  complete?: boolean
}) {
  const id = useId()
  const allOptions = useOptionsAfter(complete)
  const shown = STATES_BY_SEVERITY.filter((state) => counts[state] > 0 || filter.states.has(state))
  const toggleState = (state: MirrorPartitionState) => {
    const states = new Set(filter.states)
    if (states.has(state)) states.delete(state)
    else states.add(state)
    onChange({ ...filter, states })
  }
  const all = Object.values(counts).reduce((sum, count) => sum + count, 0)
  const labelClass = 'text-xs font-medium text-slate-600 dark:text-slate-300'
  const field =
    'rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100'
  return (
    <div className="flex flex-col gap-3">
      <div role="group" aria-label="Filter by state" className="flex flex-wrap gap-1.5">
        <button
          type="button"
          aria-pressed={filter.states.size === 0}
          onClick={() => onChange({ ...filter, states: new Set() })}
          className={`inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
            filter.states.size === 0 ? 'bg-slate-900 text-white ring-slate-900 dark:bg-slate-100 dark:text-slate-900 dark:ring-slate-100' : 'text-slate-700 ring-slate-300 hover:bg-slate-100 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800'
          }`}
        >
          All states <span className="tabular-nums">{formatInteger(all)}</span>
        </button>
        {shown.map((state) => {
          const style = STATE_STYLE[state]
          const pressed = filter.states.has(state)
          return (
            <button
              key={state}
              type="button"
              aria-pressed={pressed}
              data-state-chip={state}
              onClick={() => toggleState(state)}
              className={`inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-medium ring-inset focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${TONE_STYLE[style.tone].badge} ${
                pressed ? 'ring-2 ring-slate-900 dark:ring-white' : 'ring-1'
              }`}
            >
              {pressed && <span aria-hidden>✓</span>}
              <span aria-hidden className="font-mono">
                {style.icon}
              </span>
              {style.short}
              <span className="tabular-nums">{formatInteger(counts[state])}</span>
            </button>
          )
        })}
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <div className="flex flex-col gap-0.5">
          <label className={labelClass} htmlFor={`${id}-topic`}>
            Topic
          </label>
          <select
            id={`${id}-topic`}
            value={filter.topic ?? ''}
            onChange={(event) => onChange({ ...filter, topic: event.target.value === '' ? null : event.target.value })}
            className={`${field} max-w-[16rem]`}
          >
            <option value="">All topics ({topics.length})</option>
            {topics.filter(({ topic }) => allOptions || topic === filter.topic).map(({ topic, partitions }) => (
              <option key={topic} value={topic}>
                {topic} ({partitions})
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-0.5">
          <label className={labelClass} htmlFor={`${id}-lag`}>
            Offset lag
          </label>
          <select
            id={`${id}-lag`}
            value={filter.minOffsetLag === null ? '' : String(filter.minOffsetLag)}
            onChange={(event) => onChange({ ...filter, minOffsetLag: event.target.value === '' ? null : Number(event.target.value) })}
            className={field}
          >
            {LAG_THRESHOLDS.filter(({ value }) => allOptions || value === filter.minOffsetLag).map(({ value, label }) => (
              <option key={label} value={value === null ? '' : String(value)}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="flex min-w-[12rem] flex-1 flex-col gap-0.5">
          <label className={labelClass} htmlFor={`${id}-search`}>
            Search
          </label>
          <input
            id={`${id}-search`}
            type="search"
            value={filter.text}
            placeholder="topic, topic-3, state or error"
            onChange={(event) => onChange({ ...filter, text: event.target.value })}
            className={field}
          />
        </div>
        {isFiltering(filter) && (
          <button type="button" onClick={() => onChange(NO_FILTER)} className={buttonClass('ghost', 'sm')}>
            Clear filters
          </button>
        )}
      </div>
    </div>
  )
})
