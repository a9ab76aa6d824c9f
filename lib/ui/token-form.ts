import { describeGrant, type GrantRole } from '../auth/grant-rules'
import type { ApiToken, CreateApiTokenRequest } from '../api/tokens'

/**
 * The tokens page's create form as the API's request (the server checks names and patterns; this only shapes
 * what was typed), and a token's scope in words.
 */

export interface TokenFormValues {
  name: string
  role: GrantRole
  /** Name patterns separated by spaces or new lines (a pattern has no spaces; commas may be part of one: `a{1,3}`). */
  mirrors: string
  clusters: string
  expiresInDays: string
}

function patterns(text: string): string[] | undefined {
  const list = text.split(/\s+/).filter((part) => part !== '')
  return list.length === 0 ? undefined : list
}

export function tokenRequestOf(values: TokenFormValues): CreateApiTokenRequest {
  const mirrors = patterns(values.mirrors)
  const clusters = patterns(values.clusters)
  const days = values.expiresInDays.trim()
  return {
    name: values.name.trim(),
    role: values.role,
    ...(mirrors === undefined ? {} : { mirrors }),
    ...(clusters === undefined ? {} : { clusters }),
    // Not a number: sent as typed, so the API's VALIDATION_FAILED names the field.
    ...(days === '' ? {} : { expiresInDays: /^\d+$/.test(days) ? Number(days) : (days as unknown as number) }),
  }
}

/** "operator on mirrors matching .*-to-eu-west", "admin everywhere". */
export function tokenScopeText(token: Pick<ApiToken, 'role' | 'clusters' | 'mirrors'>): string {
  return describeGrant({ role: token.role, ...(token.clusters === undefined ? {} : { clusters: token.clusters }), ...(token.mirrors === undefined ? {} : { mirrors: token.mirrors }) })
}
