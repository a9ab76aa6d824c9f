import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { crc32cJs } from '@/lib/log/crc32c-js'
import { crc32c } from './crc32c'

describe('native CRC32C', () => {
  it('has the Castagnoli check value e3069283 for "123456789"', () => {
    expect(crc32c(Buffer.from('123456789')).toString(16)).toBe('e3069283')
  })

  it('agrees with the pure-JS table implementation, also on sub-array views', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.nat(50), (bytes, skip) => {
        const view = bytes.subarray(Math.min(skip, bytes.length))
        expect(crc32c(view)).toBe(crc32cJs(view))
      }),
    )
  })
})
