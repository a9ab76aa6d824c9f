'use client'

import { usePathname, useSearchParams } from 'next/navigation'
import { Suspense, useEffect, useState } from 'react'
import { navigationTarget } from '@/lib/ui/navigation-click'

/**
 * A thin bar under the top edge from the click on a link until its page is there. Links do not prefetch (a
 * viewport prefetch rendered every linked page on the server while the current one loaded), so a click waits for
 * the server's answer with the old page unchanged; on a busy server in an incident that is seconds, and an operator
 * who sees nothing happen clicks again. Shown only past a short delay, so a quick answer never flickers.
 */
const SHOW_AFTER_MS = 150
/** A navigation the router gave up on (an error page renders at the same path) must not leave the bar forever. */
const GIVE_UP_MS = 20_000

export function NavigationProgress() {
  // useSearchParams needs a Suspense boundary of its own, or it would hold the whole layout back.
  return (
    <Suspense fallback={null}>
      <Bar />
    </Suspense>
  )
}

function Bar() {
  const pathname = usePathname()
  const search = useSearchParams().toString()
  const location = search === '' ? pathname : `${pathname}?${search}`
  const [pending, setPending] = useState<{ from: string; startedAt: number } | null>(null)
  // The click whose delay has passed (its startedAt): one click's timer never shows another's bar.
  const [shownFor, setShownFor] = useState<number | null>(null)

  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      const anchor = event.target instanceof Element ? event.target.closest('a') : null
      if (anchor === null) return
      const to = navigationTarget(event, { href: anchor.getAttribute('href'), target: anchor.getAttribute('target'), download: anchor.hasAttribute('download') }, window.location.href)
      if (to !== null) setPending({ from: window.location.pathname + window.location.search, startedAt: Date.now() })
    }
    const onPopState = () => setPending(null)
    document.addEventListener('click', onClick)
    window.addEventListener('popstate', onPopState)
    return () => {
      document.removeEventListener('click', onClick)
      window.removeEventListener('popstate', onPopState)
    }
  }, [])

  useEffect(() => {
    if (pending === null) return
    const show = setTimeout(() => setShownFor(pending.startedAt), SHOW_AFTER_MS)
    const giveUp = setTimeout(() => setPending(null), GIVE_UP_MS)
    return () => {
      clearTimeout(show)
      clearTimeout(giveUp)
    }
  }, [pending])

  // Once the route changed, the page the click asked for (or another) is on screen: the click is over, and a later
  // programmatic return to the page it started from does not bring the bar back.
  // (React's "adjusting state when a prop changes": during the render, not in an effect.)
  const [renderedLocation, setRenderedLocation] = useState(location)
  if (renderedLocation !== location) {
    setRenderedLocation(location)
    if (pending !== null && pending.from !== location) setPending(null)
  }

  const waiting = pending !== null && pending.from === location
  if (!waiting || shownFor !== pending.startedAt) return null
  return (
    <div role="progressbar" aria-label="Loading page" className="pointer-events-none fixed inset-x-0 top-0 z-50 h-0.5 overflow-hidden bg-sky-100 dark:bg-sky-950">
      <div className="navigation-progress h-full w-2/5 bg-sky-600 dark:bg-sky-400" />
    </div>
  )
}
