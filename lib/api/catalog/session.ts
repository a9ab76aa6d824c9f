import { OidcSignInQuery, Session, SessionRequest, SignOut } from '../session'
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
    // FORBIDDEN: token sign-in is turned off for people (MIRRORBOARD_TOKEN_SIGN_IN=0).
    errors: ['UNAUTHENTICATED', 'TOO_MANY_REQUESTS', 'FORBIDDEN'],
  }),
  getSession: endpoint({
    operationId: 'getSession',
    method: 'GET',
    path: `${V1}/session`,
    role: 'viewer',
    summary: 'Who the current credentials are, their roles and where they hold',
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
  startOidcSignIn: endpoint({
    operationId: 'startOidcSignIn',
    method: 'GET',
    path: `${V1}/auth/oidc/login`,
    role: 'public',
    summary: "Send the browser to the identity provider's sign-in (authorization code with PKCE)",
    query: OidcSignInQuery,
    status: 302,
    response: EMPTY,
    // NOT_FOUND: no identity provider is configured. A provider that does not answer sends the browser to the
    // sign-in page with `signInError` (303), as every refused sign-in does.
    errors: ['NOT_FOUND'],
  }),
  finishOidcSignIn: endpoint({
    operationId: 'finishOidcSignIn',
    method: 'GET',
    path: `${V1}/auth/oidc/callback`,
    role: 'public',
    summary: 'Where the identity provider sends the browser back: opens the session and continues (200, a page that moves on), or goes to the sign-in page with `signInError` (303); both audited',
    status: 200,
    response: { kind: 'text', contentType: 'text/html' },
    errors: ['NOT_FOUND'],
  }),
  signOut: endpoint({
    operationId: 'signOut',
    method: 'POST',
    path: `${V1}/auth/logout`,
    role: 'public',
    summary: "End the session, and name the identity provider's sign-out page when it has one",
    audit: 'session.delete',
    status: 200,
    response: SignOut,
  }),
} as const
