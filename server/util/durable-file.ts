import 'server-only'
import fs from 'node:fs'
import { chmod, open, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'

/*
 * The one durable-file helper of the server: replace a file atomically and durably (temp file, fsync, rename,
 * fsync of the directory), so a crash leaves the old content or the new, never a torn mix; plus the
 * directory fsync that makes creates, renames and unlinks durable.
 *
 * Synchronous variants serve the partition logs, which do their I/O synchronously so that every operation
 * sees and leaves a consistent state without locks; asynchronous ones serve everything else (checkpoints in
 * the background, control-plane files).
 */

/**
 * Directories whose files need no durability: their owner removes them at the next start after any crash (a
 * drill's sandbox, server/drills/sandbox.ts), so no fsync of theirs can ever matter. Every helper here skips their
 * fsyncs (the writes, temp files and renames still happen, in the same order: a clean close and reopen read what
 * was written), and their batches skip the write lanes below, where production's waited behind a sandbox's
 * 2,000 logs (npm run bench -- drill: closing a sandbox's logs took 49–84 s of fsyncs on a loaded machine).
 */
const unsyncedRoots = new Set<string>()

/** Registers `dir` (and everything under it) as never synced; returns the release. */
export function skipSyncsUnder(dir: string): () => void {
  const root = path.resolve(dir)
  unsyncedRoots.add(root)
  return () => {
    unsyncedRoots.delete(root)
  }
}

/** Whether `file` (an absolute path) lies under a directory registered by skipSyncsUnder. */
export function syncsSkipped(file: string): boolean {
  if (unsyncedRoots.size === 0) return false
  for (const root of unsyncedRoots) if (file === root || file.startsWith(`${root}${path.sep}`)) return true
  return false
}

/** Makes directory entries (create, rename, unlink) durable. */
export function fsyncDirectory(dir: string): void {
  if (syncsSkipped(dir)) return
  const fd = fs.openSync(dir, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

export async function syncDirectory(dir: string): Promise<void> {
  if (syncsSkipped(dir)) return
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Replaces `file` atomically and durably, synchronously (temp file `<file>.tmp`). */
export function writeFileDurably(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp`
  const fd = fs.openSync(tmp, 'w')
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    let done = 0
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, done)
    if (!syncsSkipped(file)) fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, file)
  fsyncDirectory(path.dirname(file))
}

/**
 * Async durable writes hold two descriptors each while they wait on fsync, so they run a bounded number at a
 * time and queue the rest. Two lanes: the logs' bulk writes (lazy high-watermark checkpoints of thousands of
 * partitions, which fall due together, and the files of a log close) queue in their own, so a session, an
 * operation record or the cluster registry never waits behind them — in one lane a failover's record waited
 * 54 s behind 10,000 partitions' checkpoints.
 */
class WriteSlots {
  private running = 0
  private readonly queue: Array<() => void> = []
  private readonly idleWaiters: Array<() => void> = []

  constructor(private readonly limit: number) {}

  /** Resolves once no write runs or waits in this lane. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve))
    else this.running += 1
    try {
      return await work()
    } finally {
      // The slot passes straight to the next waiter, so the count never dips and lets a newcomer jump the queue.
      const next = this.queue.shift()
      if (next) next()
      else if (--this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve()
    }
  }
}

const FOREGROUND_WRITES = new WriteSlots(16)
const LOG_WRITES = new WriteSlots(16)

export interface AsyncDurableWriteOptions {
  /**
   * Permissions of the file. The temp file is created with them, so the content is never readable by others,
   * not even for an instant; the temp name then carries the pid, as two processes may write the same file.
   */
  mode?: number
  /** A log's bulk write (a lazy checkpoint): queued in the logs' lane, behind none of the others. */
  logWrite?: boolean
}

/**
 * Resolves once no asynchronous durable write runs or waits in either lane: what a test awaits before it removes a
 * directory that a log it abandoned (a simulated crash) may still be checkpointing into.
 */
export async function durableWritesSettled(): Promise<void> {
  await Promise.all([FOREGROUND_WRITES.idle(), LOG_WRITES.idle()])
}

/** Asynchronous variant of writeFileDurably (at most 16 at once per lane across the process). */
export function writeFileDurablyAsync(file: string, data: string, options: AsyncDurableWriteOptions = {}): Promise<void> {
  if (syncsSkipped(file)) return writeFileDurablyNow(file, data, options)
  return (options.logWrite ? LOG_WRITES : FOREGROUND_WRITES).run(() => writeFileDurablyNow(file, data, options))
}

async function writeFileDurablyNow(file: string, data: string, { mode }: AsyncDurableWriteOptions): Promise<void> {
  const tmp = mode === undefined ? `${file}.tmp` : `${file}.${process.pid}.tmp`
  if (mode !== undefined) await rm(tmp, { force: true })
  const handle = await open(tmp, mode === undefined ? 'w' : 'wx', mode)
  try {
    await handle.writeFile(data, 'utf8')
    if (!syncsSkipped(file)) await handle.sync()
  } finally {
    await handle.close()
  }
  // The umask may have narrowed the mode at creation; never widened, but make it exact.
  if (mode !== undefined) await chmod(tmp, mode)
  await rename(tmp, file)
  await syncDirectory(path.dirname(file))
}

/** One file of a batch for writeFilesDurablyAsync. */
export interface DurableFileWrite {
  file: string
  data: string | Uint8Array
}

/**
 * Replaces files of one directory, each atomically, durable together: the temp files are written and fsynced,
 * renamed, then the directory is fsynced once. A batch costs one directory fsync instead of one per file, and
 * runs in the logs' lane beside other directories' batches (a broker closing 2,000 logs one file at a time,
 * synchronously, took 70–100 s). A crash leaves each file old or new, never a mix.
 */
export function writeFilesDurablyAsync(writes: readonly DurableFileWrite[]): Promise<void> {
  if (writes.length === 0) return Promise.resolve()
  const dir = path.dirname(writes[0]!.file)
  if (writes.some((write) => path.dirname(write.file) !== dir)) throw new Error('writeFilesDurablyAsync: the files of one batch share a directory')
  const unsynced = syncsSkipped(dir)
  const write = async () => {
    for (const { file, data } of writes) {
      const handle = await open(`${file}.tmp`, 'w')
      try {
        await handle.writeFile(data)
        if (!unsynced) await handle.sync()
      } finally {
        await handle.close()
      }
    }
    for (const { file } of writes) await rename(`${file}.tmp`, file)
    await syncDirectory(dir)
  }
  return unsynced ? write() : LOG_WRITES.run(write)
}

/** Replaces `file` with owner-only permissions (0600 unless told): for secrets and audit records. */
export function writeFileAtomic(file: string, content: string, mode = 0o600): Promise<void> {
  return writeFileDurablyAsync(file, content, { mode })
}

export function readFileIfExists(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
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

/**
 * Runs writes of a snapshot one at a time; a burst of `save()` calls while a write runs shares the next
 * write, and each call resolves once a snapshot taken after it is durable.
 */
export class SnapshotWriter {
  private running: Promise<void> | null = null
  private queued: Promise<void> | null = null

  constructor(private readonly write: () => Promise<void>) {}

  save(): Promise<void> {
    if (this.queued) return this.queued
    if (!this.running) return this.start()
    const next = () => {
      this.queued = null
      return this.start()
    }
    this.queued = this.running.then(next, next)
    return this.queued
  }

  private start(): Promise<void> {
    const running = this.write().finally(() => {
      if (this.running === running) this.running = null
    })
    this.running = running
    return running
  }
}
