'use client'

import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react'
import { exactTime, formatRelative } from '@/lib/ui/format'

// One clock for every relative time on the page: a single 1 s interval, however many are shown.
const listeners = new Set<() => void>()
let now = Date.now()
let timer: ReturnType<typeof setInterval> | undefined

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  if (timer === undefined) {
    timer = setInterval(() => {
      now = Date.now()
      for (const notify of listeners) notify()
    }, 1_000)
  }
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

/**
 * When the server rendered the page (ms), or 0 where no one said: the clock of the server's render and of the
 * browser's hydration, which must agree. With 0 ("not known yet") every relative time, freshness and lower bound
 * was rendered as a placeholder and rewritten right after hydration, a burst of DOM writes in one long task.
 */
const RenderTimeContext = createContext(0)

export function RenderTimeProvider({ at, children }: { at: number; children: ReactNode }) {
  return <RenderTimeContext.Provider value={at}>{children}</RenderTimeContext.Provider>
}

export function useNow(): number {
  const renderedAt = useContext(RenderTimeContext)
  return useSyncExternalStore(subscribe, () => now, () => renderedAt)
}

/** "3 s ago", with the exact ISO time on hover; renders the exact time when no clock is known (no RenderTimeProvider). */
export function RelativeTime({ at, className }: { at: number; className?: string }) {
  const current = useNow()
  return (
    <time dateTime={exactTime(at)} title={exactTime(at)} className={className} suppressHydrationWarning>
      {current === 0 ? exactTime(at).slice(11, 19) : formatRelative(at, current)}
    </time>
  )
}
