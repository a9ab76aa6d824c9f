import 'server-only'
import { copyFile, link, mkdir, open, stat } from 'node:fs/promises'
import path from 'node:path'
import { LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE } from './log-checkpoints'
import { INDEX_SUFFIX, LOG_SUFFIX, offsetFileName, PRODUCER_SNAPSHOT_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX } from './segment'
import type { LogFileSnapshot } from './types'

/**
 * A copy of a log as it was at its snapshot (a drill's sandbox, server/drills/), in Kafka's layout: sealed
 * segments with their indexes and producer-state snapshots hard-linked (no bytes copied; a later cleaner swap,
 * retention or deletion in the original replaces or unlinks files and leaves the copy's alone), the active
 * segment copied up to the size it had at the snapshot (appends after it are not in the copy), the leader-epoch
 * and log-start checkpoints copied. No clean-shutdown marker: the copy opens as after a crash, so recovery
 * scans its last segment, rebuilds that segment's indexes, re-derives the epochs of its batches and replays
 * producer state from the newest snapshot, exactly as a broker restarting on these files would.
 */

export interface LogCopyOutcome {
  readonly filesLinked: number
  readonly bytesCopied: number
}

const SEGMENT_FILES = [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, PRODUCER_SNAPSHOT_SUFFIX] as const
const CHUNK = 1 << 20

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  )
}

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

/** The first `bytes` bytes of `from`, written to a new `to` and synced. */
async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  const source = await open(from, 'r')
  const target = await open(to, 'wx')
  try {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, bytes)))
    let position = 0
    while (position < bytes) {
      const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, bytes - position), position)
      if (bytesRead === 0) throw new Error(`${from} ended at byte ${position}, before the ${bytes} bytes of the snapshot: it was truncated meanwhile`)
      await target.write(buffer, 0, bytesRead, position)
      position += bytesRead
    }
    await target.sync()
  } finally {
    await source.close()
    await target.close()
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
      if (await exists(path.join(snapshot.dir, producerSnapshot))) {
        const outcome = await linkOrCopy(path.join(snapshot.dir, producerSnapshot), path.join(targetDir, producerSnapshot))
        if (outcome === 'linked') filesLinked += 1
        else bytesCopied += outcome
      }
      continue
    }
    for (const suffix of SEGMENT_FILES) {
      const name = offsetFileName(segment.baseOffset, suffix)
      if (!(await exists(path.join(snapshot.dir, name)))) continue
      const outcome = await linkOrCopy(path.join(snapshot.dir, name), path.join(targetDir, name))
      if (outcome === 'linked') filesLinked += 1
      else bytesCopied += outcome
    }
  }
  for (const checkpoint of [LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE]) {
    const file = path.join(snapshot.dir, checkpoint)
    if (!(await exists(file))) continue
    // Replaced by rename in the original, so a copy is one version or the other, never a mix.
    await copyFile(file, path.join(targetDir, checkpoint))
    bytesCopied += (await stat(file)).size
  }
  return { filesLinked, bytesCopied }
}
