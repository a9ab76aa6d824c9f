import 'server-only'
import type { AuditInput } from './audit-input'

/**
 * Refused requests without valid credentials cost an attacker nothing, and each would be an fdatasync'd audit
 * line, an event on every open stream and a row on the audit page. They are collapsed per source address and
 * minute: the first is written as it comes (`count: 1`), the others of that minute are only counted, and one
 * entry with their count (and the last of them) is written when the minute is over. An authenticated caller's
 * refusals are each written: they say who tried what.
 */

interface Window {
  startedAt: number
  held: number
  last: AuditInput
}

/** Sources beyond this many in one minute (an attacker with many addresses) share one window. */
const MAX_SOURCES = 10_000
export const OTHER_SOURCES = '*'

export class AnonymousRejections {
  private readonly windows = new Map<string, Window>()

  constructor(
    private readonly now: () => number,
    readonly windowMs = 60_000,
  ) {}

  static applies(input: AuditInput): boolean {
    return input.actor === 'anonymous' && input.outcome === 'rejected'
  }

  /** The entries to write now: none when the request is counted into its source's window. */
  admit(source: string, input: AuditInput): AuditInput[] {
    const now = this.now()
    const key = this.windows.has(source) || this.windows.size < MAX_SOURCES ? source : OTHER_SOURCES
    const window = this.windows.get(key)
    if (window !== undefined && now - window.startedAt < this.windowMs) {
      window.held += 1
      window.last = input
      return []
    }
    // The source's previous minute, if it held requests back and was not written yet, comes first.
    const ended = window !== undefined && window.held > 0 ? [{ ...window.last, count: window.held, source: key }] : []
    this.windows.set(key, { startedAt: now, held: 0, last: input })
    return [...ended, { ...input, count: 1, source: key }]
  }

  /** Entries for the windows that ended with requests held back (all of them with `all`), each once. */
  due(all = false): AuditInput[] {
    const now = this.now()
    const entries: AuditInput[] = []
    for (const [source, window] of this.windows) {
      if (!all && now - window.startedAt < this.windowMs) continue
      this.windows.delete(source)
      if (window.held > 0) entries.push({ ...window.last, count: window.held, source })
    }
    return entries
  }
}
