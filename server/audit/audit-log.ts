import 'server-only'
import { mkdir, open, rename, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { AuditEntry, type AuditOutcome } from '@/lib/api/audit'
import { syncDirectory } from '@/server/util/durable-file'
import { applyRetention, DEFAULT_AUDIT_RETENTION, listRotated, rotatedName, type AuditRetention } from './audit-files'
import { AnonymousRejections } from './anonymous-rejections'
import type { AuditInput } from './audit-input'
import { capText } from './summarize'

/**
 * The durable, append-only audit log of every mutation (API.md: accepted, rejected and dry runs alike).
 *
 * One JSON object per line. `append` resolves once the line is fdatasync'd, so an acknowledged change always
 * has its entry. A crash can leave only the last line torn (appends are serialised); recovery cuts it off and
 * numbering carries on after the last whole entry. A damaged line in the middle is skipped, not fatal.
 * The most recent entries are also kept in memory for queries (bounded by count and by bytes); older ones are
 * read back from the files. The file rotates by size and rotated files are kept by age and total size
 * (audit-files.ts). Whatever a caller sent ends up here, so every free-text field is cut to a bounded length.
 */

export type { AuditInput } from './audit-input'

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
  /** Only entries the caller may see (a scoped caller's, lib/auth/visibility.ts); counted against `limit` after it. */
  visible?: ((entry: AuditEntry) => boolean) | undefined
  limit: number
}

export interface AuditLogOptions {
  now?: () => number
  /** Entries kept in memory; queries reaching further back read the file. */
  memoryLimit?: number
  /** Bytes (serialised) of the entries kept in memory. */
  memoryBytes?: number
  retention?: AuditRetention
  /** The window anonymous refusals are collapsed over, per source (anonymous-rejections.ts). */
  collapseWindowMs?: number
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
const MAX_TARGET = 512
const MAX_ACTOR = 128
const MAX_ERROR_MESSAGE = 1024
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

export function matches(entry: AuditEntry, filter: AuditFilter): boolean {
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
  if (filter.visible !== undefined && !filter.visible(entry)) return false
  return true
}

type ResolvedOptions = Required<Pick<AuditLogOptions, 'now' | 'memoryLimit' | 'memoryBytes' | 'retention'>> & AuditLogOptions

export class AuditLog {
  private readonly recent: AuditEntry[] = []
  /** Serialised size of each entry of `recent`, same order. */
  private readonly recentSizes: number[] = []
  private recentBytes = 0
  /** True once the memory window no longer starts at the first entry there is (trimmed, or older files). */
  private trimmed = false
  private lastId = 0
  private size = 0
  private tail: Promise<unknown> = Promise.resolve()
  private closed = false
  private readonly rejections: AnonymousRejections
  private readonly collapseTimer: NodeJS.Timeout

  private constructor(
    readonly file: string,
    private handle: FileHandle,
    private readonly options: ResolvedOptions,
    readonly recovery: RecoveryReport,
  ) {
    this.rejections = new AnonymousRejections(options.now, options.collapseWindowMs)
    // Writes the count of a minute that ended even when its source sends nothing more.
    this.collapseTimer = setInterval(() => void this.writeAll(this.rejections.due()), this.rejections.windowMs)
    this.collapseTimer.unref()
  }

  static async open(file: string, options: AuditLogOptions = {}): Promise<AuditLog> {
    const dir = path.dirname(file)
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const handle = await open(file, 'a+', 0o600)
    try {
      const resolved: ResolvedOptions = { now: Date.now, memoryLimit: 10_000, memoryBytes: 16 * 1024 * 1024, retention: DEFAULT_AUDIT_RETENTION, ...options }
      const { size } = await handle.stat()
      const entries: Array<{ entry: AuditEntry; bytes: number }> = []
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
        entries.push({ entry: parsed.entry, bytes: line.length + 1 })
      })
      // Whatever follows the last newline is a line that was being written when the process died.
      if (validEnd < size) {
        await handle.truncate(validEnd)
        await handle.sync()
      }
      await syncDirectory(dir)
      // Against file times, so the wall clock, not `now`.
      await applyRetention(dir, resolved.retention, Date.now())
      const rotated = await listRotated(dir)
      const log = new AuditLog(file, handle, resolved, { entries: entries.length, damagedLines, truncatedBytes: size - validEnd })
      for (const { entry, bytes } of entries) log.remember(entry, bytes)
      if (rotated.length > 0) log.trimmed = true
      // A file that was just rotated holds nothing yet; numbering carries on from the rotated ones.
      log.lastId = Math.max(lastId, rotated[0]?.lastId ?? 0)
      log.size = validEnd
      return log
    } catch (error) {
      await handle.close()
      throw error
    }
  }

  private remember(entry: AuditEntry, bytes: number): void {
    this.recent.push(entry)
    this.recentSizes.push(bytes)
    this.recentBytes += bytes
    while (this.recent.length > 1 && (this.recent.length > this.options.memoryLimit || this.recentBytes > this.options.memoryBytes)) {
      this.recent.shift()
      this.recentBytes -= this.recentSizes.shift() ?? 0
      this.trimmed = true
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
    const entry = AuditEntry.parse({
      id: this.lastId + 1,
      at: this.options.now(),
      ...input,
      actor: capText(input.actor, MAX_ACTOR),
      ...(input.actorName === undefined ? {} : { actorName: capText(input.actorName, MAX_ACTOR) }),
      target: capText(input.target, MAX_TARGET),
      error: input.error && { code: capText(input.error.code, MAX_ACTOR), message: capText(input.error.message, MAX_ERROR_MESSAGE) },
    })
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8')
    if (this.size > 0 && this.size + line.length > this.options.retention.rotateBytes) await this.rotate()
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
    this.remember(entry, line.length)
    this.options.onAppend?.(entry)
    return entry
  }

  /**
   * Appends the entry of a request that came from `source`; an anonymous refusal may be only counted into
   * its source's minute (then null).
   */
  async record(input: AuditInput, source: string): Promise<AuditEntry | null> {
    if (!AnonymousRejections.applies(input)) return this.append(input)
    const written = await this.writeAll(this.rejections.admit(source, input))
    return written.at(-1) ?? null
  }

  private writeAll(inputs: readonly AuditInput[]): Promise<AuditEntry[]> {
    return Promise.all(inputs.map((input) => this.append(input)))
  }

  /** Renames the full file after its last entry and starts an empty one; then drops what retention no longer keeps. */
  private async rotate(): Promise<void> {
    const dir = path.dirname(this.file)
    await this.handle.close()
    await rename(this.file, rotatedName(dir, this.lastId))
    this.handle = await open(this.file, 'a+', 0o600)
    this.size = 0
    this.trimmed = true
    await syncDirectory(dir)
    await applyRetention(dir, this.options.retention, Date.now())
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

  /**
   * Up to `limit` entries with an id above `id`, oldest first (what the shared audit topic has not received yet,
   * server/ha/shared-audit.ts): from memory when it reaches back that far, else from the files.
   */
  async after(id: number, limit: number): Promise<AuditEntry[]> {
    const first = this.recent[0]
    if (first === undefined || first.id <= id + 1 || !this.trimmed) return this.recent.filter((entry) => entry.id > id).slice(0, limit)
    return (await this.queryFile({ limit: Number.MAX_SAFE_INTEGER, visible: (entry) => entry.id > id })).reverse().slice(0, limit)
  }

  /** The newest matches of the appended file, then of the rotated ones, newest file first. */
  private async queryFile(filter: AuditFilter): Promise<AuditEntry[]> {
    // Not while an append may be rotating the file under the handle.
    await this.tail
    const found = await this.queryHandle(this.handle, this.size, filter, filter.limit)
    for (const rotated of await listRotated(path.dirname(this.file))) {
      if (found.length >= filter.limit) break
      const handle = await open(rotated.file, 'r').catch(() => null)
      if (handle === null) continue
      try {
        const { size } = await handle.stat()
        found.push(...(await this.queryHandle(handle, size, filter, filter.limit - found.length)))
      } finally {
        await handle.close()
      }
    }
    return found
  }

  private async queryHandle(handle: FileHandle, size: number, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
    const newest: AuditEntry[] = []
    await scanLines(handle, size, (line) => {
      const parsed = parseLine(line)
      if (!parsed.ok || !matches(parsed.entry, filter)) return
      newest.push(parsed.entry)
      if (newest.length > limit) newest.shift()
    })
    return newest.reverse()
  }

  async close(): Promise<void> {
    if (this.closed) return
    clearInterval(this.collapseTimer)
    await this.writeAll(this.rejections.due(true)).catch(() => undefined)
    await this.tail
    this.closed = true
    await this.handle.close()
  }
}
