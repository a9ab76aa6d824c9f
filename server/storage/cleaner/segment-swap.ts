import 'server-only'
import fs from 'node:fs'
import path from 'node:path'
import { fsyncDirectory, unlinkIfExists } from '@/server/util/durable-file'
import { INDEX_SUFFIX, LOG_SUFFIX, offsetFileName, parseOffsetFileName, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX } from '../segment'

/*
 * The cleaner replaces a group of sealed segments [base, end) by one cleaned segment with the same base offset,
 * crash-safely, as Kafka's LogCleaner does with `.cleaned` and `.swap` files:
 *
 *   1. `<base>.log.cleaned` is written and fsync'd (a crash here: the leftover is deleted on open);
 *   2. it is renamed to `<base>.log.<end>.swap` and the directory fsync'd — the commit point: from here on
 *      recovery finishes the swap;
 *   3. the old segments' files are deleted, the swap file renamed to `<base>.log`, the directory fsync'd.
 *
 * The swap name carries the group's end because the cleaned segment may end earlier than the group did (its
 * last batches can be compacted away), so its own offsets cannot tell which old segments it replaces. Kafka
 * names are used for everything that stays on disk; `.cleaned` and `.swap` files never outlive a recovery.
 */

export const CLEANED_SUFFIX = '.cleaned'
const SWAP_SUFFIX = '.swap'
const SWAP_PATTERN = /^(\d{20})\.log\.(\d{20})\.swap$/

export function cleanedFileName(baseOffset: number): string {
  return `${offsetFileName(baseOffset, LOG_SUFFIX)}${CLEANED_SUFFIX}`
}

export function swapFileName(baseOffset: number, endOffset: number): string {
  return `${offsetFileName(baseOffset, LOG_SUFFIX)}.${String(endOffset).padStart(20, '0')}${SWAP_SUFFIX}`
}

/** Deletes the `.log`, `.index`, `.timeindex` and `.txnindex` files of every segment with a base in [base, end). */
function deleteSegmentFilesIn(dir: string, baseOffset: number, endOffset: number): void {
  for (const name of fs.readdirSync(dir)) {
    const base = parseOffsetFileName(name, LOG_SUFFIX)
    if (base === undefined || base < baseOffset || base >= endOffset) continue
    for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, LOG_SUFFIX]) unlinkIfExists(path.join(dir, offsetFileName(base, suffix)))
  }
}

/**
 * Steps 2 and 3 above for a cleaned file already written and fsync'd. The cleaned segment's index files are
 * the caller's to write afterwards; until they exist the segment is loaded by a scan (its aborted index is
 * empty either way: cleaning removes every aborted batch of the range).
 */
export function swapInCleanedSegment(dir: string, baseOffset: number, endOffset: number): void {
  const swap = path.join(dir, swapFileName(baseOffset, endOffset))
  fs.renameSync(path.join(dir, cleanedFileName(baseOffset)), swap)
  fsyncDirectory(dir)
  finishSwap(dir, swap, baseOffset, endOffset)
}

function finishSwap(dir: string, swap: string, baseOffset: number, endOffset: number): void {
  deleteSegmentFilesIn(dir, baseOffset, endOffset)
  fs.renameSync(swap, path.join(dir, offsetFileName(baseOffset, LOG_SUFFIX)))
  fsyncDirectory(dir)
}

/** On open: discards cleanings that never reached their commit point and completes those that did. */
export function completeInterruptedSwaps(dir: string): void {
  let changed = false
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith(CLEANED_SUFFIX)) {
      unlinkIfExists(path.join(dir, name))
      changed = true
      continue
    }
    const swap = SWAP_PATTERN.exec(name)
    if (swap) {
      finishSwap(dir, path.join(dir, name), Number(swap[1]), Number(swap[2]))
      changed = false
    }
  }
  if (changed) fsyncDirectory(dir)
}
