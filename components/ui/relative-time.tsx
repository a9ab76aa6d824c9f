'use client'

import { useSyncExternalStore } from 'react'
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

export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now, () => 0)
}

/** "3 s ago", with the exact ISO time on hover; renders the exact time until the browser's clock is known. */
export function RelativeTime({ at, className }: { at: number; className?: string }) {
  const current = useNow()
  return (
    <time dateTime={exactTime(at)} title={exactTime(at)} className={className} suppressHydrationWarning>
      {current === 0 ? exactTime(at).slice(11, 19) : formatRelative(at, current)}
    </time>
  )
}
