import Link from 'next/link'
import { memo } from 'react'
import { LABEL_WIDTH, type TopologyEdge } from '@/lib/graph/topology'
import { STATE_STYLE, TONE_STYLE } from '@/lib/ui/state-style'
import { mirrorLagText } from '@/lib/ui/lag-text'
import { RPO_STATUS_STYLE } from '@/lib/ui/status-style'

function edgeColor(edge: TopologyEdge): string {
  return TONE_STYLE[edge.worstState === null ? 'neutral' : STATE_STYLE[edge.worstState].tone].color
}

/**
 * A mirror's curve and arrowhead as laid out by buildTopology, coloured by its worst partition state and
 * dashed unless every partition mirrors (so state does not rest on colour alone). A wide invisible stroke
 * takes the clicks, which open the mirror; its label (MirrorEdgeLabel) is the same as a link, for the keyboard.
 */
export const MirrorEdge = memo(function MirrorEdge({ edge, onOpen }: { edge: TopologyEdge; onOpen: (mirror: string) => void }) {
  const color = edgeColor(edge)
  const healthy = edge.worstState === 'MIRRORING'
  return (
    <g data-topology-edge={edge.mirror}>
      <path d={edge.path} fill="none" style={{ stroke: color, strokeWidth: edge.worstState === 'FAILED' ? 3 : 2, strokeDasharray: healthy ? undefined : '7 4' }} />
      <polygon points={edge.arrow} style={{ fill: color }} />
      <path d={edge.path} fill="none" stroke="transparent" strokeWidth={18} className="cursor-pointer" onClick={() => onOpen(edge.mirror)} />
    </g>
  )
}, (previous, next) => previous.onOpen === next.onOpen && sameEdge(previous.edge, next.edge))

/**
 * A mirror's label box, centred where the layout put it: a link to the mirror's page with state glyph, total offset
 * lag and max time lag, and its RPO status on a line of its own when it has an objective (the layout gives that
 * label the height of a third line), so the badge never squeezes the lag into an ellipsis.
 */
export const MirrorEdgeLabel = memo(function MirrorEdgeLabel({ edge }: { edge: TopologyEdge }) {
  const style = edge.worstState === null ? null : STATE_STYLE[edge.worstState]
  const color = edgeColor(edge)
  const healthy = edge.worstState === 'MIRRORING'
  const lag = mirrorLagText(edge)
  const rpo = edge.rpoStatus === null ? null : RPO_STATUS_STYLE[edge.rpoStatus]
  return (
    <foreignObject x={edge.label.x - LABEL_WIDTH / 2} y={edge.label.y - edge.labelHeight / 2} width={LABEL_WIDTH} height={edge.labelHeight} overflow="visible">
      <div className="flex h-full items-center">
        <Link prefetch={false}
          href={`/mirrors/${encodeURIComponent(edge.mirror)}`}
          draggable={false}
          className="flex w-full flex-col justify-center rounded-md border bg-white px-2 py-1 text-xs shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-slate-900 dark:hover:bg-slate-800"
          style={{ borderColor: color }}
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
          {rpo !== null && (
            <span data-rpo-status={edge.rpoStatus} className={`mt-0.5 self-start rounded px-1 text-[10px] leading-4 font-medium whitespace-nowrap ring-1 ring-inset ${TONE_STYLE[rpo.tone].badge}`}>
              <span aria-hidden>{rpo.icon} </span>
              {rpo.label}
            </span>
          )}
        </Link>
      </div>
    </foreignObject>
  )
}, (previous, next) => sameEdge(previous.edge, next.edge))

/** The overview relabels the graph every second with fresh objects: an edge redraws only when what it shows changed. */
function sameEdge(a: TopologyEdge, b: TopologyEdge): boolean {
  return (
    a.mirror === b.mirror &&
    a.source === b.source &&
    a.target === b.target &&
    a.worstState === b.worstState &&
    a.partitions === b.partitions &&
    a.totalOffsetLag === b.totalOffsetLag &&
    a.maxTimeLagMs === b.maxTimeLagMs &&
    a.lagKnown === b.lagKnown &&
    a.lagAsOf === b.lagAsOf &&
    a.rpoStatus === b.rpoStatus &&
    a.partitionsByState.STOPPED === b.partitionsByState.STOPPED &&
    a.partitionsByState.STOPPING === b.partitionsByState.STOPPING &&
    a.partitionsByState.FAILED === b.partitionsByState.FAILED &&
    a.path === b.path &&
    a.arrow === b.arrow &&
    a.label.x === b.label.x &&
    a.label.y === b.label.y &&
    a.labelHeight === b.labelHeight
  )
}
