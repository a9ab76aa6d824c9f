import 'server-only'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { durableWritesSettled } from '@/server/util/durable-file'

/** A fresh directory under the OS temp dir; `cleanup()` removes it. */
export function makeTempDir(prefix = 'mirrorboard-storage-'): { dir: string; cleanup: () => Promise<void> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  // An abandoned log instance (the crash tests leave some open on purpose) may still be writing a file: its lazy
  // high-watermark checkpoint, queued in the async write lane, could land its temp file while the tree was being
  // removed (ENOTEMPTY), and a synchronous rm with retries blocked the very event loop that write needed to finish
  // (CI failed after 40 retries). So: wait until no durable write runs, then remove without blocking.
  return {
    dir,
    cleanup: async () => {
      await durableWritesSettled()
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    },
  }
}
