import { describe, expect, it } from 'vitest'
import { NO_AUDIT_FILTERS, auditFiltersToQuery, auditFiltersToSearch, isFiltered, parseAuditFilters } from './audit-filters'

describe('audit filters', () => {
  it('round-trips through the address', () => {
    const filters = { actor: 'token:operator', action: 'mirror.*', outcome: 'rejected' as const, from: '2026-12-01T09:00', to: '2026-12-01T10:30' }
    const search = auditFiltersToSearch(filters)
    expect(parseAuditFilters(Object.fromEntries(new URLSearchParams(search)))).toEqual(filters)
  })

  it('drops unknown outcomes and malformed times instead of guessing', () => {
    expect(parseAuditFilters({ outcome: 'maybe', from: 'yesterday', to: '2026-13-45T99:99', actor: ['a', 'b'] })).toEqual({ ...NO_AUDIT_FILTERS, actor: 'a' })
    expect(auditFiltersToSearch(NO_AUDIT_FILTERS)).toBe('')
    expect(isFiltered(NO_AUDIT_FILTERS)).toBe(false)
  })

  it('reads times as UTC and includes the whole minute `to` names', () => {
    const query = auditFiltersToQuery({ ...NO_AUDIT_FILTERS, from: '2026-12-01T09:00', to: '2026-12-01T09:00' })
    expect(query).toEqual({ from: Date.UTC(2026, 11, 1, 9, 0), to: Date.UTC(2026, 11, 1, 9, 1) })
    expect(auditFiltersToQuery({ ...NO_AUDIT_FILTERS, outcome: 'ok', actor: 'x' })).toEqual({ outcome: 'ok', actor: 'x' })
  })
})
