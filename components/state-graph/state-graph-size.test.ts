import { describe, expect, it } from 'vitest'
import { buildStateGraph } from '@/lib/graph/state-graph'
import { LAYOUT_HEIGHT, LAYOUT_WIDTH } from './state-graph-size'

describe('the state graph size the placeholder reserves', () => {
  it('is the size of the laid-out graph', () => {
    const graph = buildStateGraph()
    expect({ width: LAYOUT_WIDTH, height: LAYOUT_HEIGHT }).toEqual({ width: graph.width, height: graph.height })
  })
})
