import 'server-only'
import { chmod, open, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'

/**
 * Replaces `file` atomically and durably with `mode` permissions: a temp file created with that mode (so the
 * content is never readable by others, not even for an instant), fsync, rename, fsync of the directory.
 */
export async function writeFileAtomic(file: string, content: string, mode = 0o600): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`
  await rm(tmp, { force: true })
  const handle = await open(tmp, 'wx', mode)
  try {
    await handle.writeFile(content, 'utf8')
    await handle.sync()
  } finally {
    await handle.close()
  }
  // The umask may have narrowed the mode at creation; never widened, but make it exact.
  await chmod(tmp, mode)
  await rename(tmp, file)
  await syncDirectory(path.dirname(file))
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
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
