/**
 * How the edges of the partition state graph (lib/graph/state-graph.ts) are drawn so that none runs through
 * a state it does not touch: flow edges are curves between the bottom and top of their states, spread along
 * each side; one that would cross a state goes round it in the gap left of its column. FAILED, reachable from
 * everywhere, is fed by a bus: failures leave a state on its right and run down the gap before FAILED's
 * column; recoveries come back up a second bus and enter their state on its right. Pure geometry, tested.
 */
import { DEFAULT_STATE_GRAPH_LAYOUT, type StateGraph, type StateGraphEdge, type StateGraphLayout, type StateGraphNode } from '../graph/state-graph'

export interface Point {
  readonly x: number
  readonly y: number
}

export interface EdgeRoute {
  readonly id: string
  /** SVG path data. */
  readonly path: string
  /** Where the hover label goes: near the edge's own part, away from shared buses. */
  readonly label: Point
  /** The route as points (the curve sampled): what the tests check against the states. */
  readonly points: readonly Point[]
}

interface Rect {
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}

const ANCHOR_SPREAD = 20
const CORNER = 6
/** How far routes keep from states they do not touch. */
const CLEARANCE = 4

export function rectOf(node: StateGraphNode, layout: StateGraphLayout = DEFAULT_STATE_GRAPH_LAYOUT): Rect {
  return { left: node.x - layout.nodeWidth / 2, right: node.x + layout.nodeWidth / 2, top: node.y - layout.nodeHeight / 2, bottom: node.y + layout.nodeHeight / 2 }
}

export function routeStateGraph(graph: StateGraph, layout: StateGraphLayout = DEFAULT_STATE_GRAPH_LAYOUT): Map<string, EdgeRoute> {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]))
  const rects = new Map(graph.nodes.map((node) => [node.id, rectOf(node, layout)]))
  const node = (id: string) => nodes.get(id as StateGraphNode['id']) as StateGraphNode
  const rect = (id: string) => rects.get(id as StateGraphNode['id']) as Rect
  const crossesOthers = (points: readonly Point[], ends: readonly string[]) =>
    graph.nodes.some((other) => !ends.includes(other.id) && points.some((point) => inside(point, rect(other.id), CLEARANCE)))
  const routes = new Map<string, EdgeRoute>()

  // Flow edges: curves where they pass no other state, round the left of the column where they would.
  const flow = graph.edges.filter((edge) => edge.kind === 'forward' || edge.kind === 'back')
  // Spreading anchors moves curves, so check again until every remaining curve is clear.
  let curved = flow.filter((edge) => !crossesOthers(curve(...anchorsFor(edge, node, rect)).points, [edge.from, edge.to]))
  let anchors = spreadAnchors(curved, node, rect)
  for (let round = 0; round < flow.length; round++) {
    const clear = curved.filter((edge) => !crossesOthers(curve(...(anchors.get(edge.id) as [Point, Point])).points, [edge.from, edge.to]))
    if (clear.length === curved.length) break
    curved = clear
    anchors = spreadAnchors(curved, node, rect)
  }
  for (const edge of curved) {
    const [start, end] = anchors.get(edge.id) as [Point, Point]
    routes.set(edge.id, { id: edge.id, ...curve(start, end) })
  }
  const detours = flow.filter((edge) => !curved.includes(edge))
  detours.forEach((edge, index) => {
    const from = rect(edge.from)
    const to = rect(edge.to)
    const source = node(edge.from)
    const target = node(edge.to)
    const shift = index * 6
    const halfGap = layout.columnGap / 2
    const candidates: Point[][] = []
    // Round the left of both states, level with each.
    const leftLane = Math.min(from.left, to.left) - halfGap + 10 - shift
    candidates.push([{ x: from.left, y: source.y }, { x: leftLane, y: source.y }, { x: leftLane, y: target.y }, { x: to.left, y: target.y }])
    // Out through the gaps between rows, along the free gap beside a column.
    const down = target.y > source.y
    const start = { x: source.x + 10, y: down ? from.bottom : from.top }
    const end = { x: target.x - 10, y: down ? to.top : to.bottom }
    const gapFrom = down ? from.bottom + layout.rowGap / 2 : from.top - layout.rowGap / 2
    const gapTo = down ? to.top - layout.rowGap / 2 : to.bottom + layout.rowGap / 2
    for (const lane of [to.right + halfGap, to.left - halfGap, from.right + halfGap, from.left - halfGap]) {
      const x = lane - shift
      candidates.push([start, { x: start.x, y: gapFrom }, { x, y: gapFrom }, { x, y: gapTo }, { x: end.x, y: gapTo }, end])
    }
    const points = candidates.find((candidate) => !crossesOthers(densify(candidate), [edge.from, edge.to])) ?? (candidates[0] as Point[])
    const middle = points[Math.floor(points.length / 2)] as Point
    routes.set(edge.id, { id: edge.id, path: orthogonal(points), label: middle, points: densify(points) })
  })

  // FAILED's buses, in the gap before its column.
  const failed = graph.nodes.find((entry) => graph.edges.every((edge) => edge.kind !== 'failure' || edge.to === entry.id))
  if (failed === undefined) return routes
  const failedRect = rect(failed.id)
  const busIn = failedRect.left - layout.columnGap / 2 - 4
  const busOut = failedRect.left - layout.columnGap / 2 + 6
  const rowGapBelow = (r: Rect) => r.bottom + layout.rowGap / 2
  const rowGapAbove = (r: Rect) => r.top - layout.rowGap / 2
  const blocked = (a: Point, b: Point, ends: readonly string[]) => crossesOthers(densify([a, b]), ends)

  for (const edge of graph.edges.filter((entry) => entry.kind === 'failure')) {
    const from = rect(edge.from)
    const start = { x: from.right, y: node(edge.from).y + 8 }
    const end = { x: failedRect.left, y: failed.y - 8 }
    const ends = [edge.from, failed.id]
    let points: Point[]
    if (!blocked(start, { x: busIn, y: start.y }, ends)) {
      points = [start, { x: busIn, y: start.y }, { x: busIn, y: end.y }, end]
    } else {
      // Out to the free gap beside the state, down into the gap between rows, across to the bus.
      const besideX = from.right + 10
      const gapY = rowGapBelow(from)
      points = [start, { x: besideX, y: start.y }, { x: besideX, y: gapY }, { x: busIn, y: gapY }, { x: busIn, y: end.y }, end]
    }
    routes.set(edge.id, { id: edge.id, path: orthogonal(points), label: { x: start.x + 24, y: start.y }, points: densify(points) })
  }
  for (const edge of graph.edges.filter((entry) => entry.kind === 'recovery')) {
    const to = rect(edge.to)
    const start = { x: failedRect.left, y: failed.y + 8 }
    const end = { x: to.right, y: node(edge.to).y - 8 }
    const ends = [failed.id, edge.to]
    let points: Point[]
    if (!blocked({ x: busOut, y: end.y }, end, ends)) {
      points = [start, { x: busOut, y: start.y }, { x: busOut, y: end.y }, end]
    } else {
      const besideX = to.right + 10
      const gapY = rowGapAbove(to)
      points = [start, { x: busOut, y: start.y }, { x: busOut, y: gapY }, { x: besideX, y: gapY }, { x: besideX, y: end.y }, end]
    }
    routes.set(edge.id, { id: edge.id, path: orthogonal(points), label: { x: end.x + 24, y: end.y }, points: densify(points) })
  }
  return routes
}

/** Bottom of the upper state to top of the lower one, whichever way the edge runs. */
function anchorsFor(edge: StateGraphEdge, node: (id: string) => StateGraphNode, rect: (id: string) => Rect): [Point, Point] {
  const from = node(edge.from)
  const to = node(edge.to)
  const down = to.y > from.y
  return [
    { x: from.x, y: down ? rect(edge.from).bottom : rect(edge.from).top },
    { x: to.x, y: down ? rect(edge.to).top : rect(edge.to).bottom },
  ]
}

/** Edges sharing a side of a state leave it side by side, ordered by where their other end lies. */
function spreadAnchors(edges: readonly StateGraphEdge[], node: (id: string) => StateGraphNode, rect: (id: string) => Rect): Map<string, [Point, Point]> {
  const sides = new Map<string, Array<{ edge: StateGraphEdge; end: 0 | 1; otherX: number }>>()
  for (const edge of edges) {
    const [start, end] = anchorsFor(edge, node, rect)
    const add = (state: string, y: number, which: 0 | 1, otherX: number) => {
      const key = `${state}:${y}`
      sides.set(key, [...(sides.get(key) ?? []), { edge, end: which, otherX }])
    }
    add(edge.from, start.y, 0, node(edge.to).x)
    add(edge.to, end.y, 1, node(edge.from).x)
  }
  const result = new Map<string, [Point, Point]>(edges.map((edge) => [edge.id, anchorsFor(edge, node, rect)]))
  for (const [key, members] of sides) {
    const state = key.slice(0, key.indexOf(':'))
    members.sort((a, b) => a.otherX - b.otherX || a.edge.id.localeCompare(b.edge.id))
    members.forEach((member, index) => {
      const pair = result.get(member.edge.id) as [Point, Point]
      const x = node(state).x + (index - (members.length - 1) / 2) * ANCHOR_SPREAD
      pair[member.end] = { x, y: pair[member.end].y }
    })
  }
  return result
}

function curve(start: Point, end: Point): { path: string; label: Point; points: Point[] } {
  const bend = Math.max(24, Math.abs(end.y - start.y) / 2) * Math.sign(end.y - start.y || 1)
  const c1 = { x: start.x, y: start.y + bend }
  const c2 = { x: end.x, y: end.y - bend }
  const at = (t: number): Point => {
    const u = 1 - t
    return {
      x: u * u * u * start.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * end.x,
      y: u * u * u * start.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * end.y,
    }
  }
  const points = Array.from({ length: 33 }, (_, index) => at(index / 32))
  return { path: `M ${start.x} ${start.y} C ${c1.x} ${c1.y}, ${c2.x} ${c2.y}, ${end.x} ${end.y}`, label: at(0.5), points }
}

/** Straight segments with rounded corners. */
function orthogonal(points: readonly Point[]): string {
  const first = points[0] as Point
  let path = `M ${first.x} ${first.y}`
  for (let index = 1; index < points.length - 1; index++) {
    const previous = points[index - 1] as Point
    const corner = points[index] as Point
    const next = points[index + 1] as Point
    const radius = Math.min(CORNER, distance(previous, corner) / 2, distance(corner, next) / 2)
    const before = toward(corner, previous, radius)
    const after = toward(corner, next, radius)
    path += ` L ${before.x} ${before.y} Q ${corner.x} ${corner.y} ${after.x} ${after.y}`
  }
  const last = points[points.length - 1] as Point
  return `${path} L ${last.x} ${last.y}`
}

function distance(a: Point, b: Point): number {
  return Math.hypot(b.x - a.x, b.y - a.y)
}

function toward(from: Point, to: Point, length: number): Point {
  const total = distance(from, to)
  return total === 0 ? from : { x: from.x + ((to.x - from.x) / total) * length, y: from.y + ((to.y - from.y) / total) * length }
}

/** Points every few pixels along straight segments, for the crossing checks. */
function densify(points: readonly Point[]): Point[] {
  const result: Point[] = []
  for (let index = 0; index < points.length - 1; index++) {
    const a = points[index] as Point
    const b = points[index + 1] as Point
    const steps = Math.max(1, Math.ceil(distance(a, b) / 4))
    for (let step = 0; step < steps; step++) result.push({ x: a.x + ((b.x - a.x) * step) / steps, y: a.y + ((b.y - a.y) * step) / steps })
  }
  result.push(points[points.length - 1] as Point)
  return result
}

function inside(point: Point, rect: Rect, margin: number): boolean {
  return point.x > rect.left - margin && point.x < rect.right + margin && point.y > rect.top - margin && point.y < rect.bottom + margin
}
