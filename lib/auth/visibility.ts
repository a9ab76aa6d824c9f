import { allows, isGlobal, roleAtLeast, type Grant } from './grants'

/**
 * What a scoped caller sees in lists (issue #39: "every endpoint and every page checks the scope"): a person or
 * token whose grants name some mirrors or clusters sees those in GET lists and nothing else; anyone with a grant
 * that holds everywhere sees everything. The same rule as reading one resource by its path (`allows` with
 * `viewer`), so a list never shows what opening its row would refuse.
 */

/** True when some grant holds everywhere: lists need no filtering. */
export function seesEverything(grants: readonly Grant[]): boolean {
  return grants.some((grant) => isGlobal(grant) && roleAtLeast(grant.role, 'viewer'))
}

export function seesMirror(grants: readonly Grant[], mirror: string): boolean {
  return allows(grants, 'viewer', { mirror })
}

export function seesCluster(grants: readonly Grant[], cluster: string): boolean {
  return allows(grants, 'viewer', { cluster })
}

/** The mirror or cluster an audit entry's target (its API path below /api/v1) is about, if any. */
export function auditResourceOf(target: string): { mirror: string } | { cluster: string } | null {
  const match = /^\/(mirrors|clusters)\/([^/?#]+)/.exec(target)
  if (match === null || match[2] === undefined) return null
  let name: string
  try {
    name = decodeURIComponent(match[2])
  } catch {
    return null
  }
  return match[1] === 'mirrors' ? { mirror: name } : { cluster: name }
}

/**
 * A scoped caller sees the audit entries about the mirrors and clusters it may read, and its own entries (its
 * sign-ins, its refused calls); entries about nothing named (another person's token, a receiver) are for
 * callers that see everything.
 */
export function seesAuditEntry(grants: readonly Grant[], actor: string, entry: { actor: string; target: string }): boolean {
  if (seesEverything(grants) || entry.actor === actor) return true
  const resource = auditResourceOf(entry.target)
  return resource !== null && allows(grants, 'viewer', resource)
}

interface AttentionLike<I extends { mirror: string }, G extends { mirror: string; kind: K; partitions: number }, K extends string> {
  items: I[]
  groups?: G[] | undefined
  totals: Record<K, number>
  rpoBreaches?: Array<{ mirror: string }>
}

/**
 * "Needs attention" for a scoped caller: the items and groups of the mirrors it may read, and totals counted
 * again from those groups (which hold every finding whatever the limit), so no count betrays other mirrors.
 */
export function visibleAttention<I extends { mirror: string }, G extends { mirror: string; kind: K; partitions: number }, K extends string, A extends AttentionLike<I, G, K>>(
  grants: readonly Grant[],
  attention: A,
): A {
  if (seesEverything(grants)) return attention
  const items = attention.items.filter((item) => seesMirror(grants, item.mirror))
  const groups = attention.groups?.filter((group) => seesMirror(grants, group.mirror))
  const totals = Object.fromEntries(Object.keys(attention.totals).map((kind) => [kind, 0])) as Record<K, number>
  if (groups !== undefined) for (const group of groups) totals[group.kind] += group.partitions
  else for (const item of items as Array<I & { kind?: K }>) if (item.kind !== undefined) totals[item.kind] += 1
  const rpoBreaches = attention.rpoBreaches?.filter((breach) => seesMirror(grants, breach.mirror))
  return { ...attention, items, ...(groups === undefined ? {} : { groups }), ...(rpoBreaches === undefined ? {} : { rpoBreaches }), totals }
}

/**
 * A live event a scoped caller may receive: one about a mirror or a cluster it may read (its `mirror` or `cluster`
 * field), an audit entry it would see in GET /audit; events about nothing named (resync, demo) reach everyone.
 */
export function seesEvent(grants: readonly Grant[], actor: string, type: string, data: unknown): boolean {
  if (seesEverything(grants) || typeof data !== 'object' || data === null) return true
  if (type === 'audit') return seesAuditEntry(grants, actor, data as { actor: string; target: string })
  const named = data as { mirror?: unknown; cluster?: unknown }
  if (typeof named.mirror === 'string') return seesMirror(grants, named.mirror)
  if (typeof named.cluster === 'string') return seesCluster(grants, named.cluster)
  return true
}
