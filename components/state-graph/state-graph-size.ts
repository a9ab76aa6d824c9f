/**
 * The state graph's drawing size, apart from the React Flow code so that the placeholder shown while that
 * code loads (lazy-state-graph.tsx) takes the same room and nothing below it jumps. The layout's size is
 * written out rather than laid out here: building the graph for two numbers cost the partition page ~40 ms of
 * a phone's CPU while it hydrated; state-graph-size.test.ts checks them against buildStateGraph().
 */
export const LAYOUT_WIDTH = 800
export const LAYOUT_HEIGHT = 644
/** Room round the layout for the detour lanes on the left and the "now" tag above a node. */
export const PAD = { left: 36, top: 30, right: 16, bottom: 16 }
export const CONTENT_WIDTH = LAYOUT_WIDTH + PAD.left + PAD.right
export const CONTENT_HEIGHT = LAYOUT_HEIGHT + PAD.top + PAD.bottom
/** Below this the labels stop being readable: the box scrolls sideways instead (phones). */
export const MIN_ZOOM = 0.72
