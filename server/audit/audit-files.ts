import 'server-only'
import { readdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { syncDirectory } from '@/server/util/durable-file'

/**
 * The audit log's rotated files: `audit.jsonl` is the one appended to; when it reaches its size it is renamed
 * `audit-<last entry id>.jsonl` (twelve digits, so names sort by age) and a new one starts. Retention removes
 * the oldest rotated files once they are older than the retention age or all files together exceed their
 * byte budget; the file being appended to is never removed.
 */

export interface AuditRetention {
  /** The appended file is rotated before a line would take it past this size. */
  rotateBytes: number
  /** All audit files together; the oldest rotated ones go first. */
  retainBytes: number
  /** Rotated files whose last entry is older than this go (by the file's modification time). */
  retainMs: number
}

export const DEFAULT_AUDIT_RETENTION: AuditRetention = {
  rotateBytes: 64 * 1024 * 1024,
  retainBytes: 1024 * 1024 * 1024,
  retainMs: 365 * 24 * 60 * 60 * 1000,
}

const ROTATED = /^audit-(\d{12})\.jsonl$/

export interface RotatedFile {
  file: string
  lastId: number
}

export function rotatedName(dir: string, lastId: number): string {
  return path.join(dir, `audit-${String(lastId).padStart(12, '0')}.jsonl`)
}

/** Rotated files, newest first. */
export async function listRotated(dir: string): Promise<RotatedFile[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  return names
    .flatMap((name) => {
      const match = ROTATED.exec(name)
      return match?.[1] ? [{ file: path.join(dir, name), lastId: Number(match[1]) }] : []
    })
    .sort((a, b) => b.lastId - a.lastId)
}

/**
 * Removes the rotated files retention no longer keeps; returns how many went. The appended file counts as
 * full (`rotateBytes`), so all files stay within `retainBytes` until the next rotation checks again.
 */
export async function applyRetention(dir: string, retention: AuditRetention, now: number): Promise<number> {
  let total = retention.rotateBytes
  let removed = 0
  for (const rotated of await listRotated(dir)) {
    const info = await stat(rotated.file).catch(() => null)
    if (info === null) continue
    total += info.size
    if (total > retention.retainBytes || now - info.mtimeMs > retention.retainMs) {
      await rm(rotated.file, { force: true })
      removed += 1
    }
  }
  if (removed > 0) await syncDirectory(dir)
  return removed
}
