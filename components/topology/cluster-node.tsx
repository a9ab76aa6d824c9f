import Link from 'next/link'
import { memo } from 'react'
import type { TopologyNode } from '@/lib/graph/topology'

/** Which look a cluster's broker line gets: all alive, some stopped, none reachable. */
export function brokerHealth(node: Pick<TopologyNode, 'status' | 'brokersAlive' | 'brokersTotal'>): { glyph: string; text: string; tone: 'ok' | 'warn' | 'down' } {
  if (node.status === 'missing') return { glyph: '?', text: 'not in the cluster list', tone: 'down' }
  if (node.status === 'unavailable') return { glyph: '✕', text: 'unavailable', tone: 'down' }
  const text = `${node.brokersAlive}/${node.brokersTotal} brokers`
  if (node.brokersAlive === 0) return { glyph: '✕', text, tone: 'down' }
  if (node.brokersAlive < node.brokersTotal) return { glyph: '▲', text, tone: 'warn' }
  return { glyph: '●', text, tone: 'ok' }
}

const HEALTH_CLASS = {
  ok: 'text-slate-600 dark:text-slate-300',
  warn: 'font-medium text-amber-800 dark:text-amber-300',
  down: 'font-medium text-red-700 dark:text-red-300',
} as const

/**
 * A cluster box of the topology SVG: HTML in a foreignObject at the layout's position, a link to its page (so
 * Tab reaches it and Enter opens it) with its kind and brokers alive/total. Overflow is visible so the focus
 * ring and the shadow are not clipped at the box's edge.
 */
export const ClusterNode = memo(function ClusterNode({ node }: { node: TopologyNode }) {
  const health = brokerHealth(node)
  return (
    <foreignObject data-topology-node={node.cluster} x={node.position.x} y={node.position.y} width={node.width} height={node.height} overflow="visible">
      <Link prefetch={false}
        href={`/clusters/${encodeURIComponent(node.cluster)}`}
        draggable={false}
        className={`flex h-full w-full flex-col justify-center rounded-lg border bg-white px-3 py-2 text-left shadow-sm hover:border-indigo-400 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-slate-900 dark:hover:border-indigo-400 ${
          health.tone === 'down' ? 'border-red-300 dark:border-red-800' : 'border-slate-300 dark:border-slate-700'
        }`}
      >
        <span className="truncate text-sm font-semibold text-slate-900 dark:text-white" title={node.cluster}>
          <span className="sr-only">Cluster </span>
          {node.cluster}
          <span className="sr-only">:</span>
        </span>
        <span className="mt-0.5 flex items-center gap-1.5 text-xs">
          <span className="text-slate-500 dark:text-slate-400">
            {node.kind ?? 'unknown'}
            <span className="sr-only">,</span>
          </span>
          <span aria-hidden className="text-slate-300 dark:text-slate-600">·</span>
          <span className={HEALTH_CLASS[health.tone]}>
            <span aria-hidden className="mr-0.5">
              {health.glyph}
            </span>
            {health.text}
          </span>
        </span>
      </Link>
    </foreignObject>
  )
}, sameNode)

/** The overview relabels the graph every second with fresh objects: a box redraws only when what it shows changed. */
function sameNode(previous: { node: TopologyNode }, next: { node: TopologyNode }): boolean {
  const a = previous.node
  const b = next.node
  return (
    a.cluster === b.cluster &&
    a.kind === b.kind &&
    a.status === b.status &&
    a.brokersAlive === b.brokersAlive &&
    a.brokersTotal === b.brokersTotal &&
    a.position.x === b.position.x &&
    a.position.y === b.position.y &&
    a.width === b.width &&
    a.height === b.height
  )
}
