/**
 * The audit page's filters as they travel in the address (so a filtered view can be bookmarked and shared):
 * `?actor=&action=&outcome=&from=&to=` with times as UTC `YYYY-MM-DDTHH:MM` (what a datetime-local input
 * holds, read as UTC like every time the app shows). Unknown or malformed values are dropped, never guessed.
 */
export type AuditOutcomeFilter = 'ok' | 'rejected' | 'failed'

export interface AuditFilterValues {
  readonly actor: string
  readonly action: string
  readonly outcome: AuditOutcomeFilter | ''
  /** UTC `YYYY-MM-DDTHH:MM`, or '' */
  readonly from: string
  readonly to: string
}

export const NO_AUDIT_FILTERS: AuditFilterValues = { actor: '', action: '', outcome: '', from: '', to: '' }

const OUTCOMES: readonly AuditOutcomeFilter[] = ['ok', 'rejected', 'failed']
const MINUTE_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/

export function parseAuditFilters(search: Readonly<Record<string, string | string[] | undefined>>): AuditFilterValues {
  const one = (key: string) => {
    const value = search[key]
    return (Array.isArray(value) ? value[0] : value)?.trim() ?? ''
  }
  const outcome = one('outcome')
  return {
    actor: one('actor').slice(0, 300),
    action: one('action').slice(0, 300),
    outcome: (OUTCOMES as readonly string[]).includes(outcome) ? (outcome as AuditOutcomeFilter) : '',
    from: utcMinuteToMs(one('from')) === undefined ? '' : one('from'),
    to: utcMinuteToMs(one('to')) === undefined ? '' : one('to'),
  }
}

/** The address query of these filters (empty ones left out). */
export function auditFiltersToSearch(filters: AuditFilterValues): string {
  const search = new URLSearchParams()
  for (const key of ['actor', 'action', 'outcome', 'from', 'to'] as const) if (filters[key] !== '') search.set(key, filters[key])
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}

/** The API query of these filters: times in ms; `to` includes the minute it names. */
export function auditFiltersToQuery(filters: AuditFilterValues): { actor?: string; action?: string; outcome?: AuditOutcomeFilter; from?: number; to?: number } {
  const to = utcMinuteToMs(filters.to)
  return {
    ...(filters.actor === '' ? {} : { actor: filters.actor }),
    ...(filters.action === '' ? {} : { action: filters.action }),
    ...(filters.outcome === '' ? {} : { outcome: filters.outcome }),
    ...(utcMinuteToMs(filters.from) === undefined ? {} : { from: utcMinuteToMs(filters.from) }),
    ...(to === undefined ? {} : { to: to + (filters.to.length > 16 ? 1_000 : 60_000) }),
  }
}

export function utcMinuteToMs(text: string): number | undefined {
  if (!MINUTE_PATTERN.test(text)) return undefined
  const ms = Date.parse(`${text}Z`)
  return Number.isFinite(ms) ? ms : undefined
}

export function isFiltered(filters: AuditFilterValues): boolean {
  return Object.values(filters).some((value) => value !== '')
}
