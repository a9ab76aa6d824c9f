import 'server-only'
import { namePattern } from '@/lib/mirror/name-patterns'
import { EngineError } from '../errors'

/**
 * Topic and group patterns (topics.include/exclude, groups.include/exclude, start patterns) match whole
 * names. The only copy: the engine and the API's dry runs both match through here, in linear time
 * (lib/mirror/name-patterns.ts); compiled patterns are cached, up to a bound.
 */
export function compilePattern(pattern: string): { matches(name: string): boolean } {
  try {
    return namePattern(pattern)
  } catch (error) {
    throw new EngineError('VALIDATION_FAILED', `invalid topic pattern ${JSON.stringify(pattern)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => compilePattern(pattern).matches(name))
}

/** Included and not excluded; nothing is included by an empty include list. */
export function matchesFilters(name: string, include: readonly string[], exclude: readonly string[]): boolean {
  return include.length > 0 && matchesAny(name, include) && !matchesAny(name, exclude)
}
