import { RE2JS } from 're2js'

/**
 * Topic and group patterns (`topics.include`/`exclude`, `groups.*`, start patterns) match whole names with
 * RE2's linear-time engine (re2js, a JavaScript port: no native build, same results in the browser's preview).
 * They run on the server's event loop against names anyone able to create a topic or a group on the source
 * cluster chooses: a backtracking engine took seconds for `(a+)+b` against 27 characters, doubling with each
 * one, with failovers waiting behind it. RE2 has no backreferences or lookaround; a pattern using them is
 * refused (VALIDATION_FAILED at the API), as is anything else it does not accept.
 */

/** Compiled patterns kept; beyond this many the least recently used are compiled again when next needed. */
export const PATTERN_CACHE_SIZE = 1000

export interface NamePattern {
  readonly source: string
  /** True when the whole name matches. */
  matches(name: string): boolean
}

const cache = new Map<string, NamePattern>()

function compile(source: string): NamePattern {
  const compiled = RE2JS.compile(source)
  return { source, matches: (name) => compiled.matches(name) }
}

/** Why `source` is not a pattern (RE2's message), or null when it is one. */
export function namePatternProblem(source: string): string | null {
  if (cache.has(source)) return null
  try {
    compile(source)
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** The compiled pattern, from a cache bounded to PATTERN_CACHE_SIZE; throws RE2's error for an invalid one. */
export function namePattern(source: string): NamePattern {
  let pattern = cache.get(source)
  if (pattern !== undefined) {
    // Most recently used last: Map keeps insertion order.
    cache.delete(source)
    cache.set(source, pattern)
    return pattern
  }
  pattern = compile(source)
  cache.set(source, pattern)
  if (cache.size > PATTERN_CACHE_SIZE) {
    const oldest = cache.keys().next()
    if (!oldest.done) cache.delete(oldest.value)
  }
  return pattern
}

/** RE2's whole-name match of `name` by `pattern`, compiled patterns cached: grant-rules.ts's PatternMatcher. */
export function matchesNamePattern(pattern: string, name: string): boolean {
  return namePattern(pattern).matches(name)
}

/** How many compiled patterns are kept now (for tests of the bound). */
export function cachedPatternCount(): number {
  return cache.size
}
