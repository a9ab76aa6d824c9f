import 'server-only'

/**
 * Kafka protocol primitives for the requests kafkajs does not implement (or implements at versions too old to
 * carry topic ids, leader epochs or diverging epochs): fixed-width integers, (compact) strings and arrays,
 * unsigned varints and tagged fields of the "flexible" versions (KIP-482). Big-endian, as the protocol is.
 */

export class WireWriter {
  private chunks: Buffer[] = []

  private push(buffer: Buffer): this {
    this.chunks.push(buffer)
    return this
  }

  int8(value: number): this {
    const b = Buffer.allocUnsafe(1)
    b.writeInt8(value)
    return this.push(b)
  }

  int16(value: number): this {
    const b = Buffer.allocUnsafe(2)
    b.writeInt16BE(value)
    return this.push(b)
  }

  int32(value: number): this {
    const b = Buffer.allocUnsafe(4)
    b.writeInt32BE(value)
    return this.push(b)
  }

  int64(value: number): this {
    const b = Buffer.allocUnsafe(8)
    b.writeBigInt64BE(BigInt(value))
    return this.push(b)
  }

  bool(value: boolean): this {
    return this.int8(value ? 1 : 0)
  }

  uvarint(value: number): this {
    const bytes: number[] = []
    let rest = value >>> 0
    while (rest >= 0x80) {
      bytes.push((rest & 0x7f) | 0x80)
      rest >>>= 7
    }
    bytes.push(rest)
    return this.push(Buffer.from(bytes))
  }

  string(value: string): this {
    const b = Buffer.from(value, 'utf8')
    return this.int16(b.length).push(b)
  }

  compactString(value: string): this {
    const b = Buffer.from(value, 'utf8')
    return this.uvarint(b.length + 1).push(b)
  }

  compactNullableString(value: string | null): this {
    return value === null ? this.uvarint(0) : this.compactString(value)
  }

  uuid(bytes: Buffer): this {
    return this.push(Buffer.from(bytes.subarray(0, 16)))
  }

  array<T>(items: readonly T[], each: (writer: this, item: T) => void): this {
    this.int32(items.length)
    for (const item of items) each(this, item)
    return this
  }

  compactArray<T>(items: readonly T[] | null, each: (writer: this, item: T) => void): this {
    if (items === null) return this.uvarint(0)
    this.uvarint(items.length + 1)
    for (const item of items) each(this, item)
    return this
  }

  /** An empty tagged-field section: we never send tagged fields. */
  noTaggedFields(): this {
    return this.uvarint(0)
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

export class WireReader {
  private pos = 0

  constructor(private readonly buffer: Buffer) {}

  private need(bytes: number): void {
    if (this.pos + bytes > this.buffer.length) throw new RangeError(`response truncated: need ${bytes} bytes at ${this.pos} of ${this.buffer.length}`)
  }

  int8(): number {
    this.need(1)
    return this.buffer.readInt8(this.pos++)
  }

  int16(): number {
    this.need(2)
    const value = this.buffer.readInt16BE(this.pos)
    this.pos += 2
    return value
  }

  int32(): number {
    this.need(4)
    const value = this.buffer.readInt32BE(this.pos)
    this.pos += 4
    return value
  }

  int64(): number {
    this.need(8)
    const value = this.buffer.readBigInt64BE(this.pos)
    this.pos += 8
    return Number(value)
  }

  bool(): boolean {
    return this.int8() !== 0
  }

  uvarint(): number {
    let value = 0
    let shift = 0
    for (;;) {
      this.need(1)
      const byte = this.buffer[this.pos++]!
      value += (byte & 0x7f) * 2 ** shift
      if ((byte & 0x80) === 0) return value
      shift += 7
      if (shift > 35) throw new RangeError('unsigned varint longer than 5 bytes')
    }
  }

  bytes(length: number): Buffer {
    this.need(length)
    const slice = this.buffer.subarray(this.pos, this.pos + length)
    this.pos += length
    return slice
  }

  string(): string {
    const length = this.int16()
    return length < 0 ? '' : this.bytes(length).toString('utf8')
  }

  nullableString(): string | null {
    const length = this.int16()
    return length < 0 ? null : this.bytes(length).toString('utf8')
  }

  compactNullableString(): string | null {
    const length = this.uvarint()
    return length === 0 ? null : this.bytes(length - 1).toString('utf8')
  }

  compactString(): string {
    return this.compactNullableString() ?? ''
  }

  /** COMPACT_NULLABLE_BYTES / COMPACT_RECORDS. */
  compactNullableBytes(): Buffer | null {
    const length = this.uvarint()
    return length === 0 ? null : this.bytes(length - 1)
  }

  uuid(): Buffer {
    return this.bytes(16)
  }

  array<T>(each: (reader: this) => T): T[] {
    const length = this.int32()
    const items: T[] = []
    for (let i = 0; i < length; i++) items.push(each(this))
    return items
  }

  compactArray<T>(each: (reader: this) => T): T[] {
    const length = this.uvarint()
    const items: T[] = []
    for (let i = 0; i < length - 1; i++) items.push(each(this))
    return items
  }

  /** Reads a tagged-field section; `known` receives the tags it understands, the rest are skipped. */
  taggedFields(known: Record<number, (reader: WireReader) => void> = {}): void {
    const count = this.uvarint()
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint()
      const size = this.uvarint()
      const field = this.bytes(size)
      known[tag]?.(new WireReader(field))
    }
  }
}
