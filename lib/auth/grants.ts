import { z } from 'zod'
import { matchesNamePattern } from '../mirror/name-patterns'
import { allowsWith, grantCoversWith, type Grant as GrantShape, type GrantRole as GrantRoleShape, type Resource } from './grant-rules'

/**
 * What a signed-in person or a token may do, and where (API.md "Round 3 · Identity"). A grant is a role,
 * optionally limited to clusters and mirrors by name patterns (RE2, whole-name match, as the mirror's topic
 * patterns). The one place that decides "may this caller do that to this resource": the API's authorisation
 * (server/http/auth.ts) and the pages that hide or disable a control both call `allows` — the browser through
 * ./grant-rules.ts, the same rules without this module's zod schemas and re2js.
 */

export { allowsSomewhere, describeGrant, highestRole, isGlobal, refusalReason, roleAtLeast, type Resource } from './grant-rules'

export const GrantRole = z.enum(['viewer', 'operator', 'admin'])
export type GrantRole = z.infer<typeof GrantRole>

export const Grant = z.strictObject({
  role: GrantRole,
  /** Cluster name patterns; with `mirrors` absent too, the grant holds everywhere. */
  clusters: z.array(z.string()).optional(),
  mirrors: z.array(z.string()).optional(),
})
export type Grant = z.infer<typeof Grant>

// The plain types in ./grant-rules.ts (the browser's) and these schemas describe one grant: a compile error if not.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameGrant: Same<Grant, GrantShape> & Same<GrantRole, GrantRoleShape> = true
void sameGrant

export { matchesNamePattern }

/**
 * A scoped grant holds only on the resources its patterns name: `{ operator, mirrors: [".*-to-eu-west"] }` lets
 * its holder fail over `orders-to-eu-west` and nothing on clusters, whose names it does not speak of. An unnamed
 * resource (creating a mirror, a receiver) needs a global grant.
 */
export function grantCovers(grant: Grant, resource: Resource): boolean {
  return grantCoversWith(grant, resource, matchesNamePattern)
}

export function allows(grants: readonly Grant[], required: GrantRole, resource: Resource): boolean {
  return allowsWith(grants, required, resource, matchesNamePattern)
}
