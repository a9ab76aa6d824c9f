import 'server-only'
import { appendFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { migrateLegacyRecoveryPoints, RECOVERY_POINTS_DIRECTORY } from './lag-archive-migration'

/** One minute of one mirror: the worst lag each partition had in it (partitions with no lag are left out). */
export interface LagMinute {
  t: number
  /** [topic, partition, offsetLag, timeLagMs | null] for partitions that lagged. */
  p: Array<[string, number, number, number | null]>
}

/**
 * One minute of one mirror's recovery point, kept for the objectives' compliance (lib/mirror/objective-compliance.ts):
 * the records at risk (the sum of the partitions' worst offset lag in the minute), the oldest not mirrored (the
 * worst time lag, ms; null when none was known) and whether every lag was known all minute (a silent source
 * makes the minute unknown, never met). Written only for minutes in which the mirror protected a partition.
 */
export interface RecoveryPointMinute {
  t: number
  r: number
  s: number | null
  k: boolean
}

const RETENTION_MS = 7 * 24 * 60 * 60 * 1000
/** A line of four numbers a minute: 30 days are about 2 MB per mirror. */
const RECOVERY_POINT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000
const PRUNE_INTERVAL_MS = 24 * 60 * 60 * 1000

/** The start of the minute `t` falls in: archived minutes are named by their start. */
export function minuteOf(t: number): number {
  return Math.floor(t / 60_000) * 60_000
}

function isLagMinute(value: unknown): value is LagMinute {
  return typeof value === 'object' && value !== null && typeof (value as LagMinute).t === 'number' && Array.isArray((value as LagMinute).p)
}

function isRecoveryPointMinute(value: unknown): value is RecoveryPointMinute {
  if (typeof value !== 'object' || value === null) return false
  const m = value as RecoveryPointMinute
  return typeof m.t === 'number' && typeof m.r === 'number' && (m.s === null || typeof m.s === 'number') && typeof m.k === 'boolean'
}

/**
 * The persisted, downsampled side of lag history: the engine keeps the last hour per second in memory and
 * appends one line per mirror per minute here (`<mirror>.jsonl`), so charts over days survive a restart; and one
 * line per minute of the mirror's recovery point in `recovery-points/<mirror>.jsonl` (30 days), a directory no
 * mirror's lag file can be named (they end in `.jsonl`). Before its first read or write the archive moves the
 * recovery points of the old layout, `<mirror>.rpo.jsonl`, which a mirror named `<mirror>.rpo` shared
 * (lag-archive-migration.ts). A torn last line (a crash mid-append) is skipped on load.
 */
export class LagArchive {
  /** When each mirror's recovery-point file was last pruned (appendRecoveryPoint). */
  private readonly prunedAt = new Map<string, number>()
  /** Each mirror's writes in the order asked, so a removal is never followed by an append or a rewrite asked before it. */
  private readonly writes = new Map<string, Promise<unknown>>()

  /** The old layout's recovery points moved, once, before any read or write (a failure leaves them for the next start). */
  private migration: Promise<unknown> | undefined

  constructor(private readonly dir: string) {}

  private file(mirror: string): string {
    return path.join(this.dir, `${mirror}.jsonl`)
  }

  private pointsFile(mirror: string): string {
    return path.join(this.dir, RECOVERY_POINTS_DIRECTORY, `${mirror}.jsonl`)
  }

  /** Runs `write` after the mirror's writes asked before it, whatever became of them. */
  private inTurn<T>(mirror: string, write: () => Promise<T>): Promise<T> {
    this.migration ??= migrateLegacyRecoveryPoints(this.dir)
    const turn = (this.writes.get(mirror) ?? this.migration).catch(() => undefined).then(write)
    this.writes.set(mirror, turn)
    const forget = () => {
      if (this.writes.get(mirror) === turn) this.writes.delete(mirror)
    }
    turn.then(forget, forget)
    return turn
  }

  append(mirror: string, minute: LagMinute): Promise<void> {
    return this.inTurn(mirror, async () => {
      await mkdir(this.dir, { recursive: true })
      await appendFile(this.file(mirror), `${JSON.stringify(minute)}\n`)
    })
  }

  /**
   * A deleted mirror's lag history and recovery points: removed, after any append already asked, so a new mirror
   * of the same name starts with no history and no compliance of its own (its minutes are not the old one's).
   */
  remove(mirror: string): Promise<void> {
    return this.inTurn(mirror, async () => {
      this.prunedAt.delete(mirror)
      for (const file of [this.file(mirror), this.pointsFile(mirror)]) {
        await rm(file, { force: true })
        await rm(`${file}.tmp`, { force: true })
      }
    })
  }

  /**
   * Appends a minute; once a day the file is first rewritten without the minutes past retention. Only this writes
   * the file (one line a minute per mirror), so reads (GET /mirrors/{m}/objectives, every 30 s per viewer) never
   * rewrite it under an append.
   */
  appendRecoveryPoint(mirror: string, minute: RecoveryPointMinute): Promise<void> {
    return this.inTurn(mirror, async () => {
      await mkdir(path.dirname(this.pointsFile(mirror)), { recursive: true })
      const pruned = this.prunedAt.get(mirror)
      if (pruned === undefined || minute.t - pruned >= PRUNE_INTERVAL_MS) {
        this.prunedAt.set(mirror, minute.t)
        await loadLines(this.pointsFile(mirror), isRecoveryPointMinute, minute.t - RECOVERY_POINT_RETENTION_MS, minute.t, { rewrite: true })
      }
      await appendFile(this.pointsFile(mirror), `${JSON.stringify(minute)}\n`)
    })
  }

  /** Minutes newer than `since`, oldest first; rewrites the file without those past retention. */
  load(mirror: string, now: number, since: number): Promise<LagMinute[]> {
    return this.inTurn(mirror, () => loadLines(this.file(mirror), isLagMinute, now - RETENTION_MS, since, { rewrite: true }))
  }

  /** Recovery-point minutes newer than `since`, oldest first (30 days kept); after the appends asked before it. */
  loadRecoveryPoints(mirror: string, now: number, since: number): Promise<RecoveryPointMinute[]> {
    return this.inTurn(mirror, () => loadLines(this.pointsFile(mirror), isRecoveryPointMinute, now - RECOVERY_POINT_RETENTION_MS, since, { rewrite: false }))
  }
}

async function loadLines<T extends { t: number }>(file: string, valid: (value: unknown) => value is T, keepFrom: number, since: number, options: { rewrite: boolean }): Promise<T[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const kept: T[] = []
  for (const line of text.split('\n')) {
    if (!line) continue
    try {
      const minute: unknown = JSON.parse(line)
      if (valid(minute) && minute.t >= keepFrom) kept.push(minute)
    } catch {
      // A torn last line from a crash mid-append.
    }
  }
  if (options.rewrite) {
    const temporary = `${file}.tmp`
    await writeFile(temporary, kept.map((minute) => `${JSON.stringify(minute)}\n`).join(''))
    await rename(temporary, file)
  }
  return kept.filter((minute) => minute.t >= since)
}
