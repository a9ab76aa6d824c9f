'use client'

import { Controls, ReactFlow, type EdgeTypes, type NodeTypes } from '@xyflow/react'
import { useRouter } from 'next/navigation'
import { useMemo } from 'react'
import type { Topology } from '@/lib/graph/topology'
import { ClusterNode, type ClusterNodeType } from './cluster-node'
import { MirrorEdge, type MirrorEdgeType } from './mirror-edge'

const nodeTypes: NodeTypes = { cluster: ClusterNode }
const edgeTypes: EdgeTypes = { mirror: MirrorEdge }
const FIT_VIEW = { padding: 0.08, maxZoom: 1 }

/**
 * The topology as React Flow draws it: positions, sizes and paths all come from buildTopology, so nothing is
 * measured or dragged. Zoom is by the buttons or pinch, never the mouse wheel (the page must keep scrolling).
 * Nodes and labels are links, so the graph is reachable by Tab; React Flow's own focus is off to avoid two stops.
 */
export function TopologyGraph({ topology }: { topology: Topology }) {
  const router = useRouter()
  const nodes = useMemo<ClusterNodeType[]>(
    () =>
      topology.nodes.map((node) => ({
        id: node.id,
        type: 'cluster',
        position: node.position,
        width: node.width,
        height: node.height,
        data: { node },
        draggable: false,
        selectable: false,
        connectable: false,
      })),
    [topology],
  )
  const edges = useMemo<MirrorEdgeType[]>(
    () => topology.edges.map((edge) => ({ id: edge.id, type: 'mirror', source: edge.source, target: edge.target, data: { edge }, selectable: false, focusable: false })),
    [topology],
  )
  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      fitView
      fitViewOptions={FIT_VIEW}
      minZoom={0.15}
      maxZoom={1.5}
      nodesDraggable={false}
      nodesConnectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      elementsSelectable={false}
      zoomOnScroll={false}
      zoomOnDoubleClick={false}
      preventScrolling={false}
      panOnScroll={false}
      onEdgeClick={(_event, edge) => router.push(`/mirrors/${encodeURIComponent(edge.id)}`)}
      proOptions={{ hideAttribution: true }}
      className="!bg-transparent [--xy-controls-button-background-color-hover:#f1f5f9] [--xy-controls-button-background-color:#fff] [--xy-controls-button-border-color:#cbd5e1] [--xy-controls-button-color:#334155] dark:[--xy-controls-button-background-color-hover:#334155] dark:[--xy-controls-button-background-color:#1e293b] dark:[--xy-controls-button-border-color:#475569] dark:[--xy-controls-button-color:#e2e8f0]"
    >
      {/* Phones zoom by pinching; the buttons would cover the graph there. */}
      <Controls showInteractive={false} position="bottom-right" className="max-sm:!hidden" />
    </ReactFlow>
  )
}
