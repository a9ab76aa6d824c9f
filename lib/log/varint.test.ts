import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ByteReader, readInt64, sizeOfVarint, sizeOfVarlong, writeInt64, writeVarint, writeVarlong } from './varint'
import { isStorageError } from './errors'

function encodeVarint(value: number): number[] {
  const bytes = new Uint8Array(sizeOfVarint(value))
  expect(writeVarint(bytes, 0, value)).toBe(bytes.length)
  return [...bytes]
}

function encodeVarlong(value: number): number[] {
  const bytes = new Uint8Array(sizeOfVarlong(value))
  expect(writeVarlong(bytes, 0, value)).toBe(bytes.length)
  return [...bytes]
}

describe('varint (zigzag int32)', () => {
  it.each([
    [0, [0x00]],
    [-1, [0x01]],
    [1, [0x02]],
    [-64, [0x7f]],
    [64, [0x80, 0x01]],
    [300, [0xd8, 0x04]],
    [2147483647, [0xfe, 0xff, 0xff, 0xff, 0x0f]],
    [-2147483648, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  ])('encodes %d as Kafka does', (value, expected) => {
    expect(encodeVarint(value)).toEqual(expected)
    expect(new ByteReader(Uint8Array.from(expected), 0, expected.length).varint()).toBe(value)
  })

  it('round-trips every int32', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), (value) => {
        const bytes = Uint8Array.from(encodeVarint(value))
        const reader = new ByteReader(bytes, 0, bytes.length)
        expect(reader.varint()).toBe(value)
        expect(reader.pos).toBe(bytes.length)
      }),
    )
  })

  it('refuses a varint longer than 5 bytes and one cut short', () => {
    const tooLong = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
    expect(() => new ByteReader(tooLong, 0, tooLong.length).varint()).toThrow(/longer than 5/)
    const cut = Uint8Array.from([0x80, 0x80])
    let error: unknown
    try {
      new ByteReader(cut, 0, cut.length).varint()
    } catch (e) {
      error = e
    }
    expect(isStorageError(error, 'CORRUPT_RECORD')).toBe(true)
  })
})

describe('varlong (zigzag int64)', () => {
  it.each([
    [0, [0x00]],
    [-1, [0x01]],
    [1073741824, [0x80, 0x80, 0x80, 0x80, 0x08]],
    [-1073741825, [0x81, 0x80, 0x80, 0x80, 0x08]],
    [4294967296, [0x80, 0x80, 0x80, 0x80, 0x20]],
    [1700000000000, [0x80, 0xa0, 0xab, 0xfe, 0xf9, 0x62]],
    [Number.MAX_SAFE_INTEGER, [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f]],
    [Number.MIN_SAFE_INTEGER, [0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f]],
  ])('encodes %d exactly', (value, expected) => {
    expect(encodeVarlong(value)).toEqual(expected)
    expect(new ByteReader(Uint8Array.from(expected), 0, expected.length).varlong()).toBe(value)
  })

  it('round-trips every safe integer', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (value) => {
        const bytes = Uint8Array.from(encodeVarlong(value))
        const reader = new ByteReader(bytes, 0, bytes.length)
        expect(reader.varlong()).toBe(value)
        expect(reader.pos).toBe(bytes.length)
      }),
    )
  })

  it('refuses a varlong beyond the safe integer range instead of rounding it', () => {
    // zigzag(2^60) as a 9-byte varlong
    const bytes = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20])
    expect(() => new ByteReader(bytes, 0, bytes.length).varlong()).toThrow(/safe integer/)
  })
})

describe('int64', () => {
  it.each([0, 1, -1, 4294967295, 4294967296, -4294967297, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])('round-trips %d', (value) => {
    const view = new DataView(new ArrayBuffer(8))
    writeInt64(view, 0, value)
    expect(view.getBigInt64(0)).toBe(BigInt(value))
    expect(readInt64(view, 0)).toBe(value)
  })

  it('writes -1 as eight 0xff bytes (producerId -1 on disk)', () => {
    const view = new DataView(new ArrayBuffer(8))
    writeInt64(view, 0, -1)
    expect([...new Uint8Array(view.buffer)]).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
  })

  it('refuses an int64 beyond 2^53 on read', () => {
    const view = new DataView(new ArrayBuffer(8))
    view.setBigInt64(0, 2n ** 60n)
    expect(() => readInt64(view, 0)).toThrow(/safe integer/)
  })
})
