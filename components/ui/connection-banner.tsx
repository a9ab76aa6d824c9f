'use client'

import { useStreamDisconnectedAt } from '@/components/data/event-stream'
import { useNow } from './relative-time'

/** Shown once the event stream has been down for a couple of seconds: what is on screen may be stale. */
const GRACE_MS = 2_000

export function ConnectionBanner() {
  const disconnectedAt = useStreamDisconnectedAt()
  const now = useNow()
  if (disconnectedAt === null || now === 0 || now - disconnectedAt < GRACE_MS) return null
  return (
    <div role="alert" className="border-b border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      <p className="mx-auto max-w-7xl px-4 py-2 text-sm sm:px-6 lg:px-8">
        <strong className="font-semibold">Live updates lost.</strong> Reconnecting to the server; figures on this page may be out of date until then.
      </p>
    </div>
  )
}
