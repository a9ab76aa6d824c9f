'use client'

import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import type { Role } from '@/lib/api/session'
import { allowsSomewhere, allowsWith, isGlobal, refusalReason, type Grant, type GrantRole, type PatternMatcher, type Resource } from '@/lib/auth/grant-rules'

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

interface SessionValue {
  readonly session: PageSession
  /** RE2's whole-name match once loaded; until then a scoped grant's patterns name nothing here (the server decides anyway). */
  readonly matches: PatternMatcher
}

const SessionContext = createContext<SessionValue | null>(null)

const NOT_LOADED: PatternMatcher = () => false

/**
 * re2js (about 45 KB compressed) is loaded only for a person whose grants are scoped by name patterns: with
 * global grants (the tokens, most roles files) no pattern is ever asked, and the pages' first load goes without it.
 */
export function SessionProvider({ session, children }: { session: PageSession | null; children: ReactNode }) {
  const scoped = session !== null && !session.grants.every(isGlobal)
  const [matches, setMatches] = useState<PatternMatcher | null>(null)
  useEffect(() => {
    if (!scoped) return
    let current = true
    void import('@/lib/mirror/name-patterns').then(({ matchesNamePattern }) => {
      if (current) setMatches(() => matchesNamePattern)
    })
    return () => {
      current = false
    }
  }, [scoped])
  const value = useMemo(() => (session === null ? null : { session, matches: matches ?? NOT_LOADED }), [session, matches])
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>
}

/** The signed-in session, or null on pages that anyone may see (the sign-in page). */
export function usePageSession(): PageSession | null {
  return useContext(SessionContext)?.session ?? null
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
  const value = useContext(SessionContext)
  return value !== null && allowsWith(value.session.grants, role, resource, value.matches)
}

/** True when the person holds `role` somewhere, scoped or not (a form that then offers only what it reaches). */
export function useCanSomewhere(role: GrantRole): boolean {
  const value = useContext(SessionContext)
  return value !== null && allowsSomewhere(value.session.grants, role)
}

/** For lists of resources (a hook cannot be called per row): whether the person may act on each as `role`. */
export function useMayAct(role: GrantRole): (resource: Resource) => boolean {
  const value = useContext(SessionContext)
  return (resource) => value !== null && allowsWith(value.session.grants, role, resource, value.matches)
}

/**
 * Why the person may not operate on `resource` when they are an operator elsewhere (a disabled control says it);
 * null when they may, or when they are a viewer everywhere (viewers see no controls at all).
 */
export function useOperateRefusal(resource: Resource): string | null {
  const value = useContext(SessionContext)
  if (value === null) return null
  const { grants } = value.session
  if (allowsWith(grants, 'operator', resource, value.matches) || !allowsSomewhere(grants, 'operator')) return null
  return refusalReason(grants, 'operator', resource)
}
