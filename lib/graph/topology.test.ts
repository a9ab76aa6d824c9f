import { describe, expect, it } from 'vitest'
import { LABEL_HEIGHT, LABEL_HEIGHT_WITH_OBJECTIVE, NODE_HEIGHT, NODE_WIDTH, buildTopology, edgeGeometry, topologyShapeKey, withLiveValues, type TopologyClusterInput, type TopologyMirrorInput } from './topology'

function cluster(name: string, alive = [true, true, true]): TopologyClusterInput {
  return { name, kind: 'embedded', brokers: alive.map((up) => ({ alive: up })), status: 'ok' }
}

function mirror(name: string, sourceCluster: string, destinationCluster: string, partitionsByState: TopologyMirrorInput['partitionsByState'] = { MIRRORING: 3 }): TopologyMirrorInput {
  return { name, sourceCluster, destinationCluster, partitionsByState, totalOffsetLag: 12, maxTimeLagMs: 3_400 }
}

function overlaps(a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}

describe('buildTopology', () => {
  it('draws a chain A→B→C left to right, each edge from its source box to its destination box', () => {
    const topology = buildTopology([cluster('a'), cluster('b'), cluster('c')], [mirror('ab', 'a', 'b'), mirror('bc', 'b', 'c')])
    const x = Object.fromEntries(topology.nodes.map((node) => [node.id, node.position.x]))
    expect(x.a!).toBeLessThan(x.b!)
    expect(x.b!).toBeLessThan(x.c!)
    const ab = topology.edges.find((edge) => edge.id === 'ab')!
    expect(ab).toMatchObject({ source: 'a', target: 'b', paired: false, worstState: 'MIRRORING', partitions: 3 })
    // The arrow's tip touches b's left side.
    const tip = ab.arrow.split(' ')[0]!.split(',').map(Number)
    expect(tip[0]).toBeCloseTo(x.b!, 0)
    // The label sits between the two boxes.
    expect(ab.label.x).toBeGreaterThan(x.a! + NODE_WIDTH)
    expect(ab.label.x).toBeLessThan(x.b!)
  })

  it('draws a failback pair A⇄B as two separate curves whose labels do not overlap', () => {
    const topology = buildTopology([cluster('us-east'), cluster('eu-west')], [mirror('dr', 'us-east', 'eu-west', { STOPPED: 4 }), mirror('back', 'eu-west', 'us-east', { MIRRORING: 2, FAILED: 1 })])
    const [back, dr] = topology.edges
    expect(dr).toMatchObject({ source: 'us-east', target: 'eu-west', paired: true, worstState: 'STOPPED' })
    expect(back).toMatchObject({ source: 'eu-west', target: 'us-east', paired: true, worstState: 'FAILED' })
    expect(dr!.path).not.toEqual(back!.path)
    const box = (point: { x: number; y: number }) => ({ x: point.x - 80, y: point.y - LABEL_HEIGHT / 2, w: 160, h: LABEL_HEIGHT })
    expect(overlaps(box(dr!.label), box(back!.label))).toBe(false)
    // Neither label sits on a cluster box.
    for (const node of topology.nodes) {
      for (const edge of topology.edges) expect(overlaps(box(edge.label), { x: node.position.x, y: node.position.y, w: NODE_WIDTH, h: NODE_HEIGHT })).toBe(false)
    }
  })

  it('gives a mirror with an objective a label a line taller for its RPO status, and its failback pair still clears it', () => {
    const withObjective = { ...mirror('dr', 'us-east', 'eu-west'), objectives: { status: 'breached' as const } }
    const topology = buildTopology([cluster('us-east'), cluster('eu-west')], [withObjective, mirror('back', 'eu-west', 'us-east')])
    const [back, dr] = topology.edges
    expect(dr).toMatchObject({ rpoStatus: 'breached', labelHeight: LABEL_HEIGHT_WITH_OBJECTIVE })
    expect(back).toMatchObject({ rpoStatus: null, labelHeight: LABEL_HEIGHT })
    expect(LABEL_HEIGHT_WITH_OBJECTIVE).toBeGreaterThanOrEqual(LABEL_HEIGHT + 16)
    const box = (edge: typeof dr) => ({ x: edge!.label.x - 80, y: edge!.label.y - edge!.labelHeight / 2, w: 160, h: edge!.labelHeight })
    expect(overlaps(box(dr), box(back))).toBe(false)
    for (const node of topology.nodes) {
      for (const edge of [dr, back]) expect(overlaps(box(edge), { x: node.position.x, y: node.position.y, w: NODE_WIDTH, h: NODE_HEIGHT })).toBe(false)
    }
    // Setting an objective changes the label's height, so the layout is redone.
    expect(topologyShapeKey([cluster('a')], [withObjective])).not.toBe(topologyShapeKey([cluster('a')], [mirror('dr', 'us-east', 'eu-west')]))
  })

  it('never puts two cluster boxes on top of each other, at 50 clusters and 100 mirrors', () => {
    const clusters = Array.from({ length: 50 }, (_, index) => cluster(`c${index}`))
    const mirrors = Array.from({ length: 100 }, (_, index) => mirror(`m${index}`, `c${index % 50}`, `c${(index * 7 + 1) % 50}`))
    const topology = buildTopology(clusters, mirrors.filter((m) => m.sourceCluster !== m.destinationCluster))
    const boxes = topology.nodes.map((node) => ({ x: node.position.x, y: node.position.y, w: NODE_WIDTH, h: NODE_HEIGHT }))
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!)).toBe(false)
    for (const node of topology.nodes) {
      expect(node.position.x + NODE_WIDTH).toBeLessThanOrEqual(topology.width)
      expect(node.position.y + NODE_HEIGHT).toBeLessThanOrEqual(topology.height)
    }
  })

  it('packs 40 unrelated DR pairs in rows towards a wide picture instead of one column, each pair still left to right', () => {
    const clusters = Array.from({ length: 80 }, (_, index) => cluster(`c${String(index).padStart(2, '0')}`))
    const mirrors = Array.from({ length: 40 }, (_, index) => mirror(`m${index}`, clusters[2 * index]!.name, clusters[2 * index + 1]!.name))
    const topology = buildTopology([...clusters, cluster('alone')], mirrors)
    // One dagre graph stacked the pairs 40 high: about 3,800 by 450.
    expect(topology.width / topology.height).toBeGreaterThan(1)
    expect(topology.width / topology.height).toBeLessThan(4)
    const at = new Map(topology.nodes.map((node) => [node.id, node.position]))
    for (const edge of topology.edges) expect(at.get(edge.source)!.x).toBeLessThan(at.get(edge.target)!.x)
    const boxes = topology.nodes.map((node) => ({ x: node.position.x, y: node.position.y, w: NODE_WIDTH, h: NODE_HEIGHT }))
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!)).toBe(false)
    for (const node of topology.nodes) {
      expect(node.position.x + NODE_WIDTH).toBeLessThanOrEqual(topology.width)
      expect(node.position.y + NODE_HEIGHT).toBeLessThanOrEqual(topology.height)
    }
    // The cluster no mirror touches sits below every pair.
    expect(at.get('alone')!.y).toBeGreaterThan(Math.max(...topology.nodes.filter((node) => node.id !== 'alone').map((node) => node.position.y)))
  })

  it('counts brokers alive and total, and shows a cluster a mirror names but the list lacks', () => {
    const topology = buildTopology([cluster('a', [true, false, true])], [mirror('m', 'a', 'gone')])
    expect(topology.nodes.find((node) => node.id === 'a')).toMatchObject({ brokersAlive: 2, brokersTotal: 3, status: 'ok', mirrorsOut: 1, mirrorsIn: 0 })
    expect(topology.nodes.find((node) => node.id === 'gone')).toMatchObject({ kind: null, status: 'missing', brokersTotal: 0, mirrorsIn: 1 })
  })

  it('puts clusters without mirrors in rows under the graph, and gives an edge of a mirror with no partitions no state', () => {
    const topology = buildTopology([cluster('a'), cluster('b'), cluster('lonely-1'), cluster('lonely-2')], [mirror('ab', 'a', 'b', {})])
    const graphBottom = Math.max(...topology.nodes.filter((node) => node.mirrorsIn + node.mirrorsOut > 0).map((node) => node.position.y + NODE_HEIGHT))
    const lonely = topology.nodes.filter((node) => node.id.startsWith('lonely'))
    for (const node of lonely) expect(node.position.y).toBeGreaterThanOrEqual(graphBottom)
    expect(lonely[0]!.position.y).toBe(lonely[1]!.position.y)
    expect(topology.edges[0]).toMatchObject({ worstState: null, partitions: 0 })
  })

  it('lays out clusters alone (no mirror yet) in a grid, and nothing at all when there is nothing', () => {
    const topology = buildTopology([cluster('a'), cluster('b')], [])
    expect(topology.edges).toEqual([])
    expect(topology.nodes.map((node) => node.position.y)).toEqual([16, 16])
    expect(buildTopology([], [])).toEqual({ nodes: [], edges: [], width: 0, height: 0 })
  })
})

describe('live values over a kept layout', () => {
  it('changes states, lag and brokers without moving anything, and equals a fresh build', () => {
    const clusters = [cluster('a'), cluster('b')]
    const before = [mirror('ab', 'a', 'b')]
    const laidOut = buildTopology(clusters, before)
    const now = [{ ...mirror('ab', 'a', 'b', { MIRRORING: 2, FAILED: 1 }), totalOffsetLag: 900, maxTimeLagMs: 12_000 }]
    const later = [cluster('a', [true, false, true]), cluster('b')]
    expect(topologyShapeKey(later, now)).toBe(topologyShapeKey(clusters, before))
    const live = withLiveValues(laidOut, later, now)
    expect(live).toEqual(buildTopology(later, now))
    expect(live.edges[0]).toMatchObject({ worstState: 'FAILED', totalOffsetLag: 900, maxTimeLagMs: 12_000, path: laidOut.edges[0]!.path })
    expect(live.nodes[0]).toMatchObject({ brokersAlive: 2, position: laidOut.nodes[0]!.position })
  })

  it('gives a new shape key when a mirror or cluster comes or goes', () => {
    const key = topologyShapeKey([cluster('a'), cluster('b')], [mirror('ab', 'a', 'b')])
    expect(topologyShapeKey([cluster('a'), cluster('b')], [])).not.toBe(key)
    expect(topologyShapeKey([cluster('a'), cluster('b'), cluster('c')], [mirror('ab', 'a', 'b')])).not.toBe(key)
    expect(topologyShapeKey([cluster('a'), cluster('b')], [mirror('ab', 'b', 'a')])).not.toBe(key)
  })
})

describe('edgeGeometry', () => {
  it('ends the curve where the arrowhead starts and puts the arrow tip on the last point', () => {
    const { path, arrow } = edgeGeometry([{ x: 0, y: 0 }, { x: 50, y: 20 }, { x: 100, y: 0 }])
    expect(path).toMatch(/^M 0 0 Q 50 20 /)
    expect(arrow.split(' ')[0]).toBe('100,0')
    expect(edgeGeometry([{ x: 0, y: 0 }, { x: 100, y: 0 }])).toEqual({ path: 'M 0 0 L 90 0', arrow: '100,0 90,5 90,-5' })
    expect(edgeGeometry([{ x: 1, y: 1 }])).toEqual({ path: '', arrow: '' })
  })
})
