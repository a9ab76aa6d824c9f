'use client'

import { isApiError } from '@/lib/api/errors'

/** The API's code and message (never a stack trace), with a retry when the caller can retry. */
export function ErrorPanel({ error, title = 'Could not load this', onRetry, compact = false }: { error: unknown; title?: string; onRetry?: () => void; compact?: boolean }) {
  const { code, message } = describeError(error)
  return (
    <div
      role="alert"
      className={`rounded-lg border border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950/60 dark:text-red-100 ${compact ? 'px-3 py-2' : 'p-4'}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="font-semibold">{title}</p>
          <p className="mt-0.5 text-sm break-words">
            <code className="rounded bg-red-100 px-1 py-0.5 font-mono text-xs font-semibold dark:bg-red-900/70">{code}</code> {message}
          </p>
        </div>
        {onRetry && (
          <button
            type="button"
            onClick={onRetry}
            className="rounded-md border border-red-300 bg-white px-3 py-1 text-sm font-medium text-red-800 hover:bg-red-100 focus-visible:outline-2 focus-visible:outline-red-600 dark:border-red-800 dark:bg-red-900 dark:text-red-100 dark:hover:bg-red-800"
          >
            Retry
          </button>
        )}
      </div>
    </div>
  )
}

export function describeError(error: unknown): { code: string; message: string } {
  if (isApiError(error)) return { code: error.code, message: error.message }
  if (error instanceof Error) return { code: 'INTERNAL', message: error.message }
  return { code: 'INTERNAL', message: String(error) }
}
