import 'server-only'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import type { z } from 'zod'
import { fsyncDirectory, writeFileDurablyAsync } from './durable-file'

/**
 * A directory of durable JSON records, one file per record (`<dir>/<id>.json`), each replaced whole and
 * crash-safely (temp file, fsync, rename, fsync of the directory), so a file holds the previous record or
 * the new one, never a mix. Writes of one record run in the order they were asked for, each with the record
 * as it was then. What verifications and drills keep (server/verification/, server/drills/); failover
 * operations have their own store with the same rules (server/engine/operations/operation-store.ts).
 */
export interface JsonRecordStoreOptions {
  /** A file that is not a valid record: reported and left in place for a person to look at, never fatal. */
  onDamagedFile?: (info: { file: string; reason: string }) => void
}

const SUFFIX = '.json'

export class JsonRecordStore<T extends { id: string }> {
  private readonly writes = new Map<string, Promise<void>>()

  private constructor(
    private readonly dir: string | null,
    /** What the directory held when opened, in no particular order. */
    readonly loaded: readonly T[],
  ) {}

  /** Records kept in memory only (a server or test without a data directory). */
  static inMemory<T extends { id: string }>(): JsonRecordStore<T> {
    return new JsonRecordStore<T>(null, [])
  }

  static async open<S extends z.ZodType<{ id: string }>>(dir: string, schema: S, options: JsonRecordStoreOptions = {}): Promise<JsonRecordStore<z.infer<S>>> {
    await mkdir(dir, { recursive: true })
    const loaded: Array<z.infer<S>> = []
    for (const name of (await readdir(dir)).sort()) {
      const file = path.join(dir, name)
      // A temp file is a write whose rename never happened: the record it was replacing is whole.
      if (name.endsWith('.tmp')) {
        await rm(file, { force: true })
        continue
      }
      if (!name.endsWith(SUFFIX)) continue
      const reason = await readRecord(file, schema).then(
        (record) => {
          if (`${record.id}${SUFFIX}` !== name) return `holds record ${record.id}`
          loaded.push(record)
          return null
        },
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      )
      if (reason !== null) options.onDamagedFile?.({ file, reason })
    }
    return new JsonRecordStore(dir, loaded)
  }

  /** Makes `record` durable; serialised now, so later changes of the caller's object are not written by this call. */
  save(record: T): Promise<void> {
    if (this.dir === null) return Promise.resolve()
    const file = path.join(this.dir, `${record.id}${SUFFIX}`)
    const text = `${JSON.stringify(record)}\n`
    return this.chain(record.id, () => writeFileDurablyAsync(file, text))
  }

  async remove(ids: readonly string[]): Promise<void> {
    const dir = this.dir
    if (dir === null || ids.length === 0) return
    await Promise.all(ids.map((id) => this.chain(id, () => rm(path.join(dir, `${id}${SUFFIX}`), { force: true }))))
    fsyncDirectory(dir)
  }

  /** Resolves once every write asked for so far has ended. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()].map((write) => write.catch(() => undefined)))
  }

  private chain(id: string, work: () => Promise<void>): Promise<void> {
    const previous = this.writes.get(id) ?? Promise.resolve()
    const write = previous.catch(() => undefined).then(work)
    this.writes.set(id, write)
    const forget = () => {
      if (this.writes.get(id) === write) this.writes.delete(id)
    }
    write.then(forget, forget)
    return write
  }
}

async function readRecord<S extends z.ZodType>(file: string, schema: S): Promise<z.infer<S>> {
  const text = await readFile(file, 'utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) throw new Error(`not a valid record: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  return parsed.data
}
