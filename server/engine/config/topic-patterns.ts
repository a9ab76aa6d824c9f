import 'server-only'
import { EngineError } from '../errors'

/**
 * Topic and group patterns (topics.include/exclude, groups.include/exclude, start patterns) match whole
 * names. The only copy: the engine and the API's dry runs both match through here. Compiled once per
 * pattern: a sync matches every source topic against them.
 */
const compiled = new Map<string, RegExp>()

export function compilePattern(pattern: string): RegExp {
  let regex = compiled.get(pattern)
  if (regex) return regex
  try {
    regex = new RegExp(`^(?:${pattern})$`)
  } catch (error) {
    throw new EngineError('VALIDATION_FAILED', `invalid topic pattern ${JSON.stringify(pattern)}`, { cause: error })
  }
  compiled.set(pattern, regex)
  return regex
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => compilePattern(pattern).test(name))
}

/** Included and not excluded; nothing is included by an empty include list. */
export function matchesFilters(name: string, include: readonly string[], exclude: readonly string[]): boolean {
  return include.length > 0 && matchesAny(name, include) && !matchesAny(name, exclude)
}
