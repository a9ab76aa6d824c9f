import 'server-only'
import fs from 'node:fs'

/*
 * Raw positional I/O of segment files, looping over short reads and writes. Durable whole-file writes live in
 * server/util/durable-file.ts.
 */

/** Writes all of `data` at `position`, looping over short writes. */
export function writeFully(fd: number, data: Uint8Array, position: number): void {
  let done = 0
  while (done < data.length) {
    done += fs.writeSync(fd, data, done, data.length - done, position + done)
  }
}

/** Reads up to `length` bytes at `position` into `target` (from byte 0); returns the bytes read (short at EOF). */
export function readFully(fd: number, target: Uint8Array, length: number, position: number): number {
  let done = 0
  while (done < length) {
    const n = fs.readSync(fd, target, done, length - done, position + done)
    if (n === 0) break
    done += n
  }
  return done
}
