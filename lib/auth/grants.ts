import { z } from 'zod'
import { namePattern } from '../mirror/name-patterns'

/**
 * What a signed-in person or a token may do, and where (API.md "Round 3 · Identity"). A grant is a role,
 * optionally limited to clusters and mirrors by name patterns (RE2, whole-name match, as the mirror's topic
 * patterns). The one place that decides "may this caller do that to this resource": the API's authorisation
 * (server/http/auth.ts) and the pages that hide or disable a control both call `allows`.
 */

export const GrantRole = z.enum(['viewer', 'operator', 'admin'])
export type GrantRole = z.infer<typeof GrantRole>

export const Grant = z.strictObject({
  role: GrantRole,
  /** Cluster name patterns; with `mirrors` absent too, the grant holds everywhere. */
  clusters: z.array(z.string()).optional(),
  mirrors: z.array(z.string()).optional(),
})
export type Grant = z.infer<typeof Grant>

/** What an action is done to: a cluster, a mirror, or nothing named (a list, or creating something new). */
export type Resource = { cluster: string } | { mirror: string } | null

const RANK: Record<GrantRole, number> = { viewer: 1, operator: 2, admin: 3 }

export function roleAtLeast(role: GrantRole, required: GrantRole): boolean {
  return RANK[role] >= RANK[required]
}

/** True when the grant names no cluster and no mirror: it holds on every resource and on unnamed ones. */
export function isGlobal(grant: Grant): boolean {
  return grant.clusters === undefined && grant.mirrors === undefined
}

function anyMatches(patterns: readonly string[] | undefined, name: string): boolean {
  return patterns !== undefined && patterns.some((source) => namePattern(source).matches(name))
}

/**
 * A scoped grant holds only on the resources its patterns name: `{ operator, mirrors: [".*-to-eu-west"] }` lets
 * its holder fail over `orders-to-eu-west` and nothing on clusters, whose names it does not speak of. An unnamed
 * resource (creating a mirror, a receiver) needs a global grant.
 */
export function grantCovers(grant: Grant, resource: Resource): boolean {
  if (isGlobal(grant)) return true
  if (resource === null) return false
  return 'cluster' in resource ? anyMatches(grant.clusters, resource.cluster) : anyMatches(grant.mirrors, resource.mirror)
}

export function allows(grants: readonly Grant[], required: GrantRole, resource: Resource): boolean {
  return grants.some((grant) => roleAtLeast(grant.role, required) && grantCovers(grant, resource))
}

/**
 * Reading a list (every mirror, every cluster) needs a viewer grant somewhere; what the list shows is not
 * filtered by scope (docs/security.md says so).
 */
export function allowsSomewhere(grants: readonly Grant[], required: GrantRole): boolean {
  return grants.some((grant) => roleAtLeast(grant.role, required))
}

/** The strongest role of any grant, scoped or not (the header's badge, the audit entry's `role`). */
export function highestRole(grants: readonly Grant[]): GrantRole | null {
  let best: GrantRole | null = null
  for (const grant of grants) if (best === null || RANK[grant.role] > RANK[best]) best = grant.role
  return best
}

/** Why `allows` said no, in words a person can act on (the API's 403 message, a disabled button's title). */
export function refusalReason(grants: readonly Grant[], required: GrantRole, resource: Resource): string {
  const what = resource === null ? 'this' : 'cluster' in resource ? `cluster ${resource.cluster}` : `mirror ${resource.mirror}`
  if (!allowsSomewhere(grants, required)) return `this action needs the ${required} role`
  if (resource === null) return `this action needs the ${required} role on every cluster and mirror; your ${required} role is limited to some`
  return `your ${required} role does not extend to ${what}`
}

/** One grant in words: "operator on mirrors matching .*-to-eu-west", "viewer everywhere". */
export function describeGrant(grant: Grant): string {
  if (isGlobal(grant)) return `${grant.role} everywhere`
  const parts = [
    ...(grant.clusters === undefined ? [] : [`clusters matching ${grant.clusters.join(', ')}`]),
    ...(grant.mirrors === undefined ? [] : [`mirrors matching ${grant.mirrors.join(', ')}`]),
  ]
  return `${grant.role} on ${parts.join(' and ')}`
}
