import 'server-only'
import { mkdir, open, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { AuditEntry, type AuditOutcome } from '@/lib/api/audit'
import type { Role } from '@/lib/api/session'
import { syncDirectory } from '@/server/util/durable-file'

/**
 * The durable, append-only audit log of every mutation (API.md: accepted, rejected and dry runs alike).
 *
 * One JSON object per line. `append` resolves once the line is fdatasync'd, so an acknowledged change always
 * has its entry. A crash can leave only the last line torn (appends are serialised); recovery cuts it off and
 * numbering carries on after the last whole entry. A damaged line in the middle is skipped, not fatal.
 * The most recent entries are also kept in memory for queries; older ones are read back from the file.
 */

export interface AuditInput {
  actor: string
  role: Role | null
  action: string
  target: string
  request: unknown
  outcome: AuditOutcome
  error: { code: string; message: string } | null
  dryRun: boolean
  plan?: unknown
  /** The operation the request started. */
  operation?: string
}

export interface AuditFilter {
  actor?: string | undefined
  /** Exact action, or a prefix when it ends with `*` (`topic.*`). */
  action?: string | undefined
  outcome?: AuditOutcome | undefined
  operation?: string | undefined
  /** at >= from */
  from?: number | undefined
  /** at < to */
  to?: number | undefined
  /** id < before */
  before?: number | undefined
  limit: number
}

export interface AuditLogOptions {
  now?: () => number
  /** Entries kept in memory; queries reaching further back read the file. */
  memoryLimit?: number
  onAppend?: (entry: AuditEntry) => void
  onDamagedLine?: (info: { lineNumber: number; reason: string }) => void
}

export interface RecoveryReport {
  entries: number
  damagedLines: number
  /** Bytes of a torn last line that were cut off. */
  truncatedBytes: number
}

const CHUNK_BYTES = 64 * 1024
const NEWLINE = 0x0a

/** Calls `onLine` for each newline-terminated line of `handle` from `start`; returns the offset after the last newline. */
async function scanLines(handle: FileHandle, size: number, onLine: (line: Buffer, lineNumber: number) => void): Promise<number> {
  const chunk = Buffer.alloc(CHUNK_BYTES)
  let pending: Buffer[] = []
  let position = 0
  let lineEnd = 0
  let lineNumber = 0
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, size - position), position)
    if (bytesRead === 0) break
    let start = 0
    for (let index = 0; index < bytesRead; index++) {
      if (chunk[index] !== NEWLINE) continue
      pending.push(Buffer.from(chunk.subarray(start, index)))
      lineNumber += 1
      onLine(Buffer.concat(pending), lineNumber)
      pending = []
      start = index + 1
      lineEnd = position + index + 1
    }
    if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start, bytesRead)))
    position += bytesRead
  }
  return lineEnd
}

function parseLine(line: Buffer): { ok: true; entry: AuditEntry } | { ok: false; reason: string } {
  let json: unknown
  try {
    json = JSON.parse(line.toString('utf8'))
  } catch {
    return { ok: false, reason: 'not JSON' }
  }
  const parsed = AuditEntry.safeParse(json)
  return parsed.success ? { ok: true, entry: parsed.data } : { ok: false, reason: 'not an audit entry' }
}

function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.actor !== undefined && entry.actor !== filter.actor) return false
  if (filter.action !== undefined) {
    const prefix = filter.action.endsWith('*') ? filter.action.slice(0, -1) : null
    if (prefix === null ? entry.action !== filter.action : !entry.action.startsWith(prefix)) return false
  }
  if (filter.outcome !== undefined && entry.outcome !== filter.outcome) return false
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false
  if (filter.from !== undefined && entry.at < filter.from) return false
  if (filter.to !== undefined && entry.at >= filter.to) return false
  if (filter.before !== undefined && entry.id >= filter.before) return false
  return true
}

export class AuditLog {
  private readonly recent: AuditEntry[] = []
  /** True once the memory window no longer starts at the first entry of the file. */
  private trimmed = false
  private lastId = 0
  private size = 0
  private tail: Promise<unknown> = Promise.resolve()
  private closed = false

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly options: Required<Pick<AuditLogOptions, 'now' | 'memoryLimit'>> & AuditLogOptions,
    readonly recovery: RecoveryReport,
  ) {}

  static async open(file: string, options: AuditLogOptions = {}): Promise<AuditLog> {
    await mkdir(path.dirname(file), { recursive: true })
    const handle = await open(file, 'a+', 0o600)
    try {
      const resolved = { now: Date.now, memoryLimit: 10_000, ...options }
      const { size } = await handle.stat()
      const entries: AuditEntry[] = []
      let trimmed = false
      let damagedLines = 0
      let lastId = 0
      const validEnd = await scanLines(handle, size, (line, lineNumber) => {
        const parsed = parseLine(line)
        if (!parsed.ok) {
          damagedLines += 1
          options.onDamagedLine?.({ lineNumber, reason: parsed.reason })
          return
        }
        lastId = Math.max(lastId, parsed.entry.id)
        entries.push(parsed.entry)
        if (entries.length > resolved.memoryLimit) {
          entries.shift()
          trimmed = true
        }
      })
      // Whatever follows the last newline is a line that was being written when the process died.
      if (validEnd < size) {
        await handle.truncate(validEnd)
        await handle.sync()
      }
      await syncDirectory(path.dirname(file))
      const log = new AuditLog(file, handle, resolved, { entries: entries.length, damagedLines, truncatedBytes: size - validEnd })
      log.recent.push(...entries)
      log.trimmed = trimmed
      log.lastId = lastId
      log.size = validEnd
      return log
    } catch (error) {
      await handle.close()
      throw error
    }
  }

  get lastEntryId(): number {
    return this.lastId
  }

  /** Appends one entry; resolves with it once it is on disk. Appends are written in call order. */
  append(input: AuditInput): Promise<AuditEntry> {
    const task = this.tail.then(() => this.write(input))
    this.tail = task.catch(() => undefined)
    return task
  }

  private async write(input: AuditInput): Promise<AuditEntry> {
    if (this.closed) throw new Error('the audit log is closed')
    const entry = AuditEntry.parse({ id: this.lastId + 1, at: this.options.now(), ...input })
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8')
    try {
      await this.handle.write(line, 0, line.length, null)
      await this.handle.datasync()
    } catch (error) {
      // Leave no half line behind for the next append to continue.
      await this.handle.truncate(this.size).catch(() => undefined)
      throw error
    }
    this.size += line.length
    this.lastId = entry.id
    this.recent.push(entry)
    if (this.recent.length > this.options.memoryLimit) {
      this.recent.shift()
      this.trimmed = true
    }
    this.options.onAppend?.(entry)
    return entry
  }

  /** Entries matching `filter`, newest first. */
  async query(filter: AuditFilter): Promise<AuditEntry[]> {
    const found: AuditEntry[] = []
    for (let index = this.recent.length - 1; index >= 0 && found.length < filter.limit; index--) {
      const entry = this.recent[index]
      if (entry !== undefined && matches(entry, filter)) found.push(entry)
    }
    if (found.length >= filter.limit || !this.trimmed) return found
    return this.queryFile(filter)
  }

  private async queryFile(filter: AuditFilter): Promise<AuditEntry[]> {
    const newest: AuditEntry[] = []
    await scanLines(this.handle, this.size, (line) => {
      const parsed = parseLine(line)
      if (!parsed.ok || !matches(parsed.entry, filter)) return
      newest.push(parsed.entry)
      if (newest.length > filter.limit) newest.shift()
    })
    return newest.reverse()
  }

  async close(): Promise<void> {
    if (this.closed) return
    await this.tail
    this.closed = true
    await this.handle.close()
  }
}
