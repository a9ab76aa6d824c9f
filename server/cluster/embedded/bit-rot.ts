import 'server-only'
import { open, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { decodeBatchRecords, splitBatches } from '@/lib/log/record-batch'
import { LOG_SUFFIX, parseOffsetFileName } from '@/server/storage/segment'
import { ClusterError } from '../errors'

/**
 * Bit rot (the demo's `bit-rot` fault, and the verification tests): one byte of a record's value flipped in
 * a segment file of a replica, on disk, behind the log's back, as a failing disk would. The byte is chosen in
 * a value, never in a length or header, so the log still reads (reads do not check CRCs, as Kafka's fetch
 * path does not) and the rot shows as a wrong value and a batch that fails its own CRC32C. Sealed segments
 * are preferred: the log recovery at a crash restart scans only the active one (and would cut the log there).
 */

export interface RottenByte {
  /** The segment file and the byte's position in it. */
  readonly file: string
  readonly position: number
  /** The offset of the record whose value holds the byte, and its batch's base offset. */
  readonly offset: number
  readonly batchBaseOffset: number
  /** The byte as it was; XOR 1 is what the disk holds now. */
  readonly original: number
}

const FLIP = 0x01

/** Flips one value byte in the replica log in `dir`, in a data batch near the middle of the newest segment that has one. */
export async function rotOneByte(dir: string): Promise<RottenByte> {
  const segments = (await readdir(dir))
    .map((name) => ({ name, base: parseOffsetFileName(name, LOG_SUFFIX) }))
    .filter((entry): entry is { name: string; base: number } => entry.base !== undefined)
    .sort((a, b) => a.base - b.base)
  // Sealed segments first (newest first), the active one last.
  const order = [...segments.slice(0, -1).reverse(), ...segments.slice(-1)]
  for (const segment of order) {
    const file = path.join(dir, segment.name)
    const bytes = new Uint8Array(await readFile(file))
    let batches: ReturnType<typeof splitBatches>
    try {
      batches = splitBatches(bytes)
    } catch {
      continue
    }
    const candidates = batches.filter(({ header }) => !header.isControl && header.compression === 'none' && header.recordCount > 0)
    const chosen = candidates[Math.floor(candidates.length / 2)]
    if (chosen === undefined) continue
    const batch = bytes.subarray(chosen.position, chosen.position + chosen.header.sizeInBytes)
    const record = decodeBatchRecords(batch, chosen.header).find((r) => r.value !== null && r.value.length > 0)
    if (record === undefined || record.value === null) continue
    const position = record.value.byteOffset - bytes.byteOffset
    const original = bytes[position]!
    await writeByte(file, position, original ^ FLIP)
    return { file, position, offset: record.offset, batchBaseOffset: chosen.header.baseOffset, original }
  }
  throw new ClusterError('CONFLICT', 'the partition holds no uncompressed data record with a value to rot', { details: { dir } })
}

/** Puts the byte back; false when the file no longer holds the rotten byte there (rewritten, truncated or deleted). */
export async function healRottenByte(rot: Pick<RottenByte, 'file' | 'position' | 'original'>): Promise<boolean> {
  let handle
  try {
    handle = await open(rot.file, 'r+')
  } catch {
    return false
  }
  try {
    const current = Buffer.alloc(1)
    const { bytesRead } = await handle.read(current, 0, 1, rot.position)
    if (bytesRead !== 1 || current[0] !== (rot.original ^ FLIP)) return false
    await handle.write(Buffer.from([rot.original]), 0, 1, rot.position)
    await handle.sync()
    return true
  } finally {
    await handle.close()
  }
}

async function writeByte(file: string, position: number, value: number): Promise<void> {
  const handle = await open(file, 'r+')
  try {
    await handle.write(Buffer.from([value]), 0, 1, position)
    await handle.sync()
  } finally {
    await handle.close()
  }
}
