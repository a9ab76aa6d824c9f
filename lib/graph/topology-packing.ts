/**
 * How the overview fits many separate mirror groups into one picture: the clusters that mirrors join form
 * connected groups (a DR pair, a failback pair, a chain); each group is laid out on its own, and the groups are
 * packed in rows towards a wide frame. One dagre graph of 40 unrelated pairs stacked them in a single column
 * 40 boxes tall, which a wide panel then shrank to an unreadable strip.
 */

export interface PackSize {
  readonly width: number
  readonly height: number
}

export interface Placement {
  readonly x: number
  readonly y: number
}

/** The clusters each group holds, groups in the order of their first cluster in `names`. */
export function connectedGroups(names: readonly string[], links: ReadonlyArray<readonly [string, string]>): string[][] {
  const parent = new Map(names.map((name) => [name, name]))
  const root = (name: string): string => {
    let current = name
    while (parent.get(current) !== current) current = parent.get(current)!
    parent.set(name, current)
    return current
  }
  for (const [a, b] of links) {
    const ra = root(a)
    const rb = root(b)
    if (ra !== rb) parent.set(rb, ra)
  }
  const groups = new Map<string, string[]>()
  for (const name of names) {
    const key = root(name)
    const group = groups.get(key)
    if (group) group.push(name)
    else groups.set(key, [name])
  }
  return [...groups.values()]
}

/**
 * Rows of boxes, left to right, each row as tall as its tallest box, a new row once the next box would pass
 * the target width. The target makes the whole about `aspect` times as wide as tall (never narrower than the
 * widest box), so a panel wider than tall shows it at a readable scale.
 */
export function packInRows(sizes: readonly PackSize[], gap: number, aspect: number): { placements: Placement[]; width: number; height: number } {
  if (sizes.length === 0) return { placements: [], width: 0, height: 0 }
  const area = sizes.reduce((sum, size) => sum + (size.width + gap) * (size.height + gap), 0)
  const widest = Math.max(...sizes.map((size) => size.width))
  const target = Math.max(widest, Math.sqrt(area * aspect))
  const placements: Placement[] = []
  let x = 0
  let y = 0
  let rowHeight = 0
  let width = 0
  for (const size of sizes) {
    if (x > 0 && x + size.width > target) {
      y += rowHeight + gap
      x = 0
      rowHeight = 0
    }
    placements.push({ x, y })
    x += size.width + gap
    rowHeight = Math.max(rowHeight, size.height)
    width = Math.max(width, x - gap)
  }
  return { placements, width, height: y + rowHeight }
}
