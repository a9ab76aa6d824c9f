import 'server-only'
import fs from 'node:fs'
import path from 'node:path'

/*
 * Synchronous file helpers. The log does its I/O synchronously (page-cache writes and reads are tens of
 * microseconds) so that every operation sees and leaves a consistent state without locks; only the
 * group-commit fdatasync runs off the event loop.
 */

/** Makes directory entries (create, rename, unlink) durable. */
export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

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

/** Replaces `file` atomically and durably: temp file, fsync, rename, fsync of the directory. */
export function writeFileDurably(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp`
  const fd = fs.openSync(tmp, 'w')
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    writeFully(fd, bytes, 0)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, file)
  fsyncDirectory(path.dirname(file))
}

/**
 * Background checkpoints of thousands of partitions can fall due together; each holds two descriptors
 * while it waits on fsync. This many run at once, the rest queue, so they never exhaust open files.
 */
const MAX_CONCURRENT_ASYNC_WRITES = 16
let asyncWritesRunning = 0
const asyncWriteQueue: Array<() => void> = []

async function withAsyncWriteSlot<T>(work: () => Promise<T>): Promise<T> {
  if (asyncWritesRunning >= MAX_CONCURRENT_ASYNC_WRITES) await new Promise<void>((resolve) => asyncWriteQueue.push(resolve))
  else asyncWritesRunning += 1
  try {
    return await work()
  } finally {
    // The slot passes straight to the next waiter, so the count never dips and lets a newcomer jump the queue.
    const next = asyncWriteQueue.shift()
    if (next) next()
    else asyncWritesRunning -= 1
  }
}

/** Async variant of writeFileDurably for background checkpoints. */
export function writeFileDurablyAsync(file: string, data: string): Promise<void> {
  return withAsyncWriteSlot(() => writeFileDurablyNow(file, data))
}

async function writeFileDurablyNow(file: string, data: string): Promise<void> {
  const tmp = `${file}.tmp`
  const handle = await fs.promises.open(tmp, 'w')
  try {
    await handle.writeFile(data, 'utf8')
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fs.promises.rename(tmp, file)
  const dir = await fs.promises.open(path.dirname(file), 'r')
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
}

export function readFileIfExists(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Deletes `file`; returns false when it did not exist. */
export function unlinkIfExists(file: string): boolean {
  try {
    fs.unlinkSync(file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}
