import { describe, expect, it } from 'vitest'
import { hasMalformedPath } from './request-path'

describe('hasMalformedPath (issue #41 item 6)', () => {
  it('finds percent-encodings that do not decode, in the path only', () => {
    for (const path of ['/mirrors/%E0%A4%A', '/clusters/%ZZ', '/operations/%', '/%C0%AF', '/api/v1/mirrors/%FF/partitions']) expect(hasMalformedPath(path), path).toBe(true)
    for (const path of ['/', '/mirrors/dr', '/mirrors/%E0%A4%A4', '/audit?q=%ZZ', '/clusters/a%20b', undefined]) expect(hasMalformedPath(path), String(path)).toBe(false)
  })
})
