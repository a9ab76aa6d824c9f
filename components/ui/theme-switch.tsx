'use client'

import { useTheme, type ThemeChoice } from './theme'

const CHOICES: ReadonlyArray<{ value: ThemeChoice; label: string; glyph: string }> = [
  { value: 'system', label: 'System theme', glyph: '◐' },
  { value: 'light', label: 'Light theme', glyph: '☀' },
  { value: 'dark', label: 'Dark theme', glyph: '☾' },
]

export function ThemeSwitch() {
  const { choice, setChoice } = useTheme()
  return (
    <div role="radiogroup" aria-label="Theme" className="inline-flex rounded-md border border-slate-200 p-0.5 dark:border-slate-700">
      {CHOICES.map(({ value, label, glyph }) => (
        <button
          key={value}
          type="button"
          role="radio"
          aria-checked={choice === value}
          aria-label={label}
          title={label}
          onClick={() => setChoice(value)}
          className={`grid h-7 w-7 place-items-center rounded text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
            choice === value
              ? 'bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900'
              : 'text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800'
          }`}
        >
          <span aria-hidden>{glyph}</span>
        </button>
      ))}
    </div>
  )
}
