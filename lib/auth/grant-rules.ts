/**
 * The rules of grants on plain data (lib/auth/grants.ts explains grants): what the browser's bundle needs to
 * hide or disable a control, without zod (the schemas) or re2js (the name patterns), which stay in grants.ts
 * for the server. Whether a scoped grant's pattern names a resource is asked of `matches`: grants.ts passes
 * RE2's whole-name match, the browser the same once it has loaded it (components/data/session-context.tsx).
 */

export type GrantRole = 'viewer' | 'operator' | 'admin'

export interface Grant {
  role: GrantRole
  /** Cluster name patterns; with `mirrors` absent too, the grant holds everywhere. */
  clusters?: string[] | undefined
  mirrors?: string[] | undefined
}

/** What an action is done to: a cluster, a mirror, or nothing named (a list, or creating something new). */
export type Resource = { cluster: string } | { mirror: string } | null

/** Whether the name pattern `pattern` matches all of `name`. */
export type PatternMatcher = (pattern: string, name: string) => boolean

const RANK: Record<GrantRole, number> = { viewer: 1, operator: 2, admin: 3 }

export function roleAtLeast(role: GrantRole, required: GrantRole): boolean {
  return RANK[role] >= RANK[required]
}

/** True when the grant names no cluster and no mirror: it holds on every resource and on unnamed ones. */
export function isGlobal(grant: Grant): boolean {
  return grant.clusters === undefined && grant.mirrors === undefined
}

function anyMatches(patterns: readonly string[] | undefined, name: string, matches: PatternMatcher): boolean {
  return patterns !== undefined && patterns.some((source) => matches(source, name))
}

/** grants.ts's `grantCovers`, with the pattern matching passed in. */
export function grantCoversWith(grant: Grant, resource: Resource, matches: PatternMatcher): boolean {
  if (isGlobal(grant)) return true
  if (resource === null) return false
  return 'cluster' in resource ? anyMatches(grant.clusters, resource.cluster, matches) : anyMatches(grant.mirrors, resource.mirror, matches)
}

/** grants.ts's `allows`, with the pattern matching passed in. */
export function allowsWith(grants: readonly Grant[], required: GrantRole, resource: Resource, matches: PatternMatcher): boolean {
  return grants.some((grant) => roleAtLeast(grant.role, required) && grantCoversWith(grant, resource, matches))
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
