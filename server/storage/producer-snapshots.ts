import 'server-only'
import fs from 'node:fs'
import path from 'node:path'
import type { ProducerStateSnapshot } from '@/lib/log/producer-state'
import { isProducerStateSnapshot } from '@/lib/log/producer-state'
import { crc32c } from './crc32c'
import { readFileIfExists, unlinkIfExists, writeFileDurably, type DurableFileWrite } from '@/server/util/durable-file'
import { offsetFileName, parseOffsetFileName, PRODUCER_SNAPSHOT_SUFFIX } from './segment'

/*
 * Producer-state snapshots: `<offset>.producer-snapshot` = 8 hex digits of CRC32C, a newline, then JSON of the
 * state reflecting every batch below `offset`. Our own format (Kafka's `.snapshot` keeps one batch per
 * producer; we keep five for duplicate detection). A snapshot that fails its checksum is ignored: recovery
 * then starts from an older one and replays more of the log.
 */

export function writeProducerSnapshot(dir: string, snapshot: ProducerStateSnapshot): void {
  const { file, data } = producerSnapshotFile(dir, snapshot)
  writeFileDurably(file, data)
}

/** The snapshot's file and content (checksum line, then the JSON), for a batch of durable writes. */
export function producerSnapshotFile(dir: string, snapshot: ProducerStateSnapshot): DurableFileWrite {
  const json = JSON.stringify(snapshot)
  const checksum = crc32c(Buffer.from(json, 'utf8')).toString(16).padStart(8, '0')
  return { file: path.join(dir, offsetFileName(snapshot.offset, PRODUCER_SNAPSHOT_SUFFIX)), data: `${checksum}\n${json}` }
}

export function listProducerSnapshotOffsets(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .map((name) => parseOffsetFileName(name, PRODUCER_SNAPSHOT_SUFFIX))
    .filter((offset): offset is number => offset !== undefined)
    .sort((a, b) => a - b)
}

/** The snapshot at `offset`, or undefined when missing, torn or of an unknown shape. */
export function readProducerSnapshot(dir: string, offset: number): ProducerStateSnapshot | undefined {
  const bytes = readFileIfExists(path.join(dir, offsetFileName(offset, PRODUCER_SNAPSHOT_SUFFIX)))
  if (bytes === undefined) return undefined
  const text = bytes.toString('utf8')
  const newline = text.indexOf('\n')
  if (newline !== 8) return undefined
  const json = text.slice(newline + 1)
  if (crc32c(Buffer.from(json, 'utf8')).toString(16).padStart(8, '0') !== text.slice(0, 8)) return undefined
  try {
    const parsed: unknown = JSON.parse(json)
    return isProducerStateSnapshot(parsed) && parsed.offset === offset ? parsed : undefined
  } catch {
    return undefined
  }
}

/** The newest valid snapshot at or below `maxOffset`. */
export function latestProducerSnapshot(dir: string, maxOffset: number): ProducerStateSnapshot | undefined {
  const offsets = listProducerSnapshotOffsets(dir).filter((o) => o <= maxOffset)
  for (let i = offsets.length - 1; i >= 0; i--) {
    const snapshot = readProducerSnapshot(dir, offsets[i]!)
    if (snapshot) return snapshot
  }
  return undefined
}

/** Deletes the snapshots whose offset matches; returns how many went. */
export function deleteProducerSnapshots(dir: string, shouldDelete: (offset: number) => boolean): number {
  let deleted = 0
  for (const offset of listProducerSnapshotOffsets(dir)) {
    if (shouldDelete(offset) && unlinkIfExists(path.join(dir, offsetFileName(offset, PRODUCER_SNAPSHOT_SUFFIX)))) deleted++
  }
  return deleted
}
