import 'server-only'
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** One minute of one mirror: the worst lag each partition had in it (partitions with no lag are left out). */
export interface LagMinute {
  t: number
  /** [topic, partition, offsetLag, timeLagMs | null] for partitions that lagged. */
  p: Array<[string, number, number, number | null]>
}

const RETENTION_MS = 7 * 24 * 60 * 60 * 1000

/**
 * The persisted, downsampled side of lag history: the engine keeps the last hour per second in memory and
 * appends one line per mirror per minute here, so charts over days survive a restart. A torn last line
 * (a crash mid-append) is skipped on load.
 */
export class LagArchive {
  constructor(private readonly dir: string) {}

  private file(mirror: string): string {
    return path.join(this.dir, `${mirror}.jsonl`)
  }

  async append(mirror: string, minute: LagMinute): Promise<void> {
    await mkdir(this.dir, { recursive: true })
    await appendFile(this.file(mirror), `${JSON.stringify(minute)}\n`)
  }

  /** Minutes newer than `since`, oldest first; rewrites the file without those past retention. */
  async load(mirror: string, now: number, since: number): Promise<LagMinute[]> {
    let text: string
    try {
      text = await readFile(this.file(mirror), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const kept: LagMinute[] = []
    for (const line of text.split('\n')) {
      if (!line) continue
      try {
        const minute = JSON.parse(line) as LagMinute
        if (typeof minute.t === 'number' && Array.isArray(minute.p) && minute.t >= now - RETENTION_MS) kept.push(minute)
      } catch {
        // A torn last line from a crash mid-append.
      }
    }
    const temporary = `${this.file(mirror)}.tmp`
    await writeFile(temporary, kept.map((minute) => `${JSON.stringify(minute)}\n`).join(''))
    await rename(temporary, this.file(mirror))
    return kept.filter((minute) => minute.t >= since)
  }
}
