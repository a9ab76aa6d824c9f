import { StorageError } from './errors'

/*
 * Kafka's variable-length integers (protobuf style): zigzag "varint" for int32 and "varlong" for int64,
 * plus exact int64 reads/writes for JS numbers. Everything stays a number: int64 values outside
 * Number.MAX_SAFE_INTEGER are refused instead of being rounded silently.
 */

const TWO_POW_32 = 4294967296

function corrupt(message: string): StorageError {
  return new StorageError('CORRUPT_RECORD', message)
}

/** Reads an int64 at `pos` as a number; throws CORRUPT_RECORD when it is not a safe integer. */
export function readInt64(view: DataView, pos: number): number {
  const value = view.getInt32(pos) * TWO_POW_32 + view.getUint32(pos + 4)
  if (!Number.isSafeInteger(value)) throw corrupt(`int64 at byte ${pos} is outside the safe integer range`)
  return value
}

/** Writes a safe integer as a big-endian int64 (two's complement for negatives such as -1). */
export function writeInt64(view: DataView, pos: number, value: number): void {
  const high = Math.floor(value / TWO_POW_32)
  view.setInt32(pos, high)
  view.setUint32(pos + 4, value - high * TWO_POW_32)
}

/** Bytes of the zigzag varint encoding of an int32. */
export function sizeOfVarint(value: number): number {
  let z = ((value << 1) ^ (value >> 31)) >>> 0
  let bytes = 1
  while (z >= 0x80) {
    z >>>= 7
    bytes++
  }
  return bytes
}

/** Writes a zigzag varint (int32); returns the position after it. */
export function writeVarint(bytes: Uint8Array, pos: number, value: number): number {
  let z = ((value << 1) ^ (value >> 31)) >>> 0
  while (z >= 0x80) {
    bytes[pos++] = (z & 0x7f) | 0x80
    z >>>= 7
  }
  bytes[pos++] = z
  return pos
}

function zigzagLong(value: number): number {
  if (!Number.isSafeInteger(value)) throw new StorageError('VALIDATION_FAILED', `varlong value ${value} is not a safe integer`)
  return value >= 0 ? value * 2 : -value * 2 - 1
}

/** Bytes of the zigzag varlong encoding of a safe integer. */
export function sizeOfVarlong(value: number): number {
  if (value >= -0x40000000 && value < 0x40000000) return sizeOfVarint(value)
  let z = zigzagLong(value)
  let bytes = 1
  while (z >= 0x80) {
    z = Math.floor(z / 0x80)
    bytes++
  }
  return bytes
}

/** Writes a zigzag varlong; returns the position after it. */
export function writeVarlong(bytes: Uint8Array, pos: number, value: number): number {
  if (value >= -0x40000000 && value < 0x40000000) return writeVarint(bytes, pos, value)
  // Values of magnitude ≥ 2^52 zigzag beyond 2^53; BigInt keeps them exact.
  if (Math.abs(value) >= 2 ** 52) {
    let z = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n))
    while (z >= 0x80n) {
      bytes[pos++] = Number(z & 0x7fn) | 0x80
      z >>= 7n
    }
    bytes[pos++] = Number(z)
    return pos
  }
  let z = zigzagLong(value)
  while (z >= 0x80) {
    bytes[pos++] = (z % 0x80) | 0x80
    z = Math.floor(z / 0x80)
  }
  bytes[pos++] = z
  return pos
}

/** A forward reader over a byte range; every read checks bounds and throws CORRUPT_RECORD past `end`. */
export class ByteReader {
  pos: number

  constructor(
    readonly bytes: Uint8Array,
    pos: number,
    readonly end: number,
  ) {
    this.pos = pos
  }

  private byte(): number {
    if (this.pos >= this.end) throw corrupt('record data ends early')
    return this.bytes[this.pos++]!
  }

  int8(): number {
    const b = this.byte()
    return b > 127 ? b - 256 : b
  }

  int16(): number {
    const hi = this.byte()
    const v = (hi << 8) | this.byte()
    return v > 32767 ? v - 65536 : v
  }

  int32(): number {
    return ((this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte()) | 0
  }

  varint(): number {
    let z = 0
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte()
      z |= (b & 0x7f) << shift
      if ((b & 0x80) === 0) return (z >>> 1) ^ -(z & 1)
    }
    throw corrupt('varint longer than 5 bytes')
  }

  varlong(): number {
    const start = this.pos
    let z = 0
    let multiplier = 1
    for (let i = 0; i < 10; i++) {
      const b = this.byte()
      z += (b & 0x7f) * multiplier
      if ((b & 0x80) === 0) {
        if (i >= 7) return this.bigVarlong(start)
        return z % 2 === 0 ? z / 2 : -(z + 1) / 2
      }
      multiplier *= 0x80
    }
    throw corrupt('varlong longer than 10 bytes')
  }

  /** Exact path for varlongs of 8+ bytes (≥ 2^49 after zigzag): decode with BigInt, refuse unsafe results. */
  private bigVarlong(start: number): number {
    let z = 0n
    let shift = 0n
    for (let p = start; p < this.pos; p++) {
      z |= BigInt(this.bytes[p]! & 0x7f) << shift
      shift += 7n
    }
    const value = BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n))
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw corrupt(`varlong ${value} is outside the safe integer range`)
    }
    return Number(value)
  }

  /** A view (no copy) of the next `length` bytes. */
  view(length: number): Uint8Array {
    if (length < 0 || this.pos + length > this.end) throw corrupt('field length runs past the record')
    const out = this.bytes.subarray(this.pos, this.pos + length)
    this.pos += length
    return out
  }
}
