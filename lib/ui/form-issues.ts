import type { z } from 'zod'

/**
 * Inline validation from the API's own zod schemas: a form checks what it is about to send with the schema the
 * server parses it with, so the messages beside the fields are the ones a refusal would carry. Issues are keyed
 * by their path joined with "." (`sasl.username`, `records.0.value`); the first issue of a path wins.
 */
export type FieldIssues = Readonly<Record<string, string>>

export function issuesOf(schema: z.ZodType, value: unknown): FieldIssues {
  const result = schema.safeParse(value)
  if (result.success) return {}
  const issues: Record<string, string> = {}
  for (const issue of result.error.issues) {
    const key = issue.path.map(String).join('.')
    issues[key] ??= readable(issue)
  }
  return issues
}

/**
 * zod's default bound messages ("Too big: expected number to be <=9") read as a parser's; beside a field the
 * operator gets the bound itself. Schemas' own messages are kept as written.
 */
function readable(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_big' && issue.origin === 'number' && issue.message.startsWith('Too big')) {
    return issue.inclusive === false ? `Must be less than ${String(issue.maximum)}` : `At most ${String(issue.maximum)}`
  }
  if (issue.code === 'too_small' && issue.origin === 'number' && issue.message.startsWith('Too small')) {
    return issue.inclusive === false ? `Must be more than ${String(issue.minimum)}` : `At least ${String(issue.minimum)}`
  }
  return issue.message
}

/** The issue of a field or of anything below it (`configs` for `configs.retention.ms`). */
export function issueAt(issues: FieldIssues, path: string): string | undefined {
  if (issues[path] !== undefined) return issues[path]
  const below = Object.keys(issues).find((key) => key.startsWith(`${path}.`))
  return below === undefined ? undefined : issues[below]
}

/** One entry a line or comma-separated, trimmed, empties dropped: how lists are typed into a text box. */
export function splitList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

/** `key=value` lines (Kafka's properties form) into a map; a line without "=" is reported by its number. */
export function parseProperties(text: string): { values: Record<string, string>; badLines: number[] } {
  const values: Record<string, string> = {}
  const badLines: number[] = []
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) return
    const equals = trimmed.indexOf('=')
    if (equals <= 0) {
      badLines.push(index + 1)
      return
    }
    values[trimmed.slice(0, equals).trim()] = trimmed.slice(equals + 1).trim()
  })
  return { values, badLines }
}

/** A whole number typed in a box, or undefined when the box is empty; NaN for anything else (the schema refuses it). */
/** A number that may have a fraction (`1.5`); NaN for anything else, undefined when empty. */
export function decimalOrUndefined(text: string): number | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN
}

export function numberOrUndefined(text: string): number | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN
}
