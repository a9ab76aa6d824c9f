'use client'

import { useRouter } from 'next/navigation'
import { useCallback, useRef, useState, type MouseEvent, type PointerEvent } from 'react'
import type { Topology } from '@/lib/graph/topology'
import { ClusterNode } from './cluster-node'
import { MirrorEdge, MirrorEdgeLabel } from './mirror-edge'
import { fittedView, panView, zoomView, type ViewBox } from '@/lib/graph/topology-view'

/** Past this many pixels a press is a drag of the picture, not a click on what is under it. */
const DRAG_THRESHOLD = 4
const ZOOM_STEP = 1.25

interface Gesture {
  readonly pointers: Map<number, { x: number; y: number }>
  /** Where the first pointer went down, for the drag threshold. */
  start: { x: number; y: number } | null
  dragging: boolean
  /** Two fingers: their distance and the view when the pinch began. */
  pinch: { distance: number; view: ViewBox } | null
  /** A drag just ended: the click that follows it must not open a link. */
  swallowClick: boolean
}

/**
 * The topology as one SVG drawn from buildTopology's layout (positions, sizes, paths): it is in the server's
 * HTML and visible at the first paint, before any script runs; hydration only adds zoom and pan. Until the
 * operator zooms, the picture is at most 1:1 and shrinks to fit its frame (the SVG's own viewBox scaling, so
 * nothing is measured). Zoom is by the buttons or pinch, never the mouse wheel (the page must keep scrolling);
 * drag pans. Cluster boxes and mirror labels are links (HTML inside foreignObject), so Tab reaches them.
 */
export function TopologyGraph({ topology }: { topology: Topology }) {
  const router = useRouter()
  const openMirror = useCallback((mirror: string) => router.push(`/mirrors/${encodeURIComponent(mirror)}`), [router])
  const frame = useRef<HTMLDivElement>(null)
  const [view, setView] = useState<ViewBox | null>(null)
  const gesture = useRef<Gesture>({ pointers: new Map(), start: null, dragging: false, pinch: null, swallowClick: false })
  const width = Math.max(topology.width, 1)
  const height = Math.max(topology.height, 1)

  const frameSize = () => ({ width: frame.current?.clientWidth ?? width, height: frame.current?.clientHeight ?? height })
  /** The view in effect: the one set by zoom or pan, else the fitted picture expressed as a view of the frame. */
  const currentView = () => view ?? fittedView({ width, height }, frameSize())
  const zoomBy = (factor: number) => setView(zoomView(currentView(), factor, frameSize()))

  const onPointerDown = (event: PointerEvent<SVGSVGElement>) => {
    if (event.pointerType === 'mouse' && event.button !== 0) return
    const state = gesture.current
    state.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY })
    if (state.pointers.size === 1) {
      state.start = { x: event.clientX, y: event.clientY }
      state.dragging = false
    } else if (state.pointers.size === 2) {
      const [a, b] = [...state.pointers.values()] as [{ x: number; y: number }, { x: number; y: number }]
      state.pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, view: currentView() }
      event.currentTarget.setPointerCapture(event.pointerId)
    }
  }

  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    const state = gesture.current
    const previous = state.pointers.get(event.pointerId)
    if (previous === undefined) return
    const point = { x: event.clientX, y: event.clientY }
    state.pointers.set(event.pointerId, point)
    if (state.pinch !== null && state.pointers.size === 2) {
      const [a, b] = [...state.pointers.values()] as [{ x: number; y: number }, { x: number; y: number }]
      const box = event.currentTarget.getBoundingClientRect()
      const centre = { x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top }
      const factor = (Math.hypot(a.x - b.x, a.y - b.y) || 1) / state.pinch.distance
      state.dragging = true
      setView(zoomView(state.pinch.view, factor, frameSize(), centre))
      return
    }
    if (state.start === null) return
    if (!state.dragging && Math.hypot(point.x - state.start.x, point.y - state.start.y) < DRAG_THRESHOLD) return
    if (!state.dragging) {
      state.dragging = true
      // Captured only now: capturing at the press would send the click to the SVG instead of the link.
      event.currentTarget.setPointerCapture(event.pointerId)
    }
    const from = currentView()
    setView(panView(from, { x: point.x - previous.x, y: point.y - previous.y }, frameSize()))
  }

  const onPointerEnd = (event: PointerEvent<SVGSVGElement>) => {
    const state = gesture.current
    if (!state.pointers.delete(event.pointerId)) return
    if (state.pointers.size < 2) state.pinch = null
    if (state.pointers.size === 0) {
      state.swallowClick = state.dragging
      state.dragging = false
      state.start = null
    }
  }

  const onClickCapture = (event: MouseEvent<SVGSVGElement>) => {
    if (!gesture.current.swallowClick) return
    gesture.current.swallowClick = false
    event.preventDefault()
    event.stopPropagation()
  }

  const viewBox = view === null ? `0 0 ${width} ${height}` : `${view.x} ${view.y} ${view.width} ${view.height}`
  return (
    <div ref={frame} className="relative flex h-full w-full items-center justify-center overflow-hidden">
      <svg
        data-testid="topology-svg"
        viewBox={viewBox}
        // Fitted: its own size at most, shrunk to the frame (viewBox keeps the aspect). Zoomed: the whole frame.
        width={view === null ? width : '100%'}
        height={view === null ? height : '100%'}
        preserveAspectRatio="xMidYMid meet"
        className={`block cursor-grab select-none active:cursor-grabbing ${view === null ? 'max-h-full max-w-full' : ''}`}
        // Fitted, a vertical swipe scrolls the page on a phone; zoomed in, every swipe pans the picture.
        style={{ touchAction: view === null ? 'pan-y' : 'none' }}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
        onClickCapture={onClickCapture}
      >
        <g>
          {topology.edges.map((edge) => (
            <MirrorEdge key={edge.id} edge={edge} onOpen={openMirror} />
          ))}
        </g>
        <g>
          {topology.nodes.map((node) => (
            <ClusterNode key={node.id} node={node} />
          ))}
        </g>
        <g>
          {topology.edges.map((edge) => (
            <MirrorEdgeLabel key={edge.id} edge={edge} />
          ))}
        </g>
      </svg>
      <ZoomControls onZoomIn={() => zoomBy(ZOOM_STEP)} onZoomOut={() => zoomBy(1 / ZOOM_STEP)} onFit={() => setView(null)} />
    </div>
  )
}

const CONTROL_CLASS =
  'flex h-7 w-7 items-center justify-center border-slate-300 bg-white text-slate-700 hover:bg-slate-100 focus-visible:relative focus-visible:z-10 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700'

function ZoomControls({ onZoomIn, onZoomOut, onFit }: { onZoomIn: () => void; onZoomOut: () => void; onFit: () => void }) {
  return (
    <div className="absolute right-2 bottom-2 flex flex-col overflow-hidden rounded-md border border-slate-300 shadow-sm dark:border-slate-600">
      <button type="button" aria-label="Zoom In" title="Zoom in" onClick={onZoomIn} className={`${CONTROL_CLASS} border-b`}>
        <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="2">
          <path d="M8 3v10M3 8h10" />
        </svg>
      </button>
      <button type="button" aria-label="Zoom Out" title="Zoom out" onClick={onZoomOut} className={`${CONTROL_CLASS} border-b`}>
        <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="2">
          <path d="M3 8h10" />
        </svg>
      </button>
      <button type="button" aria-label="Fit View" title="Fit the whole topology" onClick={onFit} className={CONTROL_CLASS}>
        <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="1.75">
          <path d="M2.5 6V2.5H6M10 2.5h3.5V6M13.5 10v3.5H10M6 13.5H2.5V10" />
        </svg>
      </button>
    </div>
  )
}
