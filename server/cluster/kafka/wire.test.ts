import { describe, expect, it } from 'vitest'
import { WireReader, WireWriter } from './wire'

describe('Kafka wire primitives', () => {
  it('round-trips fixed-width integers, strings, compact strings and arrays', () => {
    const bytes = new WireWriter()
      .int8(-1)
      .int16(-2)
      .int32(2_000_000_000)
      .int64(2 ** 40 + 7)
      .bool(true)
      .string('topic')
      .compactString('naïve')
      .compactNullableString(null)
      .array([1, 2], (w, n) => w.int32(n))
      .compactArray([3, 4, 5], (w, n) => w.int16(n))
      .compactArray(null, () => undefined)
      .toBuffer()
    const r = new WireReader(bytes)
    expect([r.int8(), r.int16(), r.int32(), r.int64(), r.bool(), r.string(), r.compactString(), r.compactNullableString()]).toEqual([-1, -2, 2_000_000_000, 2 ** 40 + 7, true, 'topic', 'naïve', null])
    expect(r.array((x) => x.int32())).toEqual([1, 2])
    expect(r.compactArray((x) => x.int16())).toEqual([3, 4, 5])
    expect(r.compactArray((x) => x.int16())).toEqual([])
  })

  it('writes unsigned varints as the protocol does (7 bits a byte, low first)', () => {
    expect([...new WireWriter().uvarint(0).toBuffer()]).toEqual([0])
    expect([...new WireWriter().uvarint(127).toBuffer()]).toEqual([127])
    expect([...new WireWriter().uvarint(300).toBuffer()]).toEqual([0xac, 0x02])
    for (const value of [0, 1, 127, 128, 16_383, 16_384, 2 ** 31 - 1]) expect(new WireReader(new WireWriter().uvarint(value).toBuffer()).uvarint()).toBe(value)
  })

  it('hands known tagged fields to their readers and skips the others', () => {
    const field = (tag: number, body: Buffer) => Buffer.concat([new WireWriter().uvarint(tag).uvarint(body.length).toBuffer(), body])
    const bytes = Buffer.concat([new WireWriter().uvarint(2).toBuffer(), field(0, new WireWriter().int32(7).int64(42).toBuffer()), field(9, Buffer.from('ignored')), new WireWriter().int16(5).toBuffer()])
    const r = new WireReader(bytes)
    let seen: number[] = []
    r.taggedFields({ 0: (f) => (seen = [f.int32(), f.int64()]) })
    expect(seen).toEqual([7, 42])
    expect(r.int16()).toBe(5)
  })

  it('refuses to read past the end of a truncated response', () => {
    expect(() => new WireReader(Buffer.from([0, 1])).int32()).toThrow(/truncated/)
  })
})
