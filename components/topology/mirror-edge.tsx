'use client'

import { BaseEdge, EdgeLabelRenderer, type Edge, type EdgeProps } from '@xyflow/react'
import Link from 'next/link'
import { LABEL_WIDTH, type TopologyEdge } from '@/lib/graph/topology'
import { STATE_STYLE, TONE_STYLE } from '@/lib/ui/state-style'
import { edgeLagText } from './edge-text'

export type MirrorEdgeType = Edge<{ edge: TopologyEdge }, 'mirror'>

/**
 * A mirror: the curve and arrowhead laid out by buildTopology, coloured by its worst partition state, dashed
 * unless every partition mirrors (so state does not rest on colour alone), and a label that links to the
 * mirror's page with the state glyph, total offset lag and max time lag.
 */
export function MirrorEdge({ data }: EdgeProps<MirrorEdgeType>) {
  if (data === undefined) return null
  const { edge } = data
  const style = edge.worstState === null ? null : STATE_STYLE[edge.worstState]
  const color = TONE_STYLE[style?.tone ?? 'neutral'].color
  const healthy = edge.worstState === 'MIRRORING'
  const lag = edgeLagText(edge)
  return (
    <>
      <BaseEdge
        path={edge.path}
        interactionWidth={18}
        style={{ stroke: color, strokeWidth: edge.worstState === 'FAILED' ? 3 : 2, strokeDasharray: healthy ? undefined : '7 4' }}
      />
      <polygon points={edge.arrow} style={{ fill: color }} />
      <EdgeLabelRenderer>
        <Link
          href={`/mirrors/${encodeURIComponent(edge.mirror)}`}
          className="nodrag nopan absolute flex flex-col justify-center rounded-md border bg-white px-2 py-1 text-xs shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-slate-900 dark:hover:bg-slate-800"
          style={{
            transform: `translate(-50%, -50%) translate(${edge.label.x}px, ${edge.label.y}px)`,
            width: LABEL_WIDTH,
            borderColor: color,
            pointerEvents: 'all',
          }}
        >
          <span className="flex items-center gap-1 truncate font-semibold text-slate-900 dark:text-white">
            <span aria-hidden className="font-mono" style={{ color }}>
              {style?.icon ?? '○'}
            </span>
            <span className="truncate" title={edge.mirror}>
              <span className="sr-only">Mirror </span>
              {edge.mirror}
              <span className="sr-only">{`, ${edge.source} to ${edge.target}: ${style?.label ?? 'no partitions yet'},`}</span>
            </span>
            {!healthy && style !== null && <span className="ml-auto shrink-0 text-[10px] font-medium text-slate-600 dark:text-slate-300">{style.short}</span>}
          </span>
          <span className="truncate text-slate-600 tabular-nums dark:text-slate-300" title={lag.exact}>
            {lag.shown}
          </span>
        </Link>
      </EdgeLabelRenderer>
    </>
  )
}
