'use client'

import dynamic from 'next/dynamic'
import { useEffect, useRef, useState, type ComponentProps } from 'react'
import { CONTENT_HEIGHT, CONTENT_WIDTH, MIN_ZOOM } from './state-graph-size'

/**
 * The state graph with React Flow in a chunk of its own, loaded once its place comes near the screen: the graph
 * sits below the log tapes, and parsing React Flow, routing the graph and drawing it took about a third of the
 * partition page's main-thread time on a phone's CPU while the page loaded (Lighthouse's total blocking time),
 * for a picture that is a scroll away. The placeholder takes the drawing's room at the same zoom
 * (state-graph.tsx fits the width, between MIN_ZOOM and 1) plus its legend and list, so nothing below moves
 * when the graph arrives.
 */
const StateGraph = dynamic(() => import('./state-graph').then((module) => module.StateGraph), {
  ssr: false,
  loading: StateGraphPlaceholder,
})

/** How far below the screen the graph starts loading, so a reader scrolling down finds it drawn. */
const LOAD_MARGIN = '300px'

export function LazyStateGraph(props: ComponentProps<typeof StateGraph>) {
  const placeholder = useRef<HTMLDivElement>(null)
  const [near, setNear] = useState(false)
  useEffect(() => {
    const element = placeholder.current
    if (near || element === null) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) setNear(true)
    }, { rootMargin: `${LOAD_MARGIN} 0px` })
    observer.observe(element)
    return () => observer.disconnect()
  }, [near])
  if (near) return <StateGraph {...props} />
  return (
    <div ref={placeholder}>
      <StateGraphPlaceholder />
    </div>
  )
}

function StateGraphPlaceholder() {
  return (
    <div aria-hidden>
      <div
        className="w-full motion-safe:animate-pulse rounded-md bg-slate-200 dark:bg-slate-800"
        style={{ aspectRatio: `${CONTENT_WIDTH} / ${CONTENT_HEIGHT}`, minHeight: CONTENT_HEIGHT * MIN_ZOOM, maxHeight: CONTENT_HEIGHT }}
      />
      <div className="mt-3 h-4 w-2/3 motion-safe:animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
      <div className="mt-2 h-5 w-1/2 motion-safe:animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
    </div>
  )
}
