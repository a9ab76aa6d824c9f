import 'server-only'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** A fresh directory under the OS temp dir; `cleanup()` removes it. */
export function makeTempDir(prefix = 'mirrorboard-storage-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  // An abandoned log instance (the crash tests leave some open on purpose) may still be writing a file: its
  // lazy high-watermark checkpoint, queued in the async write lane, can land its temp file while the tree is
  // removed (ENOTEMPTY). The retries give it up to 4 s on a loaded machine; 5 × 50 ms failed in CI.
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 40, retryDelay: 100 }) }
}
