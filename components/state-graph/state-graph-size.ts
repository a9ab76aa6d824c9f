import { buildStateGraph } from '@/lib/graph/state-graph'

/**
 * The state graph's drawing size, apart from the React Flow code so that the placeholder shown while that
 * code loads (lazy-state-graph.tsx) takes the same room and nothing below it jumps.
 */
export const GRAPH = buildStateGraph()
/** Room round the layout for the detour lanes on the left and the "now" tag above a node. */
export const PAD = { left: 36, top: 30, right: 16, bottom: 16 }
export const CONTENT_WIDTH = GRAPH.width + PAD.left + PAD.right
export const CONTENT_HEIGHT = GRAPH.height + PAD.top + PAD.bottom
/** Below this the labels stop being readable: the box scrolls sideways instead (phones). */
export const MIN_ZOOM = 0.72
