import fs from 'node:fs'
import { afterEach, beforeEach, expect } from 'vitest'
import { isStorageError } from '@/lib/log/errors'
import { PartitionLog } from '../partition-log'
import type { PartitionLogConfig } from '../types'
import { makeTempDir } from './temp-dir'

/**
 * The partition log tests' setup (partition-log.test.ts, partition-log-recovery.test.ts): a temp directory per
 * test, logs opened in it closed after, and the helpers the tests share. Call `partitionLogFixture()` at the top
 * of a test file: it registers the hooks.
 */
export function partitionLogFixture() {
  let dir = ''
  let cleanup: () => Promise<void> = async () => {}
  const opened: PartitionLog[] = []
  beforeEach(() => {
    ;({ dir, cleanup } = makeTempDir())
  })
  afterEach(async () => {
    for (const log of opened.splice(0)) await log.close().catch(() => undefined)
    await cleanup()
  })
  return {
    /** The test's directory. */
    dir: () => dir,
    async open(config: PartitionLogConfig = {}, at = dir): Promise<PartitionLog> {
      const log = await PartitionLog.open(at, config)
      opened.push(log)
      return log
    },
    /** Simulates a crash: drops the instance without close() (its descriptors are closed, nothing is written). */
    abandon(log: PartitionLog): void {
      const index = opened.indexOf(log)
      if (index >= 0) opened.splice(index, 1)
    },
    segmentFiles(at = dir): string[] {
      return fs.readdirSync(at).filter((f) => f.endsWith('.log')).sort()
    },
  }
}

export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  let error: unknown
  try {
    await promise
  } catch (e) {
    error = e
  }
  expect(isStorageError(error) ? error.code : error).toBe(code)
}

export const values = (n: number, prefix = 'v') => Array.from({ length: n }, (_, i) => ({ value: `${prefix}${i}` }))
export const text = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString())

export async function readAll(log: PartitionLog, options: Parameters<PartitionLog['read']>[2] = { maxOffset: Number.MAX_SAFE_INTEGER }) {
  return log.read(log.logStartOffset, 64 << 20, options)
}
