'use client'

import type { TopicSelection } from '@/lib/failover/wizard-states'

/** Step 1: every topic of the mirror by default, or a subset. */
export function TopicsStep({ topics, selection, onChange }: { topics: readonly string[]; selection: TopicSelection; onChange: (selection: TopicSelection) => void }) {
  const chosen = new Set(selection.mode === 'all' ? topics : selection.topics)
  const toggle = (topic: string, on: boolean) => {
    const next = topics.filter((name) => (name === topic ? on : chosen.has(name)))
    onChange(next.length === topics.length ? { mode: 'all' } : { mode: 'some', topics: next })
  }
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm text-slate-700 dark:text-slate-300">Which topics fail over? Their partitions stop mirroring and become writable on the destination.</legend>
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="radio"
          name="topic-mode"
          checked={selection.mode === 'all'}
          onChange={() => onChange({ mode: 'all' })}
          className="size-4 accent-indigo-600"
        />
        All topics ({topics.length})
      </label>
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="radio"
          name="topic-mode"
          checked={selection.mode === 'some'}
          onChange={() => onChange({ mode: 'some', topics: selection.mode === 'some' ? selection.topics : [...topics] })}
          className="size-4 accent-indigo-600"
        />
        Some topics
      </label>
      {selection.mode === 'some' && (
        <ul className="ml-6 max-h-72 space-y-1 overflow-y-auto rounded-md border border-slate-200 p-2 dark:border-slate-700" aria-label="Topics to fail over">
          {topics.map((topic) => (
            <li key={topic}>
              <label className="flex items-center gap-2 font-mono text-sm break-all">
                <input type="checkbox" checked={chosen.has(topic)} onChange={(event) => toggle(topic, event.target.checked)} className="size-4 shrink-0 accent-indigo-600" />
                {topic}
              </label>
            </li>
          ))}
        </ul>
      )}
      {selection.mode === 'some' && selection.topics.length === 0 && (
        <p role="status" className="text-sm text-amber-800 dark:text-amber-300">
          ▲ Choose at least one topic.
        </p>
      )}
    </fieldset>
  )
}
