import 'server-only'
import type { Session } from '@/lib/api/session'
import type { Principal } from './auth'

/** GET /session's answer (and the sign-ins'): who, how, until when, and what they may do where. */
export function sessionBody(principal: Principal): Session {
  return {
    role: principal.role,
    via: principal.via,
    expiresAt: principal.sessionExpiresAt,
    method: principal.method,
    subject: principal.subject,
    ...(principal.name === undefined ? {} : { name: principal.name }),
    ...(principal.email === undefined ? {} : { email: principal.email }),
    roles: principal.grants,
  }
}
