'use client'

import { createContext, startTransition, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react'
import { exactTime, formatRelative } from '@/lib/ui/format'

// One clock for every relative time on the page: a single 1 s interval, however many are shown.
const listeners = new Set<() => void>()
let now = Date.now()
let timer: ReturnType<typeof setInterval> | undefined

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  if (timer === undefined) {
    now = Date.now()
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

/**
 * False once the page's first hydration has committed (set a task later, after every effect of that commit ran).
 * Read as useSyncExternalStore's client snapshot, which React compares with the server's (true) after hydrating a
 * component: equal until then, so hydrating components are not rendered again synchronously for it.
 */
let firstHydration = true
/** One timer ends the first hydration for every clock reader: each reader's effect had set its own (a 2,000-row page's
 * table set hundreds of timers in one task, ~60 ms of a Lighthouse run's main thread in setTimeout alone). */
let endOfHydrationScheduled = false
const noSubscription = () => () => {}
const whileHydrating = () => true
const clientSnapshot = () => firstHydration

/**
 * The page's clock, ms. Each tick re-renders what shows it as a transition, which React renders in slices and
 * yields between: read through useSyncExternalStore, every tick had been one blocking render of every relative time,
 * freshness and lower bound on the page (with a 2,000-partition mirror's snapshot, 50–300 ms every second at a
 * phone's speed: Lighthouse's total blocking time). A transition's render shows one tick everywhere all the same.
 */
export function useNow(): number {
  const renderedAt = useContext(RenderTimeContext)
  // True while this component hydrates (React asks for the server's snapshot then): it must render the server's time.
  const hydrating = useSyncExternalStore(noSubscription, clientSnapshot, whileHydrating)
  const [shown, setShown] = useState(() => (hydrating ? renderedAt : timer === undefined ? Date.now() : now))
  useEffect(() => {
    if (firstHydration && !endOfHydrationScheduled) {
      endOfHydrationScheduled = true
      setTimeout(() => (firstHydration = false), 0)
    }
    const follow = () => startTransition(() => setShown(now))
    const stop = subscribe(follow)
    follow()
    return stop
  }, [])
  return shown
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
