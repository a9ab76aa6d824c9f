import 'server-only'
import { redactUrlsIn } from '@/lib/alerts/receiver-url'

/**
 * What an audit entry keeps of a request: enough to see what was asked, never a secret, never megabytes.
 * Secrets are recognised by field name (tokens, passwords, SASL and TLS settings) wherever they are nested,
 * and URLs anywhere keep only where they point (an alert receiver's URL holds its credentials and path token).
 */
const SECRET_FIELD = /token|password|passwd|secret|authorization|cookie|credential|sasl|^ssl$|^ca$|private|apikey|api_key/i
const MAX_STRING = 256
const MAX_ITEMS = 20
const MAX_KEYS = 50
const MAX_DEPTH = 6

export const REDACTED = '[redacted]'

export function summarizeRequest(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value
  if (typeof value === 'string') {
    const text = value.includes('://') ? redactUrlsIn(value) : value
    return text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…(${text.length} chars)` : text
  }
  if (depth >= MAX_DEPTH) return '[…]'
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => summarizeRequest(item, depth + 1))
    if (value.length > MAX_ITEMS) items.push(`…(${value.length - MAX_ITEMS} more)`)
    return items
  }
  if (typeof value === 'object') {
    const result: Record<string, unknown> = {}
    const entries = Object.entries(value)
    for (const [key, item] of entries.slice(0, MAX_KEYS)) result[key] = SECRET_FIELD.test(key) ? REDACTED : summarizeRequest(item, depth + 1)
    if (entries.length > MAX_KEYS) result['…'] = `${entries.length - MAX_KEYS} more fields`
    return result
  }
  return String(value)
}

/** Plans above this size (serialised) are kept in shortened form, like requests. */
const MAX_PLAN_BYTES = 256 * 1024

/**
 * A dry run's plan for its audit entry: whole when it is of reasonable size, so the entry shows exactly
 * what the operator was shown; shortened when it would make the line enormous.
 */
export function summarizePlan(plan: unknown): unknown {
  const text = JSON.stringify(plan) ?? 'null'
  return text.length <= MAX_PLAN_BYTES ? (JSON.parse(text) as unknown) : summarizeRequest(plan)
}
