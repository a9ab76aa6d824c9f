import { ApiTokenList, ApiTokenParams, CreateApiTokenRequest, CreatedApiToken } from '../tokens'
import { EMPTY, endpoint, V1 } from './endpoint'

/**
 * Named API tokens (lib/api/tokens.ts): an administrator's, as roles are (issue #39: "admin alone … manages
 * receivers and roles"). The list never holds a secret; the create answer holds it once.
 */
export const tokenEndpoints = {
  listApiTokens: endpoint({
    operationId: 'listApiTokens',
    method: 'GET',
    path: `${V1}/tokens`,
    role: 'admin',
    summary: 'Named API tokens: role, scopes, expiry, last use (never their secrets)',
    status: 200,
    response: ApiTokenList,
  }),
  createApiToken: endpoint({
    operationId: 'createApiToken',
    method: 'POST',
    path: `${V1}/tokens`,
    role: 'admin',
    summary: 'Create a named API token; the answer holds its secret, shown this once (only its hash is kept)',
    audit: 'token.create',
    body: CreateApiTokenRequest,
    status: 201,
    response: CreatedApiToken,
    // CONFLICT: a live token has that name, or the server holds its maximum of tokens.
    errors: ['CONFLICT'],
  }),
  revokeApiToken: endpoint({
    operationId: 'revokeApiToken',
    method: 'DELETE',
    path: `${V1}/tokens/{name}`,
    role: 'admin',
    summary: 'Revoke a named API token: its next request is refused',
    audit: 'token.revoke',
    params: ApiTokenParams,
    status: 204,
    response: EMPTY,
    errors: ['NOT_FOUND'],
  }),
} as const
