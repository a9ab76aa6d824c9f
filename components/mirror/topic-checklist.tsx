'use client'

import { useId } from 'react'

/** Checkboxes for topics, with "all" and "none", each topic with a note (e.g. its partition count). */
export function TopicChecklist({
  legend,
  topics,
  selected,
  onChange,
  disabled = false,
}: {
  legend: string
  topics: ReadonlyArray<{ topic: string; note?: string }>
  selected: ReadonlySet<string>
  onChange: (selected: ReadonlySet<string>) => void
  disabled?: boolean
}) {
  const id = useId()
  const toggle = (topic: string) => {
    const next = new Set(selected)
    if (next.has(topic)) next.delete(topic)
    else next.add(topic)
    onChange(next)
  }
  const link = 'rounded px-1 text-xs font-medium text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:opacity-50 dark:text-indigo-300'
  return (
    <fieldset disabled={disabled} className="min-w-0">
      <legend className="flex w-full items-center justify-between gap-2 text-sm font-medium text-slate-900 dark:text-slate-100">
        <span>{legend}</span>
        <span className="flex gap-1">
          <button type="button" className={link} onClick={() => onChange(new Set(topics.map(({ topic }) => topic)))}>
            All
          </button>
          <button type="button" className={link} onClick={() => onChange(new Set())}>
            None
          </button>
        </span>
      </legend>
      <ul className="mt-1.5 max-h-48 overflow-auto rounded-md border border-slate-200 p-1 dark:border-slate-700">
        {topics.map(({ topic, note }, index) => (
          <li key={topic}>
            <label htmlFor={`${id}-${index}`} className="flex cursor-pointer items-center gap-2 rounded px-2 py-1 text-sm hover:bg-slate-50 dark:hover:bg-slate-800">
              <input
                id={`${id}-${index}`}
                type="checkbox"
                checked={selected.has(topic)}
                onChange={() => toggle(topic)}
                className="h-4 w-4 accent-indigo-600"
              />
              <span className="min-w-0 flex-1 truncate font-mono text-xs">{topic}</span>
              {note && <span className="shrink-0 text-xs text-slate-500 dark:text-slate-400">{note}</span>}
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  )
}
