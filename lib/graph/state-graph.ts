/**
 * The partition state graph, derived from the tables in lib/mirror/states.ts so that the diagram
 * cannot drift from the engine: nodes are the states, edges are the valid transitions
 * (VALID_PREVIOUS_STATES, re-entry excluded), labels are the events of EVENT_TABLE that lead along them.
 *
 * Layout (deterministic, no layout library): FAILED, reachable from every state, gets a column of its
 * own on the right. The other states are layered top to bottom by the longest path from UNKNOWN after
 * removing the edges that point back up (found by a depth-first search in the table's state order).
 * Within a layer, states are ordered by the mean position of their predecessors, ties by state order.
 */
import { EVENT_METADATA, STATE_METADATA } from '../mirror/state-metadata'
import { MIRROR_EVENT_TYPES, MIRROR_PARTITION_STATES, possibleTargets, rulesFor, VALID_PREVIOUS_STATES, type MirrorEventType, type MirrorPartitionState } from '../mirror/states'

export interface StateGraphNode {
  readonly id: MirrorPartitionState
  readonly label: string
  readonly description: string
  /** The state's name in KIP-1279 as voted, when it is not ours (STATE_METADATA's kipName); null otherwise. */
  readonly kipName: string | null
  readonly terminal: boolean
  readonly attention: boolean
  /** Row (0 = top); FAILED's row is the middle one. */
  readonly layer: number
  /** Centre of the node. */
  readonly x: number
  readonly y: number
}

/**
 * - forward: down the main flow; back: returns up it (resume, fencing done, failback);
 * - failure: into FAILED; recovery: out of FAILED.
 */
export type StateGraphEdgeKind = 'forward' | 'back' | 'failure' | 'recovery'

export interface StateGraphEdge {
  readonly id: string
  readonly from: MirrorPartitionState
  readonly to: MirrorPartitionState
  /** Events that can cause this transition, in the table's event order. */
  readonly events: readonly MirrorEventType[]
  readonly label: string
  readonly kind: StateGraphEdgeKind
}

export interface StateGraph {
  readonly nodes: readonly StateGraphNode[]
  readonly edges: readonly StateGraphEdge[]
  readonly width: number
  readonly height: number
}

export interface StateGraphLayout {
  readonly nodeWidth: number
  readonly nodeHeight: number
  readonly columnGap: number
  readonly rowGap: number
}

export const DEFAULT_STATE_GRAPH_LAYOUT: StateGraphLayout = { nodeWidth: 170, nodeHeight: 44, columnGap: 40, rowGap: 56 }

const FAILED: MirrorPartitionState = 'FAILED'
const ROOT: MirrorPartitionState = 'UNKNOWN'

/** Every valid transition between two different states, in state order. */
export function validTransitions(): readonly (readonly [MirrorPartitionState, MirrorPartitionState])[] {
  const pairs: [MirrorPartitionState, MirrorPartitionState][] = []
  for (const from of MIRROR_PARTITION_STATES) {
    for (const to of MIRROR_PARTITION_STATES) {
      if (from !== to && (VALID_PREVIOUS_STATES[to] as readonly MirrorPartitionState[]).includes(from)) pairs.push([from, to])
    }
  }
  return pairs
}

/** Events whose rule in `from` can lead to `to`. */
export function eventsBetween(from: MirrorPartitionState, to: MirrorPartitionState): MirrorEventType[] {
  return MIRROR_EVENT_TYPES.filter((type) => rulesFor(from, type).some((rule) => possibleTargets(from, rule).includes(to)))
}

export function buildStateGraph(layout: StateGraphLayout = DEFAULT_STATE_GRAPH_LAYOUT): StateGraph {
  const transitions = validTransitions()
  const core = MIRROR_PARTITION_STATES.filter((state) => state !== FAILED)
  const coreEdges = transitions.filter(([from, to]) => from !== FAILED && to !== FAILED)
  const backEdges = findBackEdges(core, coreEdges)
  const forwardEdges = coreEdges.filter((edge) => !backEdges.has(edgeId(edge[0], edge[1])))
  const layers = longestPathLayers(core, forwardEdges)
  const layerCount = Math.max(...layers.values()) + 1

  // Horizontal position in columns, 0 = under the root; may be negative or half-integral until shifted.
  const orderInLayer = new Map<MirrorPartitionState, number>()
  for (let layer = 0; layer < layerCount; layer++) {
    const members = core.filter((state) => layers.get(state) === layer)
    const barycenter = (state: MirrorPartitionState): number => {
      const predecessors = forwardEdges.filter(([, to]) => to === state).map(([from]) => orderInLayer.get(from) ?? 0)
      return predecessors.length === 0 ? 0 : predecessors.reduce((sum, value) => sum + value, 0) / predecessors.length
    }
    const sorted = [...members].sort((a, b) => barycenter(a) - barycenter(b) || core.indexOf(a) - core.indexOf(b))
    const only = sorted.length === 1 ? sorted[0] : undefined
    if (only !== undefined) {
      // A lone state sits under its predecessors (PAUSED under PAUSING), snapped to the column grid.
      orderInLayer.set(only, Math.round(barycenter(only)))
    } else {
      sorted.forEach((state, index) => orderInLayer.set(state, index - (sorted.length - 1) / 2))
    }
  }

  const orders = [...orderInLayer.values()]
  const minOrder = Math.min(...orders)
  const columns = Math.max(...orders) - minOrder + 1
  const pitchX = layout.nodeWidth + layout.columnGap
  const pitchY = layout.nodeHeight + layout.rowGap
  const coreWidth = columns * layout.nodeWidth + (columns - 1) * layout.columnGap
  const failedLayer = Math.floor((layerCount - 1) / 2)

  const nodes: StateGraphNode[] = MIRROR_PARTITION_STATES.map((state) => {
    const layer = state === FAILED ? failedLayer : (layers.get(state) ?? 0)
    const x =
      state === FAILED
        ? coreWidth + layout.columnGap + layout.nodeWidth / 2
        : layout.nodeWidth / 2 + ((orderInLayer.get(state) ?? 0) - minOrder) * pitchX
    const metadata = STATE_METADATA[state]
    return {
      id: state,
      label: metadata.label,
      description: metadata.description,
      kipName: metadata.kipName === state ? null : metadata.kipName,
      terminal: metadata.terminal,
      attention: metadata.attention,
      layer,
      x,
      y: layout.nodeHeight / 2 + layer * pitchY,
    }
  })

  const edges: StateGraphEdge[] = transitions.map(([from, to]) => {
    const events = eventsBetween(from, to)
    const id = edgeId(from, to)
    const kind: StateGraphEdgeKind =
      to === FAILED ? 'failure' : from === FAILED ? 'recovery' : backEdges.has(id) ? 'back' : 'forward'
    return { id, from, to, events, label: events.map((type) => EVENT_METADATA[type].label).join(' / '), kind }
  })

  return {
    nodes,
    edges,
    width: coreWidth + layout.columnGap + layout.nodeWidth,
    height: layerCount * layout.nodeHeight + (layerCount - 1) * layout.rowGap,
  }
}

function edgeId(from: MirrorPartitionState, to: MirrorPartitionState): string {
  return `${from}->${to}`
}

/** Edges to a state still on the depth-first path from the root: the ones that close a cycle. */
function findBackEdges(
  states: readonly MirrorPartitionState[],
  edges: readonly (readonly [MirrorPartitionState, MirrorPartitionState])[],
): Set<string> {
  const back = new Set<string>()
  const visited = new Set<MirrorPartitionState>()
  const onPath = new Set<MirrorPartitionState>()
  const visit = (state: MirrorPartitionState): void => {
    visited.add(state)
    onPath.add(state)
    for (const [from, to] of edges) {
      if (from !== state) continue
      if (onPath.has(to)) back.add(edgeId(from, to))
      else if (!visited.has(to)) visit(to)
    }
    onPath.delete(state)
  }
  visit(ROOT)
  for (const state of states) if (!visited.has(state)) visit(state)
  return back
}

function longestPathLayers(
  states: readonly MirrorPartitionState[],
  forwardEdges: readonly (readonly [MirrorPartitionState, MirrorPartitionState])[],
): Map<MirrorPartitionState, number> {
  const layers = new Map<MirrorPartitionState, number>(states.map((state) => [state, 0]))
  // The forward edges form a DAG over at most |states| nodes, so |states| relaxation rounds settle it.
  for (let round = 0; round < states.length; round++) {
    for (const [from, to] of forwardEdges) {
      const candidate = (layers.get(from) ?? 0) + 1
      if (candidate > (layers.get(to) ?? 0)) layers.set(to, candidate)
    }
  }
  return layers
}
