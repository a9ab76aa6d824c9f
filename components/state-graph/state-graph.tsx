'use client'

import {
  EdgeLabelRenderer,
  Handle,
  Position,
  ReactFlow,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
} from '@xyflow/react'
// With this chunk, not in every page's stylesheet: the state graph is React Flow's only user (the overview's
// topology is plain SVG), and it loads after hydration (lazy-state-graph.tsx).
import '@xyflow/react/dist/style.css'
import { useEffect, useMemo, useRef, useState } from 'react'
import { buildStateGraph, DEFAULT_STATE_GRAPH_LAYOUT, type StateGraphEdge, type StateGraphNode } from '@/lib/graph/state-graph'
import { type MirrorPartitionState } from '@/lib/mirror/states'
import { EVENT_METADATA } from '@/lib/mirror/state-metadata'
import { routeStateGraph, type EdgeRoute } from '@/lib/ui/state-graph-routes'
import { STATE_STYLE, TONE_STYLE } from '@/lib/ui/state-style'
import { CONTENT_HEIGHT, CONTENT_WIDTH, MIN_ZOOM, PAD } from './state-graph-size'

/**
 * The partition state graph: every state and valid transition of the engine's table (lib/graph/state-graph.ts),
 * laid out and routed in lib/, drawn read-only with React Flow. The current state has a ring and a "now" tag;
 * the transitions this partition took are drawn bold over the rest, with how often; an edge's events show
 * while it is hovered or focused (Tab reaches every edge).
 */

const GRAPH = buildStateGraph()
const ROUTES = routeStateGraph(GRAPH)
const { nodeWidth, nodeHeight } = DEFAULT_STATE_GRAPH_LAYOUT

export interface StateGraphTransition {
  readonly from: MirrorPartitionState
  readonly to: MirrorPartitionState
}

interface StateNodeData extends Record<string, unknown> {
  readonly node: StateGraphNode
  readonly current: boolean
  readonly visited: boolean
}

interface RouteEdgeData extends Record<string, unknown> {
  readonly edge: StateGraphEdge
  readonly route: EdgeRoute
  readonly taken: number
  readonly active: boolean
}

type StateFlowNode = Node<StateNodeData, 'state'>
type RouteFlowEdge = Edge<RouteEdgeData, 'route'>

function StateNode({ data }: NodeProps<StateFlowNode>) {
  const { node, current, visited } = data
  const style = STATE_STYLE[node.id]
  const tone = TONE_STYLE[style.tone]
  return (
    <div
      data-state={node.id}
      data-current={current || undefined}
      data-visited={visited || undefined}
      title={node.kipName === null ? node.description : `${node.description} KIP-1279 calls this state ${node.kipName}.`}
      style={{ width: nodeWidth, height: nodeHeight, borderColor: visited || current ? tone.color : undefined }}
      className={`relative flex items-center gap-1.5 rounded-md border-2 bg-white px-2 text-left dark:bg-slate-900 ${
        visited || current ? 'border-solid' : 'border-dashed border-slate-300 dark:border-slate-600'
      } ${current ? 'ring-4 ring-indigo-500/60 ring-offset-2 ring-offset-white dark:ring-indigo-400/70 dark:ring-offset-slate-900' : ''}`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="!pointer-events-none !opacity-0" />
      <span aria-hidden className="w-4 shrink-0 text-center font-mono text-sm leading-none" style={{ color: tone.color }}>
        {style.icon}
      </span>
      <span className="min-w-0">
        <span className={`block text-[10.5px] font-semibold leading-tight tracking-tight ${visited || current ? 'text-slate-900 dark:text-slate-50' : 'text-slate-500 dark:text-slate-400'}`}>
          {/* Long names (ULE_LOG_TRUNCATION) wrap after an underscore rather than losing their end. */}
          {node.id.split('_').map((part, index, parts) => (
            <span key={part}>
              {part}
              {index < parts.length - 1 && (
                <>
                  _<wbr />
                </>
              )}
            </span>
          ))}
        </span>
        {/* The voted KIP's name beside ours, where they differ: the words of Apache Kafka's documentation. */}
        {node.kipName !== null && (
          <span data-kip-name={node.kipName} className="block truncate text-[9.5px] leading-tight text-slate-500 dark:text-slate-400">
            KIP: {node.kipName}
          </span>
        )}
      </span>
      {current && (
        <span className="absolute -top-3 right-2 rounded bg-indigo-600 px-1.5 py-px text-[10px] font-bold uppercase tracking-wide text-white dark:bg-indigo-500">
          now
        </span>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="!pointer-events-none !opacity-0" />
    </div>
  )
}

function RouteEdge({ data }: EdgeProps<RouteFlowEdge>) {
  if (data === undefined) return null
  const { edge, route, taken, active } = data
  const side = edge.kind === 'failure' || edge.kind === 'recovery'
  return (
    <>
      <path
        d={route.path}
        fill="none"
        data-taken={taken > 0 || undefined}
        strokeWidth={taken > 0 ? 3.25 : active ? 2 : 1.25}
        strokeDasharray={side && taken === 0 ? '4 3' : undefined}
        markerEnd={`url(#${taken > 0 ? 'state-graph-arrow-taken' : active ? 'state-graph-arrow-active' : 'state-graph-arrow'})`}
        className={
          taken > 0
            ? 'stroke-slate-800 dark:stroke-slate-100'
            : active
              ? 'stroke-indigo-600 dark:stroke-indigo-300'
              : 'stroke-slate-300 dark:stroke-slate-600'
        }
      />
      {/* A wide invisible stroke, so the thin edge is easy to hover. */}
      <path d={route.path} fill="none" stroke="transparent" strokeWidth={14} />
      {active && (
        <EdgeLabelRenderer>
          <div
            className="pointer-events-none absolute z-10 max-w-[15rem] rounded-md border border-slate-300 bg-white px-2 py-1 text-[11px] leading-snug text-slate-800 shadow-md dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
            style={{ transform: `translate(-50%, -120%) translate(${route.label.x}px, ${route.label.y}px)` }}
          >
            <span className="font-semibold">
              {edge.from} → {edge.to}
            </span>
            <span className="block text-slate-600 dark:text-slate-300">on {edgeEvents(edge)}</span>
            {taken > 0 && <span className="block font-medium">taken {taken}×</span>}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  )
}

const nodeTypes = { state: StateNode }
const edgeTypes = { route: RouteEdge }

function edgeEvents(edge: StateGraphEdge): string {
  return edge.events.map((type) => EVENT_METADATA[type].label).join(' · ') || 'no event'
}

export function StateGraph({ current, transitions }: { current: MirrorPartitionState | null; transitions: readonly StateGraphTransition[] }) {
  const [activeEdge, setActiveEdge] = useState<string | null>(null)
  const box = useRef<HTMLDivElement>(null)
  const [zoom, setZoom] = useState(0.85)
  useEffect(() => {
    const element = box.current
    if (element === null) return
    const fit = () => setZoom(Math.max(MIN_ZOOM, Math.min(1, element.clientWidth / CONTENT_WIDTH)))
    fit()
    const observer = new ResizeObserver(fit)
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  // Where the box scrolls sideways (phones), the current state starts in view.
  useEffect(() => {
    const element = box.current
    const node = GRAPH.nodes.find((entry) => entry.id === current)
    if (element === null || node === undefined || element.scrollWidth <= element.clientWidth) return
    element.scrollLeft = (node.x + PAD.left) * zoom - element.clientWidth / 2
  }, [current, zoom])

  const taken = useMemo(() => {
    const counts = new Map<string, number>()
    for (const { from, to } of transitions) counts.set(`${from}->${to}`, (counts.get(`${from}->${to}`) ?? 0) + 1)
    return counts
  }, [transitions])
  const visited = useMemo(() => new Set(transitions.flatMap(({ from, to }) => [from, to])), [transitions])

  const nodes = useMemo<StateFlowNode[]>(
    () =>
      GRAPH.nodes.map((node) => ({
        id: node.id,
        type: 'state',
        position: { x: node.x - nodeWidth / 2 + PAD.left, y: node.y - nodeHeight / 2 + PAD.top },
        width: nodeWidth,
        height: nodeHeight,
        draggable: false,
        selectable: false,
        focusable: false,
        data: { node, current: node.id === current, visited: visited.has(node.id) },
      })),
    [current, visited],
  )
  const edges = useMemo<RouteFlowEdge[]>(
    () =>
      GRAPH.edges.map((edge) => {
        const count = taken.get(edge.id) ?? 0
        return {
          id: edge.id,
          type: 'route',
          source: edge.from,
          target: edge.to,
          focusable: true,
          selectable: false,
          // Taken edges above the rest, the one with focus above all.
          zIndex: activeEdge === edge.id ? 3 : count > 0 ? 2 : 1,
          ariaLabel: `${edge.from} to ${edge.to}, on ${edgeEvents(edge)}${count > 0 ? `, taken ${count} ${count === 1 ? 'time' : 'times'}` : ''}`,
          domAttributes: {
            onFocus: () => setActiveEdge(edge.id),
            onBlur: () => setActiveEdge((active) => (active === edge.id ? null : active)),
          },
          data: { edge, route: shift(ROUTES.get(edge.id) as EdgeRoute), taken: count, active: activeEdge === edge.id },
        }
      }),
    [taken, activeEdge],
  )

  const takenCount = transitions.length
  return (
    <div>
      {/* Focusable itself, so the keyboard can scroll it sideways on a narrow screen even before the graph's edges
          (focusable in their own right) are drawn: axe's scrollable-region-focusable failed in that moment. */}
      <div
        ref={box}
        tabIndex={0}
        role="group"
        aria-label="State graph, scrolls sideways on a narrow screen"
        className="overflow-x-auto overscroll-x-contain rounded focus-visible:outline-2 focus-visible:outline-indigo-500"
      >
        <div
          role="figure"
          aria-label={`State graph: ${GRAPH.nodes.length} states and ${GRAPH.edges.length} transitions${current === null ? '' : `, current state ${current}`}, ${takenCount} transitions taken`}
          style={{ width: CONTENT_WIDTH * zoom, height: CONTENT_HEIGHT * zoom }}
          className="state-graph"
        >
          <svg width="0" height="0" className="absolute" aria-hidden>
            <defs>
              <Arrow id="state-graph-arrow" className="fill-slate-300 dark:fill-slate-600" />
              <Arrow id="state-graph-arrow-active" className="fill-indigo-600 dark:fill-indigo-300" />
              <Arrow id="state-graph-arrow-taken" className="fill-slate-800 dark:fill-slate-100" />
            </defs>
          </svg>
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            viewport={{ x: 0, y: 0, zoom }}
            minZoom={zoom}
            maxZoom={zoom}
            nodesDraggable={false}
            nodesConnectable={false}
            nodesFocusable={false}
            elementsSelectable={false}
            edgesFocusable
            panOnDrag={false}
            panOnScroll={false}
            zoomOnScroll={false}
            zoomOnPinch={false}
            zoomOnDoubleClick={false}
            preventScrolling={false}
            disableKeyboardA11y
            onEdgeClick={(_, edge) => setActiveEdge(edge.id)}
            onEdgeMouseEnter={(_, edge) => setActiveEdge(edge.id)}
            onEdgeMouseLeave={(_, edge) => setActiveEdge((active) => (active === edge.id ? null : active))}
            ariaLabelConfig={{ 'edge.a11yDescription.default': 'A valid transition; its events show while it has focus.' }}
            proOptions={{ hideAttribution: true }}
          />
        </div>
      </div>
      <Legend current={current} takenCount={takenCount} />
      <StateLegend />
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer rounded text-slate-600 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:text-white">
          Every transition and its events ({GRAPH.edges.length})
        </summary>
        <ul className="mt-2 grid gap-x-6 gap-y-1 text-xs sm:grid-cols-2">
          {GRAPH.edges.map((edge) => (
            <li key={edge.id} className={taken.has(edge.id) ? 'font-semibold text-slate-900 dark:text-white' : 'text-slate-600 dark:text-slate-300'}>
              <span className="font-mono">
                {edge.from} → {edge.to}
              </span>
              : {edgeEvents(edge)}
              {taken.has(edge.id) && ` — taken ${taken.get(edge.id)}×`}
            </li>
          ))}
        </ul>
      </details>
    </div>
  )
}

function shift(route: EdgeRoute): EdgeRoute {
  // The layout's origin sits PAD inside the drawing: move the path with it.
  const path = route.path.replace(/(-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)/g, (_, x: string, y: string) => `${Number(x) + PAD.left} ${Number(y) + PAD.top}`)
  return { ...route, path, label: { x: route.label.x + PAD.left, y: route.label.y + PAD.top } }
}

function Arrow({ id, className }: { id: string; className: string }) {
  return (
    <marker id={id} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
      <path d="M 0 0 L 10 5 L 0 10 z" className={className} />
    </marker>
  )
}

function Legend({ current, takenCount }: { current: MirrorPartitionState | null; takenCount: number }) {
  return (
    <ul className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-300">
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block h-3 w-5 rounded-sm border-2 border-slate-500 ring-2 ring-indigo-500/60 ring-offset-1 dark:ring-offset-slate-900" />
        now: <strong className="font-semibold text-slate-900 dark:text-white">{current ?? 'unknown'}</strong>
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block h-[3px] w-6 bg-slate-800 dark:bg-slate-100" />
        path taken ({takenCount} {takenCount === 1 ? 'transition' : 'transitions'})
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block w-6 border-t border-slate-400" />
        valid transition
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block w-6 border-t border-dashed border-slate-400" />
        into or out of FAILED
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block h-3 w-5 rounded-sm border-2 border-dashed border-slate-300 dark:border-slate-600" />
        never visited
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="font-mono text-[10px] text-slate-500 dark:text-slate-400">
          KIP:
        </span>
        the state&apos;s name in KIP-1279 as voted, where it differs
      </li>
    </ul>
  )
}

/** Every state, what it means, and its name in the voted KIP where ours (the API's) differs. */
function StateLegend() {
  return (
    <details className="mt-2 text-sm">
      <summary className="cursor-pointer rounded text-slate-600 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-300 dark:hover:text-white">
        What each state means, with its KIP-1279 name ({GRAPH.nodes.length})
      </summary>
      <dl aria-label="States" className="mt-2 grid gap-x-4 gap-y-1.5 text-xs sm:grid-cols-[minmax(10rem,auto)_1fr]">
        {GRAPH.nodes.map((node) => (
          <div key={node.id} data-legend-state={node.id} className="contents">
            <dt className="font-mono font-semibold text-slate-900 dark:text-slate-100">
              <span aria-hidden className="mr-1" style={{ color: TONE_STYLE[STATE_STYLE[node.id].tone].color }}>
                {STATE_STYLE[node.id].icon}
              </span>
              {node.id}
              {node.kipName !== null && <span className="block pl-4 font-normal text-slate-500 dark:text-slate-400">KIP-1279: {node.kipName}</span>}
            </dt>
            <dd className="text-slate-600 dark:text-slate-300">{node.description}</dd>
          </div>
        ))}
      </dl>
    </details>
  )
}
