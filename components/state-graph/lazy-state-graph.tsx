'use client'

import dynamic from 'next/dynamic'
import { CONTENT_HEIGHT, CONTENT_WIDTH, MIN_ZOOM } from './state-graph-size'

/**
 * The state graph with React Flow in a chunk of its own, loaded after the page is interactive: the graph
 * sits below the log tapes, and parsing React Flow before hydration held the tapes back (UI.md §4). The
 * placeholder takes the drawing's room at the same zoom (state-graph.tsx fits the width, between MIN_ZOOM
 * and 1) plus its legend and list, so nothing below moves when the graph arrives.
 */
export const LazyStateGraph = dynamic(() => import('./state-graph').then((module) => module.StateGraph), {
  ssr: false,
  loading: StateGraphPlaceholder,
})

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
