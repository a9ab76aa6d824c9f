'use client'

import dynamic from 'next/dynamic'
import { Fragment, useEffect, useRef, useState, type ComponentProps } from 'react'
import { StateBadge } from '@/components/ui/state-badge'
import { statePath } from '@/lib/ui/state-path'
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
  loading: () => <StateGraphPlaceholder />,
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
      <StateGraphPlaceholder {...props} />
    </div>
  )
}

/**
 * The drawing's room, already saying what the drawing will: the state now and the path taken, in words (a
 * full-page screenshot or a reader who has not scrolled there yet saw a grey block). Without props (the chunk
 * loading, once the place is near) only the room.
 */
function StateGraphPlaceholder(props: Partial<ComponentProps<typeof StateGraph>>) {
  const current = props.current ?? null
  const path = statePath(props.transitions ?? [], current)
  return (
    <div>
      <div
        className="flex w-full flex-col items-center justify-center gap-3 rounded-md border border-dashed border-slate-300 bg-slate-50 px-4 text-center dark:border-slate-700 dark:bg-slate-900/60"
        style={{ aspectRatio: `${CONTENT_WIDTH} / ${CONTENT_HEIGHT}`, minHeight: CONTENT_HEIGHT * MIN_ZOOM, maxHeight: CONTENT_HEIGHT }}
        data-testid="state-graph-placeholder"
      >
        {current !== null && (
          <p className="flex flex-wrap items-center justify-center gap-2 text-sm text-slate-700 dark:text-slate-200">
            Now <StateBadge state={current} />
          </p>
        )}
        {path.steps.length > 1 && (
          <p className="max-w-xl text-xs leading-relaxed text-slate-600 dark:text-slate-300">
            <span className="sr-only">Path taken: </span>
            {path.earlier && '… → '}
            {path.steps.map((step, index) => (
              <Fragment key={`${index}-${step}`}>
                <span className="whitespace-nowrap font-mono">
                  {step}
                  {index < path.steps.length - 1 && <span aria-hidden>&nbsp;→</span>}
                </span>{' '}
              </Fragment>
            ))}
          </p>
        )}
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {props.current === undefined ? 'Drawing the state graph…' : `Every state and transition is drawn here as it scrolls into view.`}
        </p>
      </div>
      {/* The legend's and the lists' room below the drawing. */}
      <div aria-hidden className="mt-3 h-4" />
      <div aria-hidden className="mt-2 h-5" />
    </div>
  )
}
