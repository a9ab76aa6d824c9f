import { describe, expect, it } from 'vitest'
import { safeNextPath } from './next-path'

describe('safeNextPath (issue #41 item 2: no open redirect after sign-in)', () => {
  it.each([
    '/\\evil.example',
    '/\\/evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r/evil.example',
    '/\u0000/evil.example',
    '//evil.example',
    '///evil.example',
    '/.//evil.example',
    'https://evil.example/',
    'evil.example',
    'javascript:alert(1)',
    '',
  ])('refuses %j', (value) => {
    expect(safeNextPath(value)).toBe('/')
  })

  it('keeps paths of this app, query and fragment included', () => {
    expect(safeNextPath('/mirrors/dr?tab=partitions#p-3')).toBe('/mirrors/dr?tab=partitions#p-3')
    expect(safeNextPath('/')).toBe('/')
    expect(safeNextPath('/%5Cevil.example')).toBe('/%5Cevil.example')
    expect(safeNextPath('/a/../operations')).toBe('/operations')
  })

  it('takes the first of repeated parameters and defaults without one', () => {
    expect(safeNextPath(['/audit', '//evil.example'])).toBe('/audit')
    expect(safeNextPath(undefined)).toBe('/')
    expect(safeNextPath(null)).toBe('/')
  })
})
