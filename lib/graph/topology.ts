/**
 * The overview's topology picture as plain data (STYLE.md B36): clusters as boxes, mirrors as directed edges
 * from source to destination, laid out left to right by dagre. React Flow only draws what this returns.
 *
 * Every edge carries a label box that dagre places as a node of its own between the two ranks, so a failback
 * pair A⇄B becomes two curves with two labels one above the other instead of two lines on top of each
 * other, a chain A→B→C reads left to right, and a mirror that skips a rank is routed around the cluster in
 * between. Groups of clusters no mirror joins to each other are laid out apart and packed in rows
 * (topology-packing.ts); clusters no mirror touches sit in rows under them rather than in one tall column.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre'
import type { MirrorPartitionState } from '../mirror/states'
import { worstState } from '../ui/state-style'
import { connectedGroups, packInRows } from './topology-packing'

export interface TopologyClusterInput {
  readonly name: string
  readonly kind: 'embedded' | 'kafka'
  readonly brokers: ReadonlyArray<{ readonly alive: boolean }>
  readonly status: 'ok' | 'unavailable'
}

export interface TopologyMirrorInput {
  readonly name: string
  readonly sourceCluster: string
  readonly destinationCluster: string
  readonly partitionsByState: Partial<Record<MirrorPartitionState, number>>
  readonly totalOffsetLag: number | null
  readonly maxTimeLagMs: number | null
  /** false: the figures are lower bounds of a silent source (lib/mirror/partition-lag.ts). */
  readonly lagKnown?: boolean
  readonly lagAsOf?: number | null
  /** Its recovery point against its RPO objective (the summary's `objectives`); null or absent without one. */
  readonly objectives?: { readonly status: RpoStatus } | null
}

/** unknown: a source is silent, never read as met. */
export type RpoStatus = 'met' | 'breached' | 'unknown'

export interface Point {
  readonly x: number
  readonly y: number
}

export interface TopologyNode {
  readonly id: string
  readonly cluster: string
  /** null: a mirror names this cluster but the cluster list does not (removed, or not yet listed). */
  readonly kind: TopologyClusterInput['kind'] | null
  readonly status: TopologyClusterInput['status'] | 'missing'
  readonly brokersAlive: number
  readonly brokersTotal: number
  /** Top-left corner, as React Flow positions nodes. */
  readonly position: Point
  readonly width: number
  readonly height: number
  readonly mirrorsOut: number
  readonly mirrorsIn: number
}

export interface TopologyEdge {
  readonly id: string
  readonly mirror: string
  readonly source: string
  readonly target: string
  /** The worst state among the mirror's partitions (its colour); null for a mirror with no partitions yet. */
  readonly worstState: MirrorPartitionState | null
  readonly partitions: number
  readonly partitionsByState: Partial<Record<MirrorPartitionState, number>>
  readonly totalOffsetLag: number | null
  readonly maxTimeLagMs: number | null
  readonly lagKnown: boolean
  readonly lagAsOf: number | null
  /** Against its RPO objective; null without one. */
  readonly rpoStatus: RpoStatus | null
  /** True when a mirror runs the other way between the same clusters (a failback pair). */
  readonly paired: boolean
  /** SVG path of the curve, ending where the arrowhead starts. */
  readonly path: string
  /** Arrowhead triangle at the destination, as SVG polygon points. */
  readonly arrow: string
  /** Centre of the label box. */
  readonly label: Point
  /** The label box's height (labelHeight): taller for a mirror with an objective, whose RPO status has a line of its own. */
  readonly labelHeight: number
}

export interface Topology {
  readonly nodes: readonly TopologyNode[]
  readonly edges: readonly TopologyEdge[]
  readonly width: number
  readonly height: number
}

export const NODE_WIDTH = 188
export const NODE_HEIGHT = 68
export const LABEL_WIDTH = 168
export const LABEL_HEIGHT = 46
/** Name, lag, and the RPO status on a third line: beside the lag it squeezed "lag 19 · 4.1 s" into "lag 19…". */
export const LABEL_HEIGHT_WITH_OBJECTIVE = 64
const ARROW_LENGTH = 10
const ARROW_HALF_WIDTH = 5
const MARGIN = 16
const ISOLATED_GAP = 24
const ISOLATED_PER_ROW = 4
/** Between two groups of clusters packed side by side or in rows. */
const GROUP_GAP = 40
/** The overview's panel is about twice as wide as tall. */
const GROUP_ASPECT = 2
/**
 * Past this many connected clusters dagre's search for a better ordering (several extra sweeps) costs more
 * than it buys: ~1 s at 50 clusters and 100 mirrors against ~0.3 s without, and such a graph is read through
 * zoom and the mirror list anyway.
 */
const THOROUGH_ORDERING_UP_TO = 20

export function buildTopology(clusters: readonly TopologyClusterInput[], mirrors: readonly TopologyMirrorInput[]): Topology {
  const byName = new Map(clusters.map((cluster) => [cluster.name, cluster]))
  const names = clusters.map((cluster) => cluster.name)
  for (const mirror of mirrors) {
    for (const name of [mirror.sourceCluster, mirror.destinationCluster]) {
      if (!names.includes(name)) names.push(name)
    }
  }
  const connected = new Set(mirrors.flatMap((mirror) => [mirror.sourceCluster, mirror.destinationCluster]))
  const directions = new Set(mirrors.map((mirror) => `${mirror.sourceCluster}\u0000${mirror.destinationCluster}`))
  const sortedMirrors = [...mirrors].sort((a, b) => a.name.localeCompare(b.name))

  // Each group of clusters joined by mirrors gets its own dagre layout; the groups are then packed in rows.
  const groups = connectedGroups(
    names.filter((name) => connected.has(name)),
    sortedMirrors.map((mirror) => [mirror.sourceCluster, mirror.destinationCluster] as const),
  )
  const groupOf = new Map(groups.flatMap((group, index) => group.map((name) => [name, index] as const)))
  const layouts = groups.map((group) =>
    layOutGroup(
      group,
      sortedMirrors.filter((mirror) => groupOf.get(mirror.sourceCluster) === groupOf.get(group[0]!)),
    ),
  )
  const packed = packInRows(layouts, GROUP_GAP, GROUP_ASPECT)
  let width = layouts.length > 0 ? packed.width + 2 * MARGIN : 0
  let height = layouts.length > 0 ? packed.height + 2 * MARGIN : 0

  const positions = new Map<string, Point>()
  const routes = new Map<string, { points: Point[]; label: Point }>()
  layouts.forEach((layout, index) => {
    const dx = MARGIN + packed.placements[index]!.x
    const dy = MARGIN + packed.placements[index]!.y
    for (const [name, position] of layout.positions) positions.set(name, { x: position.x + dx, y: position.y + dy })
    for (const [mirror, route] of layout.routes) {
      routes.set(mirror, { points: route.points.map(({ x, y }) => ({ x: x + dx, y: y + dy })), label: { x: route.label.x + dx, y: route.label.y + dy } })
    }
  })
  const isolated = names.filter((name) => !connected.has(name))
  if (isolated.length > 0) {
    const top = height === 0 ? MARGIN : height
    // As many to a row as the groups above are wide, at least ISOLATED_PER_ROW.
    const perRow = Math.max(ISOLATED_PER_ROW, Math.floor((width - 2 * MARGIN + ISOLATED_GAP) / (NODE_WIDTH + ISOLATED_GAP)))
    isolated.forEach((name, index) => {
      const column = index % perRow
      const row = Math.floor(index / perRow)
      positions.set(name, { x: MARGIN + column * (NODE_WIDTH + ISOLATED_GAP), y: top + row * (NODE_HEIGHT + ISOLATED_GAP) })
    })
    const rows = Math.ceil(isolated.length / perRow)
    width = Math.max(width, 2 * MARGIN + Math.min(isolated.length, perRow) * (NODE_WIDTH + ISOLATED_GAP) - ISOLATED_GAP)
    height = top + rows * (NODE_HEIGHT + ISOLATED_GAP) - ISOLATED_GAP + MARGIN
  }

  const nodes: TopologyNode[] = names.map((name) => {
    const cluster = byName.get(name)
    return {
      id: name,
      cluster: name,
      kind: cluster?.kind ?? null,
      status: cluster?.status ?? 'missing',
      brokersAlive: cluster?.brokers.filter((broker) => broker.alive).length ?? 0,
      brokersTotal: cluster?.brokers.length ?? 0,
      position: positions.get(name)!,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      mirrorsOut: mirrors.filter((mirror) => mirror.sourceCluster === name).length,
      mirrorsIn: mirrors.filter((mirror) => mirror.destinationCluster === name).length,
    }
  })

  const edges: TopologyEdge[] = sortedMirrors.map((mirror) => {
    const route = routes.get(mirror.name)!
    const { path, arrow } = edgeGeometry(route.points)
    return {
      id: mirror.name,
      mirror: mirror.name,
      source: mirror.sourceCluster,
      target: mirror.destinationCluster,
      worstState: worstState(mirror.partitionsByState),
      ...edgeValues(mirror),
      paired: directions.has(`${mirror.destinationCluster}\u0000${mirror.sourceCluster}`),
      path,
      arrow,
      label: route.label,
      labelHeight: labelHeight(mirror),
    }
  })

  return { nodes, edges, width, height }
}

interface GroupLayout {
  readonly width: number
  readonly height: number
  /** Top-left corners, relative to the group. */
  readonly positions: ReadonlyMap<string, Point>
  readonly routes: ReadonlyMap<string, { readonly points: Point[]; readonly label: Point }>
}

/** One group of clusters and the mirrors between them, left to right by dagre, from (0, 0). */
function layOutGroup(clusters: readonly string[], mirrors: readonly TopologyMirrorInput[]): GroupLayout {
  const graph = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true })
  graph.setGraph({ rankdir: 'LR', nodesep: 28, edgesep: 24, ranksep: 56, marginx: 0, marginy: 0 })
  graph.setDefaultEdgeLabel(() => ({}))
  for (const name of clusters) graph.setNode(name, { width: NODE_WIDTH, height: NODE_HEIGHT })
  for (const mirror of mirrors) {
    graph.setEdge(mirror.sourceCluster, mirror.destinationCluster, { width: LABEL_WIDTH, height: labelHeight(mirror), labelpos: 'c' }, mirror.name)
  }
  dagre.layout(graph, { disableOptimalOrderHeuristic: clusters.length > THOROUGH_ORDERING_UP_TO })
  const positions = new Map<string, Point>()
  for (const name of clusters) {
    const node = graph.node(name)
    positions.set(name, { x: (node.x ?? 0) - NODE_WIDTH / 2, y: (node.y ?? 0) - NODE_HEIGHT / 2 })
  }
  const routes = new Map<string, { points: Point[]; label: Point }>()
  for (const mirror of mirrors) {
    const laid = graph.edge({ v: mirror.sourceCluster, w: mirror.destinationCluster, name: mirror.name })
    const points = (laid.points ?? []).map(({ x, y }) => ({ x, y }))
    routes.set(mirror.name, { points, label: { x: laid.x ?? midpoint(points).x, y: laid.y ?? midpoint(points).y } })
  }
  const laidOut = graph.graph()
  return { width: laidOut.width ?? 0, height: laidOut.height ?? 0, positions, routes }
}

/** The height dagre keeps free for a mirror's label: a line more for its RPO status when it has an objective. */
export function labelHeight(mirror: Pick<TopologyMirrorInput, 'objectives'>): number {
  return mirror.objectives === null || mirror.objectives === undefined ? LABEL_HEIGHT : LABEL_HEIGHT_WITH_OBJECTIVE
}

/**
 * What decides the layout: cluster names, which mirror joins which clusters and which mirrors have an objective
 * (their labels are taller). Equal keys give equal layouts,
 * so a page can lay out once and refresh states, lag and broker counts with `withLiveValues` each second.
 */
export function topologyShapeKey(clusters: readonly Pick<TopologyClusterInput, 'name'>[], mirrors: readonly Pick<TopologyMirrorInput, 'name' | 'sourceCluster' | 'destinationCluster' | 'objectives'>[]): string {
  return JSON.stringify([clusters.map((cluster) => cluster.name), mirrors.map((mirror) => [mirror.name, mirror.sourceCluster, mirror.destinationCluster, labelHeight(mirror)])])
}

/** The same layout with today's states, lag and brokers (the inputs must have the layout's shape key). */
export function withLiveValues(topology: Topology, clusters: readonly TopologyClusterInput[], mirrors: readonly TopologyMirrorInput[]): Topology {
  const fresh = buildValues(clusters, mirrors)
  return {
    ...topology,
    nodes: topology.nodes.map((node) => ({ ...node, ...fresh.nodes.get(node.id) })),
    edges: topology.edges.map((edge) => ({ ...edge, ...fresh.edges.get(edge.id) })),
  }
}

function buildValues(clusters: readonly TopologyClusterInput[], mirrors: readonly TopologyMirrorInput[]) {
  const nodes = new Map<string, Pick<TopologyNode, 'kind' | 'status' | 'brokersAlive' | 'brokersTotal'>>()
  for (const cluster of clusters) {
    nodes.set(cluster.name, { kind: cluster.kind, status: cluster.status, brokersAlive: cluster.brokers.filter((broker) => broker.alive).length, brokersTotal: cluster.brokers.length })
  }
  const edges = new Map<string, EdgeValues>()
  for (const mirror of mirrors) edges.set(mirror.name, { worstState: worstState(mirror.partitionsByState), ...edgeValues(mirror) })
  return { nodes, edges }
}

type EdgeValues = Pick<TopologyEdge, 'worstState' | 'partitions' | 'partitionsByState' | 'totalOffsetLag' | 'maxTimeLagMs' | 'lagKnown' | 'lagAsOf' | 'rpoStatus'>

/** What an edge shows of its mirror besides its worst state. */
function edgeValues(mirror: TopologyMirrorInput): Omit<EdgeValues, 'worstState'> {
  return {
    partitions: Object.values(mirror.partitionsByState).reduce((sum, count) => sum + (count ?? 0), 0),
    partitionsByState: mirror.partitionsByState,
    totalOffsetLag: mirror.totalOffsetLag,
    maxTimeLagMs: mirror.maxTimeLagMs,
    lagKnown: mirror.lagKnown ?? true,
    lagAsOf: mirror.lagAsOf ?? null,
    rpoStatus: mirror.objectives?.status ?? null,
  }
}

/**
 * A smooth curve through dagre's points (each inner point pulls the curve towards it, the curve passes the
 * midpoints between them), stopped short of the last point by the arrowhead, which ends exactly on the
 * destination box.
 */
export function edgeGeometry(points: readonly Point[]): { path: string; arrow: string } {
  if (points.length < 2) return { path: '', arrow: '' }
  const tip = points[points.length - 1]!
  const before = points[points.length - 2]!
  const length = Math.hypot(tip.x - before.x, tip.y - before.y) || 1
  const ux = (tip.x - before.x) / length
  const uy = (tip.y - before.y) / length
  const base = { x: tip.x - ux * ARROW_LENGTH, y: tip.y - uy * ARROW_LENGTH }
  const curve = [...points.slice(0, -1), base]
  let path = `M ${round(curve[0]!.x)} ${round(curve[0]!.y)}`
  for (let index = 1; index < curve.length - 1; index++) {
    const control = curve[index]!
    const next = curve[index + 1]!
    const end = index === curve.length - 2 ? next : { x: (control.x + next.x) / 2, y: (control.y + next.y) / 2 }
    path += ` Q ${round(control.x)} ${round(control.y)} ${round(end.x)} ${round(end.y)}`
  }
  if (curve.length === 2) path += ` L ${round(base.x)} ${round(base.y)}`
  const left = { x: base.x - uy * ARROW_HALF_WIDTH, y: base.y + ux * ARROW_HALF_WIDTH }
  const right = { x: base.x + uy * ARROW_HALF_WIDTH, y: base.y - ux * ARROW_HALF_WIDTH }
  const arrow = [tip, left, right].map((point) => `${round(point.x)},${round(point.y)}`).join(' ')
  return { path, arrow }
}

function midpoint(points: readonly Point[]): Point {
  if (points.length === 0) return { x: 0, y: 0 }
  const first = points[0]!
  const last = points[points.length - 1]!
  return { x: (first.x + last.x) / 2, y: (first.y + last.y) / 2 }
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}
