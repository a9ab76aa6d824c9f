import { describe, expect, it } from 'vitest'
import { buildStateGraph, DEFAULT_STATE_GRAPH_LAYOUT } from '../graph/state-graph'
import { rectOf, routeStateGraph } from './state-graph-routes'

describe('routeStateGraph', () => {
  const graph = buildStateGraph()
  const routes = routeStateGraph(graph)

  it('routes every valid transition', () => {
    expect([...routes.keys()].sort()).toEqual(graph.edges.map((edge) => edge.id).sort())
    for (const route of routes.values()) expect(route.path).toMatch(/^M [\d.-]+ [\d.-]+ /)
  })

  it('runs no edge through a state it does not touch', () => {
    const crossings: string[] = []
    for (const edge of graph.edges) {
      const route = routes.get(edge.id)!
      for (const node of graph.nodes) {
        if (node.id === edge.from || node.id === edge.to) continue
        const rect = rectOf(node)
        if (route.points.some((point) => point.x > rect.left && point.x < rect.right && point.y > rect.top && point.y < rect.bottom)) crossings.push(`${edge.id} crosses ${node.id}`)
      }
    }
    expect(crossings).toEqual([])
  })

  it('starts on the source state and ends on the target state', () => {
    const touches = (point: { x: number; y: number }, id: string) => {
      const rect = rectOf(graph.nodes.find((node) => node.id === id)!)
      return point.x >= rect.left - 0.5 && point.x <= rect.right + 0.5 && point.y >= rect.top - 0.5 && point.y <= rect.bottom + 0.5
    }
    for (const edge of graph.edges) {
      const points = routes.get(edge.id)!.points
      expect(touches(points[0]!, edge.from), `${edge.id} start`).toBe(true)
      expect(touches(points.at(-1)!, edge.to), `${edge.id} end`).toBe(true)
    }
  })

  it('keeps two edges between the same states apart (MIRRORING ⇄ ULE_LOG_TRUNCATION)', () => {
    const down = routes.get('MIRRORING->ULE_LOG_TRUNCATION')!.points
    const up = routes.get('ULE_LOG_TRUNCATION->MIRRORING')!.points
    expect(Math.abs(down[0]!.x - up.at(-1)!.x)).toBeGreaterThanOrEqual(10)
  })

  it('keeps routes within a margin of the layout', () => {
    const margin = DEFAULT_STATE_GRAPH_LAYOUT.columnGap
    for (const route of routes.values()) {
      for (const point of route.points) {
        expect(point.x).toBeGreaterThan(-margin)
        expect(point.x).toBeLessThan(graph.width + margin)
        expect(point.y).toBeGreaterThan(-margin)
        expect(point.y).toBeLessThan(graph.height + margin)
      }
    }
  })
})
