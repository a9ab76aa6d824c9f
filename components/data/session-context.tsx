'use client'

import { createContext, useContext, type ReactNode } from 'react'
import type { Role } from '@/lib/api/session'

/** Who is signed in, as the server saw it when it rendered the page (server/pages/session.ts). */
export interface PageSession {
  readonly role: Role
  readonly demo: boolean
}

const SessionContext = createContext<PageSession | null>(null)

export function SessionProvider({ session, children }: { session: PageSession | null; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

/** The signed-in session, or null on pages that anyone may see (the sign-in page). */
export function usePageSession(): PageSession | null {
  return useContext(SessionContext)
}

/** True for operators: controls that change something are rendered only then (viewers never see them). */
export function useCanOperate(): boolean {
  return useContext(SessionContext)?.role === 'operator'
}
