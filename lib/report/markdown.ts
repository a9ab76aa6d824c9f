/**
 * The few Markdown pieces the downloadable reports are written with (GitHub-flavoured: tables, lists,
 * code spans), so every report escapes the same way. Pure text; no HTML.
 */

/** A table cell: pipes escaped, line breaks folded, so a detail from a log never breaks the table. */
export function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—'
  return String(value).replaceAll('\\', '\\\\').replaceAll('|', '\\|').replace(/\r?\n/g, ' ')
}

/** A GitHub-flavoured table; `align` per column ('r' right-aligns numbers). */
export function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>, align: ReadonlyArray<'l' | 'r'> = []): string {
  const line = (cells: ReadonlyArray<string | number | null | undefined>) => `| ${cells.map(cell).join(' | ')} |`
  const rule = `| ${header.map((_, index) => (align[index] === 'r' ? '---:' : '---')).join(' | ')} |`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

/** Inline code, safe for names and ids that hold backticks. */
export function code(value: string | number): string {
  const text = String(value)
  const fence = text.includes('`') ? '``' : '`'
  return `${fence}${text}${fence}`
}

/** Text outside tables: characters Markdown would read as emphasis or links are escaped. */
export function text(value: string): string {
  return value.replace(/([\\`*_[\]<>#|])/g, '\\$1')
}

/** "2026-12-06 01:02:03.456 UTC": to the millisecond, as a timeline needs. */
export function utc(at: number): string {
  return `${new Date(at).toISOString().replace('T', ' ').replace('Z', '')} UTC`
}

/** Sections joined with blank lines, empty ones left out, ending in one newline. */
export function document(sections: ReadonlyArray<string | null>): string {
  return `${sections.filter((section): section is string => section !== null && section !== '').join('\n\n')}\n`
}
