// The floor any durable log pays: the same record batches appended to one plain file with an fdatasync after
// each, measured in the same run as the figure it is the baseline of.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { encodeBatch } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'

/** Records/s of appending `batches` v2 batches of `values` (as produced) to a file, fdatasync per batch. */
export function rawAppendRecordsPerSecond(batches: number, values: (batch: number) => string[]): number {
  const encoded = Array.from({ length: batches }, (_, batch) =>
    encodeBatch({ baseOffset: 0, partitionLeaderEpoch: 0, timestamp: Date.now(), records: values(batch).map((value) => ({ value })) }, crc32c),
  )
  const records = encoded.reduce((sum, _, batch) => sum + values(batch).length, 0)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-raw-'))
  const fd = fs.openSync(path.join(dir, 'raw.log'), 'w')
  try {
    const started = performance.now()
    let position = 0
    for (const bytes of encoded) {
      fs.writeSync(fd, bytes, 0, bytes.length, position)
      fs.fdatasyncSync(fd)
      position += bytes.length
    }
    return records / ((performance.now() - started) / 1000)
  } finally {
    fs.closeSync(fd)
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
