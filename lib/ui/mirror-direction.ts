/**
 * What a new mirror from `source` to `destination` means next to the mirrors that exist, said before the
 * operator submits: a reverse mirror (the failback pair of a mirror the other way), a loop (records would
 * travel back to where they came from through other mirrors), or a chain link. The server refuses a start
 * that would mirror a topic back while the mirror the other way still mirrors it (not STOPPED).
 */

export interface MirrorEdge {
  readonly name: string
  readonly sourceCluster: string
  readonly destinationCluster: string
}

export type MirrorDirection =
  | { readonly kind: 'same-cluster' }
  | { readonly kind: 'reverse'; readonly mirrors: readonly string[] }
  | { readonly kind: 'loop'; readonly path: readonly string[] }
  | { readonly kind: 'parallel'; readonly mirrors: readonly string[] }
  | { readonly kind: 'plain' }

/** The clusters a record written on `from` reaches through existing mirrors, with the path it takes. */
function pathBetween(edges: readonly MirrorEdge[], from: string, to: string): string[] | null {
  const previous = new Map<string, string>([[from, '']])
  const queue = [from]
  while (queue.length > 0) {
    const cluster = queue.shift()!
    if (cluster === to) {
      const path = [to]
      for (let at = previous.get(to)!; at !== ''; at = previous.get(at)!) path.unshift(at)
      return path
    }
    for (const edge of edges) {
      if (edge.sourceCluster !== cluster || previous.has(edge.destinationCluster)) continue
      previous.set(edge.destinationCluster, cluster)
      queue.push(edge.destinationCluster)
    }
  }
  return null
}

export function mirrorDirection(mirrors: readonly MirrorEdge[], source: string, destination: string): MirrorDirection {
  if (source === destination) return { kind: 'same-cluster' }
  const reverse = mirrors.filter((mirror) => mirror.sourceCluster === destination && mirror.destinationCluster === source)
  if (reverse.length > 0) return { kind: 'reverse', mirrors: reverse.map((mirror) => mirror.name) }
  // destination already reaches source: the new edge closes a cycle.
  const back = pathBetween(mirrors, destination, source)
  if (back !== null) return { kind: 'loop', path: [source, ...back] }
  const parallel = mirrors.filter((mirror) => mirror.sourceCluster === source && mirror.destinationCluster === destination)
  if (parallel.length > 0) return { kind: 'parallel', mirrors: parallel.map((mirror) => mirror.name) }
  return { kind: 'plain' }
}
