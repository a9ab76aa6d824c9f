import 'server-only'
import { redactUrlsIn } from '@/lib/alerts/receiver-url'

/**
 * What an audit entry keeps of a request: enough to see what was asked, never a secret, never megabytes.
 * Secrets are recognised by field name (tokens, passwords, SASL and TLS settings) wherever they are nested,
 * and URLs anywhere keep only where they point (an alert receiver's URL holds its credentials and path token).
 *
 * The body is summarised before it is validated, so it is whatever a caller sent, anonymous ones included:
 * every summary fits a byte budget, object keys counted as well as values (a body of one 1 MB key would
 * otherwise make a 1 MB audit line).
 */
const SECRET_FIELD = /token|password|passwd|secret|authorization|cookie|credential|sasl|^ssl$|^ca$|private|apikey|api_key/i
const MAX_STRING = 256
const MAX_KEY = 64
const MAX_ITEMS = 20
const MAX_KEYS = 50
const MAX_DEPTH = 6
/** About what the serialised summary may take; it stops adding fields or items once this is spent. */
export const MAX_SUMMARY_BYTES = 4 * 1024

export const REDACTED = '[redacted]'

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text
}

/** JSON text length of a string, a close enough measure of its bytes in the line. */
function cost(text: string): number {
  return text.length + 3
}

class Budget {
  constructor(private left: number) {}
  get spent(): boolean {
    return this.left <= 0
  }
  take(bytes: number): void {
    this.left -= bytes
  }
}

function summarize(value: unknown, depth: number, budget: Budget): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') {
    budget.take(8)
    return value
  }
  if (typeof value === 'string') {
    const text = shorten(value.includes('://') ? redactUrlsIn(value) : value, MAX_STRING)
    budget.take(cost(text))
    return text
  }
  if (depth >= MAX_DEPTH) {
    budget.take(6)
    return '[…]'
  }
  if (Array.isArray(value)) {
    const items: unknown[] = []
    for (const item of value.slice(0, MAX_ITEMS)) {
      if (budget.spent) break
      items.push(summarize(item, depth + 1, budget))
    }
    if (value.length > items.length) items.push(`…(${value.length - items.length} more)`)
    return items
  }
  if (typeof value === 'object') {
    const result: Record<string, unknown> = {}
    const keys = Object.keys(value)
    let kept = 0
    for (const key of keys.slice(0, MAX_KEYS)) {
      if (budget.spent) break
      const name = shorten(key, MAX_KEY)
      budget.take(cost(name) + 1)
      result[name] = SECRET_FIELD.test(key) ? REDACTED : summarize((value as Record<string, unknown>)[key], depth + 1, budget)
      kept += 1
    }
    if (keys.length > kept) result['…'] = `${keys.length - kept} more fields`
    return result
  }
  return String(value)
}

/** The request as its audit entry keeps it: secrets redacted, within about `maxBytes` once serialised. */
export function summarizeRequest(value: unknown, maxBytes = MAX_SUMMARY_BYTES): unknown {
  return summarize(value, 0, new Budget(maxBytes))
}

/**
 * A dry run's plan for its audit entry: whole when it fits the same budget as a request, so the entry shows
 * exactly what the operator was shown; shortened like a request otherwise (a 10,000-partition plan).
 */
export function summarizePlan(plan: unknown): unknown {
  const text = JSON.stringify(plan) ?? 'null'
  return text.length <= MAX_SUMMARY_BYTES ? (JSON.parse(text) as unknown) : summarizeRequest(plan)
}

/** A value that lands in every entry whole (a target path, an error message), cut to `max` characters. */
export function capText(text: string, max: number): string {
  return shorten(text, max)
}
