'use client'

import { useStreamStatus } from '@/components/data/event-stream'

const LOOK = {
  open: { dot: 'bg-emerald-500', label: 'Live', title: 'Live updates are connected' },
  connecting: { dot: 'bg-slate-400 motion-safe:animate-pulse', label: 'Connecting', title: 'Connecting to live updates…' },
  disconnected: { dot: 'bg-red-500', label: 'Offline', title: 'Live updates are disconnected; reconnecting' },
} as const

export function LiveIndicator() {
  const status = useStreamStatus()
  const look = LOOK[status]
  return (
    <span
      role="status"
      aria-label="Live updates"
      data-stream={status}
      title={look.title}
      className="inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 max-sm:px-1 text-xs font-medium text-slate-600 dark:text-slate-300"
    >
      <span aria-hidden className={`h-2 w-2 rounded-full ${look.dot}`} />
      {/* On a phone the dot alone (the word stays for screen readers and in the title): "Connecting" or "Offline"
          beside a two-digit alert count pushed the header's controls 4 px past a 390 px screen. */}
      <span className="max-sm:sr-only">{look.label}</span>
    </span>
  )
}
