import type { ReactNode } from 'react'

/** A titled box: one question per panel, as operations consoles do. */
export function Panel({ title, actions, children, className = '', id }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; id?: string }) {
  return (
    <section
      aria-labelledby={title !== undefined && id !== undefined ? `${id}-title` : undefined}
      className={`min-w-0 rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900 ${className}`}
    >
      {(title !== undefined || actions !== undefined) && (
        <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-100 px-4 py-2.5 dark:border-slate-800">
          {title !== undefined && (
            <h2 id={id === undefined ? undefined : `${id}-title`} className="text-sm font-semibold text-slate-900 dark:text-slate-100">
              {title}
            </h2>
          )}
          {actions}
        </div>
      )}
      <div className="p-4">{children}</div>
    </section>
  )
}

export function Skeleton({ className = '' }: { className?: string }) {
  return <div aria-hidden className={`motion-safe:animate-pulse rounded bg-slate-200 dark:bg-slate-800 ${className}`} />
}
