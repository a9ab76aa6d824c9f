import { namePattern, type NamePattern } from '@/lib/mirror/name-patterns'

/**
 * Which source topics a new mirror takes, as the server decides it (server/api/mirror-api.ts `planCreate`):
 * patterns match whole topic names (`^(?:pattern)$`), the exclude patterns apply to what the include patterns
 * matched, and topics named explicitly are taken whatever the patterns say. Used for the live preview, so the
 * list the operator sees before the dry run is the list the dry run plans.
 */

export interface PatternPreview {
  /** Topics the mirror would start, sorted. */
  readonly taken: readonly string[]
  /** Topics an include pattern matched that an exclude pattern then removed. */
  readonly excluded: readonly string[]
  /** Patterns that are not valid regular expressions (the schema refuses them too). */
  readonly invalid: readonly string[]
  /** Named topics the source does not have. */
  readonly missing: readonly string[]
}

/** The default of `topics.exclude` (lib/mirror/constants.ts): internal topics are never mirrored by pattern. */
export const DEFAULT_TOPICS_EXCLUDE: readonly string[] = ['__.*']

/** The server's own matcher (linear time, RE2), so preview and dry run agree on every name. */
function compile(pattern: string): NamePattern | null {
  try {
    return namePattern(pattern)
  } catch {
    return null
  }
}

export function previewTopics(input: {
  readonly sourceTopics: readonly string[]
  readonly named: readonly string[]
  readonly include: readonly string[]
  readonly exclude: readonly string[]
}): PatternPreview {
  const invalid: string[] = []
  const compiled = (patterns: readonly string[]) =>
    patterns.flatMap((pattern) => {
      const regex = compile(pattern)
      if (regex === null) invalid.push(pattern)
      return regex === null ? [] : [regex]
    })
  const include = compiled(input.include)
  const exclude = compiled(input.exclude)
  const source = new Set(input.sourceTopics)
  const taken = new Set(input.named.filter((topic) => source.has(topic)))
  const excluded: string[] = []
  for (const topic of input.sourceTopics) {
    if (!include.some((regex) => regex.matches(topic))) continue
    if (exclude.some((regex) => regex.matches(topic))) {
      if (!taken.has(topic)) excluded.push(topic)
      continue
    }
    taken.add(topic)
  }
  return {
    taken: [...taken].sort(),
    excluded: excluded.sort(),
    invalid,
    missing: input.named.filter((topic) => !source.has(topic)),
  }
}
