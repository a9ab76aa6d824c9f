import { Session, SessionRequest } from '../session'
import { EMPTY, endpoint, V1 } from './endpoint'

export const sessionEndpoints = {
  createSession: endpoint({
    operationId: 'createSession',
    method: 'POST',
    path: `${V1}/session`,
    role: 'public',
    summary: 'Exchange a token for an httpOnly session cookie',
    audit: 'session.create',
    body: SessionRequest,
    status: 200,
    response: Session,
    // A token that matches neither role; too many sign-ins or failed ones from one source (Retry-After).
    errors: ['UNAUTHENTICATED', 'TOO_MANY_REQUESTS'],
  }),
  getSession: endpoint({
    operationId: 'getSession',
    method: 'GET',
    path: `${V1}/session`,
    role: 'viewer',
    summary: 'The role of the current credentials',
    status: 200,
    response: Session,
  }),
  deleteSession: endpoint({
    operationId: 'deleteSession',
    method: 'DELETE',
    path: `${V1}/session`,
    role: 'public',
    summary: 'End the session and clear its cookie',
    audit: 'session.delete',
    status: 204,
    response: EMPTY,
  }),
} as const
