'use client'

import { createContext, useContext, type ReactNode } from 'react'
import type { Role } from '@/lib/api/session'
import { allows, allowsSomewhere, refusalReason, type Grant, type GrantRole, type Resource } from '@/lib/auth/grants'

/** Who is signed in, as the server saw it when it rendered the page (server/pages/session.ts). */
export interface PageSession {
  readonly role: Role
  readonly demo: boolean
  /** What they may do where; the operator token is `admin` everywhere (lib/auth/grants.ts). */
  readonly grants: readonly Grant[]
  /** Signed in through the identity provider, or with a token. */
  readonly method: 'oidc' | 'token'
  /** The person's name (provider sign-ins), else null. */
  readonly name: string | null
  readonly email: string | null
}

const SessionContext = createContext<PageSession | null>(null)

export function SessionProvider({ session, children }: { session: PageSession | null; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

/** The signed-in session, or null on pages that anyone may see (the sign-in page). */
export function usePageSession(): PageSession | null {
  return useContext(SessionContext)
}

/**
 * True when the signed-in person may change `resource` (a mirror, a cluster) as an operator; without one, when
 * they may everywhere (creating a mirror). The API checks the same grants (server/http/auth.ts): a control
 * shown here is one the server accepts.
 */
export function useCanOperate(resource: Resource = null): boolean {
  return useCan('operator', resource)
}

export function useCan(role: GrantRole, resource: Resource = null): boolean {
  const session = useContext(SessionContext)
  return session !== null && allows(session.grants, role, resource)
}

/** True when the person holds `role` somewhere, scoped or not (a form that then offers only what it reaches). */
export function useCanSomewhere(role: GrantRole): boolean {
  const session = useContext(SessionContext)
  return session !== null && allowsSomewhere(session.grants, role)
}

/** For lists of resources (a hook cannot be called per row): whether the person may act on each as `role`. */
export function useMayAct(role: GrantRole): (resource: Resource) => boolean {
  const session = useContext(SessionContext)
  return (resource) => session !== null && allows(session.grants, role, resource)
}

/**
 * Why the person may not operate on `resource` when they are an operator elsewhere (a disabled control says it);
 * null when they may, or when they are a viewer everywhere (viewers see no controls at all).
 */
export function useOperateRefusal(resource: Resource): string | null {
  const session = useContext(SessionContext)
  if (session === null || allows(session.grants, 'operator', resource) || !allowsSomewhere(session.grants, 'operator')) return null
  return refusalReason(session.grants, 'operator', resource)
}
