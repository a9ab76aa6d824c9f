import { describe, expect, it } from 'vitest'
import { connectedGroups, packInRows } from './topology-packing'

describe('connectedGroups', () => {
  it('joins clusters any chain of links joins, in the order of their first cluster', () => {
    expect(connectedGroups(['a', 'b', 'c', 'd', 'e'], [['d', 'b'], ['c', 'e'], ['e', 'b']])).toEqual([['a'], ['b', 'c', 'd', 'e']])
    expect(connectedGroups(['x', 'y', 'z'], [['x', 'y']])).toEqual([['x', 'y'], ['z']])
  })
})

describe('packInRows', () => {
  it('fills rows left to right and starts a new one past the target width, rows as tall as their tallest box', () => {
    const boxes = Array.from({ length: 9 }, () => ({ width: 100, height: 50 }))
    const { placements, width, height } = packInRows(boxes, 10, 2)
    // Area 9 × 110 × 60 at aspect 2: a target of about 344 wide, so three to a row.
    expect(placements.slice(0, 4)).toEqual([
      { x: 0, y: 0 },
      { x: 110, y: 0 },
      { x: 220, y: 0 },
      { x: 0, y: 60 },
    ])
    expect({ width, height }).toEqual({ width: 320, height: 170 })
  })

  it('never makes a row narrower than its widest box, and packs nothing to nothing', () => {
    const { placements, width } = packInRows([{ width: 1_000, height: 10 }, { width: 10, height: 10 }], 10, 2)
    expect(placements).toEqual([
      { x: 0, y: 0 },
      { x: 0, y: 20 },
    ])
    expect(width).toBe(1_000)
    expect(packInRows([], 10, 2)).toEqual({ placements: [], width: 0, height: 0 })
  })
})
