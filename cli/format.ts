import { stringify } from 'yaml'
import type { StateTone } from '@/lib/ui/state-style'

/**
 * How results are printed: tables aligned for people (left-aligned columns, as Kafka's tools print them, two
 * spaces apart, no trailing blanks), JSON or YAML for machines. Colour comes from the dashboard's tone of a
 * state or status (lib/ui/state-style.ts, status-style.ts), so FAILED is red here as there; it is used only on a
 * terminal, and never when NO_COLOR is set (https://no-color.org), TERM is dumb or --no-color is given.
 */

export type OutputFormat = 'table' | 'json' | 'yaml'
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml']

export interface Column<R> {
  readonly header: string
  readonly value: (row: R) => string
  /** The tone that colours the cell (its state or status); none by default. */
  readonly tone?: (row: R) => StateTone | null
}

export interface Style {
  readonly color: boolean
}

// Standard ANSI colours, which every terminal theme maps to readable shades.
const ANSI: Record<StateTone, string> = {
  neutral: '',
  progress: '\u001b[36m',
  healthy: '\u001b[32m',
  paused: '\u001b[33m',
  done: '\u001b[35m',
  danger: '\u001b[31m',
}
const RESET = '\u001b[0m'
const BOLD = '\u001b[1m'

export function paint(text: string, tone: StateTone | null, style: Style): string {
  const code = tone === null ? '' : ANSI[tone]
  return style.color && code !== '' ? `${code}${text}${RESET}` : text
}

export function bold(text: string, style: Style): string {
  return style.color ? `${BOLD}${text}${RESET}` : text
}

/** Colour unless NO_COLOR (any non-empty value), TERM=dumb or --no-color, and only on a terminal. */
export function colorWanted(env: Readonly<Record<string, string | undefined>>, isTty: boolean, noColorFlag: boolean): boolean {
  if (noColorFlag || !isTty) return false
  if ((env.NO_COLOR ?? '') !== '') return false
  return env.TERM !== 'dumb'
}

/** Rows under their headers, every column as wide as its widest cell; a table with no rows is its header alone. */
export function renderTable<R>(rows: readonly R[], columns: readonly Column<R>[], style: Style): string {
  const cells = rows.map((row) => columns.map((column) => clean(column.value(row))))
  const widths = columns.map((column, index) => Math.max(column.header.length, ...cells.map((row) => (row[index] ?? '').length)))
  const line = (values: readonly string[], tones: ReadonlyArray<StateTone | null>) =>
    values
      .map((value, index) => {
        const padded = index === values.length - 1 ? value : value.padEnd(widths[index] ?? 0)
        return paint(padded, tones[index] ?? null, style)
      })
      .join('  ')
      .trimEnd()
  const header = line(
    columns.map((column) => column.header),
    columns.map(() => null),
  )
  const body = rows.map((row, rowIndex) =>
    line(
      cells[rowIndex] ?? [],
      columns.map((column) => column.tone?.(row) ?? null),
    ),
  )
  return [header, ...body].join('\n') + '\n'
}

/** `key: value` lines, keys aligned, for one object (a mirror, a cluster). */
export function renderFields(fields: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(0, ...fields.map(([key]) => key.length))
  return fields.map(([key, value]) => `${`${key}:`.padEnd(width + 1)} ${clean(value)}`.trimEnd()).join('\n') + '\n'
}

export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

export function renderYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 })
}

/** A cell holds one line: server text (an error message) with newlines or tabs would break the columns. */
function clean(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ')
}

/** -1 (Kafka's "not known") as the tool prints it. */
export function dashIfUnknown(value: number | null | undefined): string {
  return value === null || value === undefined || value < 0 ? '-' : String(value)
}
