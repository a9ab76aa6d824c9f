import 'server-only'
import { open, readFile, rename } from 'node:fs/promises'
import path from 'node:path'
import { syncsSkipped } from '@/server/util/durable-file'

/** Replaces `file` atomically and durably: temp file, fsync, rename, fsync of the directory. */
export async function writeJsonDurably(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp`
  const handle = await open(tmp, 'w')
  try {
    // Compact: the metadata of a 10,000-partition cluster is rewritten whole at each change, indentation included.
    await handle.writeFile(`${JSON.stringify(value)}\n`, 'utf8')
    if (!syncsSkipped(file)) await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(tmp, file)
  if (syncsSkipped(file)) return
  const dir = await open(path.dirname(file), 'r')
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
}

/** The parsed file, or undefined when it does not exist. A torn temp file is ignored: the rename never happened. */
export async function readJsonIfExists(file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return JSON.parse(text) as unknown
}

/**
 * A JSON file that always holds a recent snapshot of some in-memory state. `save()` resolves once a snapshot
 * taken after the call is durable; calls made while a write runs share the next write, so a burst of changes
 * costs two writes, not one per change.
 */
export class DurableJsonFile {
  private running: Promise<void> | null = null
  private queued: Promise<void> | null = null

  constructor(
    readonly file: string,
    private readonly snapshot: () => unknown,
  ) {}

  save(): Promise<void> {
    if (this.queued) return this.queued
    if (!this.running) return this.start()
    this.queued = this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    )
    return this.queued
  }

  /** Resolves once every snapshot asked for so far by save() is durable (at once when none is pending). */
  saved(): Promise<void> {
    return this.queued ?? this.running ?? Promise.resolve()
  }

  private startQueued(): Promise<void> {
    this.queued = null
    return this.start()
  }

  private start(): Promise<void> {
    const write = writeJsonDurably(this.file, this.snapshot())
    const running = write.finally(() => {
      if (this.running === running) this.running = null
    })
    this.running = running
    return running
  }
}
