'use client'

import { Handle, Position, type Node, type NodeProps } from '@xyflow/react'
import Link from 'next/link'
import type { TopologyNode } from '@/lib/graph/topology'

export type ClusterNodeType = Node<{ node: TopologyNode }, 'cluster'>

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
 * A cluster box: a link to its page (so Tab reaches it and Enter opens it), its kind and brokers alive/total.
 * The handles are invisible anchors React Flow needs to accept edges; the edges draw their own paths.
 */
export function ClusterNode({ data }: NodeProps<ClusterNodeType>) {
  const { node } = data
  const health = brokerHealth(node)
  return (
    <>
      <Handle type="target" position={Position.Left} isConnectable={false} className="!pointer-events-none !opacity-0" />
      <Link
        href={`/clusters/${encodeURIComponent(node.cluster)}`}
        className={`nodrag nopan flex h-full w-full flex-col justify-center rounded-lg border bg-white px-3 py-2 text-left shadow-sm hover:border-indigo-400 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-slate-900 dark:hover:border-indigo-400 ${
          health.tone === 'down' ? 'border-red-300 dark:border-red-800' : 'border-slate-300 dark:border-slate-700'
        }`}
        style={{ width: node.width, height: node.height }}
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
      <Handle type="source" position={Position.Right} isConnectable={false} className="!pointer-events-none !opacity-0" />
    </>
  )
}
