import { describe, expect, it } from 'vitest'
import { colorWanted, dashIfUnknown, renderTable } from './format'

describe('tables for people', () => {
  const rows = [
    { name: 'orders', state: 'MIRRORING' },
    { name: 'payments-eu', state: 'FAILED' },
  ]
  const columns = [
    { header: 'TOPIC', value: (row: (typeof rows)[number]) => row.name },
    { header: 'STATE', value: (row: (typeof rows)[number]) => row.state, tone: (row: (typeof rows)[number]) => (row.state === 'FAILED' ? ('danger' as const) : null) },
  ]

  it('aligns every column to its widest cell, two spaces apart, with no trailing blanks', () => {
    expect(renderTable(rows, columns, { color: false })).toBe('TOPIC        STATE\norders       MIRRORING\npayments-eu  FAILED\n')
    expect(renderTable([], columns, { color: false })).toBe('TOPIC  STATE\n')
  })

  it('colours by tone only when asked, keeping the alignment, and keeps a cell on one line', () => {
    expect(renderTable(rows, columns, { color: true })).toBe('TOPIC        STATE\norders       MIRRORING\npayments-eu  \u001b[31mFAILED\u001b[0m\n')
    expect(renderTable([{ name: 'a\nb\tc', state: 'x' }], columns, { color: false })).toBe('TOPIC  STATE\na b c  x\n')
  })

  it('uses colour on a terminal unless NO_COLOR is set (to anything), TERM is dumb or --no-color is given', () => {
    expect(colorWanted({}, true, false)).toBe(true)
    expect(colorWanted({}, false, false)).toBe(false)
    expect(colorWanted({ NO_COLOR: '1' }, true, false)).toBe(false)
    expect(colorWanted({ NO_COLOR: '' }, true, false)).toBe(true)
    expect(colorWanted({ TERM: 'dumb' }, true, false)).toBe(false)
    expect(colorWanted({}, true, true)).toBe(false)
  })

  it('prints -1 as the KIP tool does', () => {
    expect([dashIfUnknown(-1), dashIfUnknown(null), dashIfUnknown(0), dashIfUnknown(12)]).toEqual(['-', '-', '0', '12'])
  })
})
