import 'server-only'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { vi } from 'vitest'

/**
 * @internal What the secret tests search for a leaked password or key: every file the server wrote under its
 * data dir, and every line it printed (server/observability/logger.ts writes JSON lines to stderr).
 */

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : [full]
  })
}

/** Keeps what the process prints from now until `vi.restoreAllMocks()`, instead of printing it. */
export function captureServerOutput(): { readonly text: () => string } {
  const printed: string[] = []
  const keep = (chunk: string | Uint8Array) => {
    printed.push(String(chunk))
    return true
  }
  vi.spyOn(process.stderr, 'write').mockImplementation(keep)
  vi.spyOn(process.stdout, 'write').mockImplementation(keep)
  return { text: () => printed.join('') }
}
