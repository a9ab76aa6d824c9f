import { mirrorEndpoints } from '@/lib/api/endpoints'
import type { Mirror } from '@/lib/api/mirrors'
import { namePattern, namePatternProblem } from '@/lib/mirror/name-patterns'
import type { Api } from './api'
import { RefusedError } from './exit'
import type { Flags } from './flags'

/**
 * What several actions read the same way: `--topics 'regex,…'` (RE2 whole-name patterns, checked before anything
 * is sent, as the server would check them), the topics of a mirror they select, and the mirror itself.
 */

/** The patterns of a comma list flag, each checked as RE2 reads it; undefined when the flag is absent. */
export function patternsOf(flags: Flags, name: string): string[] | undefined {
  const patterns = flags.list(name)
  for (const pattern of patterns ?? []) {
    const problem = namePatternProblem(pattern)
    if (problem !== null) throw flags.usageError(`--${name} '${pattern}' is not a pattern (RE2, no backreferences or lookaround): ${problem}`)
  }
  return patterns
}

/** The mirror's topics the patterns select, in the mirror's order; all of them without patterns. */
export function selectTopics(mirror: Pick<Mirror, 'name' | 'topics'>, patterns: readonly string[] | undefined): string[] {
  if (patterns === undefined) return [...mirror.topics]
  const compiled = patterns.map((pattern) => namePattern(pattern))
  const selected = mirror.topics.filter((topic) => compiled.some((pattern) => pattern.matches(topic)))
  if (selected.length === 0) {
    throw new RefusedError('NOT_FOUND', `no topic of mirror ${mirror.name} matches ${patterns.join(', ')} (its topics: ${mirror.topics.join(', ') || 'none'})`)
  }
  return selected
}

export async function readMirror(api: Api, name: string): Promise<Mirror> {
  return api.call(mirrorEndpoints.getMirror, { params: { mirror: name } })
}

/** `"<version>"`, the If-Match of a change made on what was just read. */
export function ifMatch(mirror: Pick<Mirror, 'stateVersion'>): Record<string, string> {
  return { 'if-match': `"${mirror.stateVersion}"` }
}
