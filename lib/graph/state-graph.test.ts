import { describe, expect, it } from 'vitest'
import { isValidTransition, MIRROR_PARTITION_STATES } from '../mirror/states'
import { buildStateGraph, DEFAULT_STATE_GRAPH_LAYOUT, eventsBetween, validTransitions } from './state-graph'

const graph = buildStateGraph()

describe('state graph', () => {
  it("carries the voted KIP's name of a node where it differs from ours", () => {
    const graph = buildStateGraph()
    expect(graph.nodes.filter((node) => node.kipName !== null).map((node) => [node.id, node.kipName])).toEqual([
      ['PREPARING', 'LOG_ALIGNMENT'],
      ['ULE_LOG_TRUNCATION', 'ULE_RECOVERY'],
    ])
  })

  it('has one node per state', () => {
    expect(graph.nodes.map((node) => node.id)).toEqual([...MIRROR_PARTITION_STATES])
  })

  it('draws every valid transition as an edge and no invalid one', () => {
    const drawn = new Set(graph.edges.map((edge) => `${edge.from}->${edge.to}`))
    for (const from of MIRROR_PARTITION_STATES) {
      for (const to of MIRROR_PARTITION_STATES) {
        const shouldDraw = from !== to && isValidTransition(from, to)
        expect(drawn.has(`${from}->${to}`), `${from} → ${to}`).toBe(shouldDraw)
      }
    }
    expect(graph.edges).toHaveLength(validTransitions().length)
  })

  it('labels every edge with the events that cause it', () => {
    for (const edge of graph.edges) {
      expect(edge.events.length, edge.id).toBeGreaterThan(0)
      expect(edge.events).toEqual(eventsBetween(edge.from, edge.to))
    }
    expect(graph.edges.find((edge) => edge.id === 'MIRRORING->ULE_LOG_TRUNCATION')?.label).toBe('divergence detected')
    expect(graph.edges.find((edge) => edge.id === 'FAILED->STOPPING')?.events).toEqual(['stopRequested', 'retryDue', 'recoverRequested'])
  })

  it('marks edges into FAILED as failures, out of it as recoveries, and the resume/fence/failback returns as back edges', () => {
    const kindOf = (id: string) => graph.edges.find((edge) => edge.id === id)?.kind
    expect(kindOf('MIRRORING->FAILED')).toBe('failure')
    expect(kindOf('FAILED->MIRRORING')).toBe('recovery')
    expect(kindOf('PAUSED->MIRRORING')).toBe('back')
    expect(kindOf('EPOCH_FENCING->MIRRORING')).toBe('back')
    expect(kindOf('STOPPED->PREPARING')).toBe('back')
    expect(kindOf('PREPARING->MIRRORING')).toBe('forward')
  })

  it('lays the main flow out top to bottom: UNKNOWN first, MIRRORING before PAUSED, STOPPED last', () => {
    const layer = (id: string) => graph.nodes.find((node) => node.id === id)?.layer ?? -1
    expect(layer('UNKNOWN')).toBe(0)
    expect(layer('PREPARING')).toBe(1)
    expect(layer('MIRRORING')).toBe(2)
    expect(layer('PAUSED')).toBeGreaterThan(layer('PAUSING'))
    expect(layer('STOPPED')).toBe(Math.max(...graph.nodes.map((node) => node.layer)))
    for (const edge of graph.edges.filter((candidate) => candidate.kind === 'forward')) {
      expect(layer(edge.to), edge.id).toBeGreaterThan(layer(edge.from))
    }
  })

  it('places FAILED in its own column to the right of every other state', () => {
    const failed = graph.nodes.find((node) => node.id === 'FAILED')
    const others = graph.nodes.filter((node) => node.id !== 'FAILED')
    expect(failed).toBeDefined()
    for (const node of others) expect(failed?.x ?? 0).toBeGreaterThan(node.x)
  })

  it('keeps nodes apart, inside the drawing, and identical from one call to the next', () => {
    const { nodeWidth, nodeHeight } = DEFAULT_STATE_GRAPH_LAYOUT
    for (const a of graph.nodes) {
      expect(a.x - nodeWidth / 2).toBeGreaterThanOrEqual(0)
      expect(a.x + nodeWidth / 2).toBeLessThanOrEqual(graph.width)
      expect(a.y + nodeHeight / 2).toBeLessThanOrEqual(graph.height)
      for (const b of graph.nodes) {
        if (a.id >= b.id) continue
        const overlap = Math.abs(a.x - b.x) < nodeWidth && Math.abs(a.y - b.y) < nodeHeight
        expect(overlap, `${a.id} overlaps ${b.id}`).toBe(false)
      }
    }
    expect(buildStateGraph()).toEqual(graph)
  })

  it('carries the UI flags of each state', () => {
    expect(graph.nodes.find((node) => node.id === 'STOPPED')).toMatchObject({ terminal: true, label: 'Stopped' })
    expect(graph.nodes.find((node) => node.id === 'FAILED')).toMatchObject({ attention: true })
  })
})
