import 'server-only'
import { constants } from 'node:fs'
import { copyFile, link, mkdir, stat, truncate } from 'node:fs/promises'
import path from 'node:path'
import { LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE } from './log-checkpoints'
import { INDEX_SUFFIX, LOG_SUFFIX, offsetFileName, PRODUCER_SNAPSHOT_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX } from './segment'
import type { LogFileSnapshot } from './types'

/**
 * A copy of a log as it was at its snapshot (a drill's sandbox, server/drills/), in Kafka's layout: sealed
 * segments with their indexes and producer-state snapshots hard-linked (no bytes copied; a later cleaner swap,
 * retention or deletion in the original replaces or unlinks files and leaves the copy's alone), the active
 * segment copied up to the size it had at the snapshot (appends after it are not in the copy), the leader-epoch
 * and log-start checkpoints copied. No clean-shutdown marker in the files: opened alone, the copy opens as after
 * a crash, so recovery scans its last segment, rebuilds that segment's indexes, re-derives the epochs of its
 * batches and replays producer state from the newest snapshot, as a broker restarting on these files would.
 * The snapshot's close state (LogFileSnapshot.closeState) handed to its first open instead makes it open as
 * after a clean close at the snapshot: what a drill's sandbox does (server/drills/sandbox.ts).
 */

export interface LogCopyOutcome {
  readonly filesLinked: number
  readonly bytesCopied: number
}

const SEGMENT_FILES = [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, PRODUCER_SNAPSHOT_SUFFIX] as const

/** Hard link, or a copy where the file system will not link (another device, no link support). */
async function linkOrCopy(from: string, to: string): Promise<'linked' | number> {
  try {
    await link(from, to)
    return 'linked'
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw error
    await copyFile(from, to)
    return (await stat(to)).size
  }
}

/**
 * The first `bytes` bytes of `from`, as a new `to`: the file copied by the kernel (copy_file_range) and cut back to
 * the snapshot's size (appends after it are not in the copy); three requests of the thread pool where a read and
 * write loop took six. Not synced: a copy is only ever opened by the process that made it (a drill's sandbox is
 * removed at the next start after a crash), and the page cache serves its reads.
 */
async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  await copyFile(from, to, constants.COPYFILE_EXCL)
  const copied = (await stat(to)).size
  if (copied < bytes) throw new Error(`${from} ended at byte ${copied}, before the ${bytes} bytes of the snapshot: it was truncated meanwhile`)
  if (copied > bytes) await truncate(to, bytes)
}

/** Links `from` as `to` (or copies it: linkOrCopy); null when there is no `from`. */
async function linkOrCopyIfExists(from: string, to: string): Promise<'linked' | number | null> {
  try {
    return await linkOrCopy(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

export async function copyLog(snapshot: LogFileSnapshot, targetDir: string): Promise<LogCopyOutcome> {
  await mkdir(targetDir, { recursive: true })
  let filesLinked = 0
  let bytesCopied = 0
  for (const segment of snapshot.segments) {
    if (segment.active) {
      await copyPrefix(path.join(snapshot.dir, offsetFileName(segment.baseOffset, LOG_SUFFIX)), path.join(targetDir, offsetFileName(segment.baseOffset, LOG_SUFFIX)), segment.bytes)
      bytesCopied += segment.bytes
      // The snapshot written at the roll that opened this segment: recovery replays from it.
      const producerSnapshot = offsetFileName(segment.baseOffset, PRODUCER_SNAPSHOT_SUFFIX)
      const outcome = await linkOrCopyIfExists(path.join(snapshot.dir, producerSnapshot), path.join(targetDir, producerSnapshot))
      if (outcome === 'linked') filesLinked += 1
      else if (outcome !== null) bytesCopied += outcome
      continue
    }
    for (const suffix of SEGMENT_FILES) {
      const name = offsetFileName(segment.baseOffset, suffix)
      const outcome = await linkOrCopyIfExists(path.join(snapshot.dir, name), path.join(targetDir, name))
      if (outcome === 'linked') filesLinked += 1
      else if (outcome !== null) bytesCopied += outcome
    }
  }
  for (const checkpoint of [LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE]) {
    const target = path.join(targetDir, checkpoint)
    // Replaced by rename in the original, so a copy is one version or the other, never a mix.
    try {
      await copyFile(path.join(snapshot.dir, checkpoint), target)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    bytesCopied += (await stat(target)).size
  }
  return { filesLinked, bytesCopied }
}
