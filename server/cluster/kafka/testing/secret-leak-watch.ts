import 'server-only'
import { readdirSync } from 'node:fs'
import path from 'node:path'

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

/**
 * Keeps what the process prints from now until `restore()`, instead of printing it. Plain reassignment, not
 * vitest's spies: files outside `*.test.ts` are type-checked by the production build, which has no vitest.
 */
export function captureServerOutput(): { readonly text: () => string; readonly restore: () => void } {
  const printed: string[] = []
  const streams = [process.stdout, process.stderr] as const
  const originals = streams.map((stream) => stream.write)
  const keep = ((chunk: string | Uint8Array) => {
    printed.push(String(chunk))
    return true
  }) as typeof process.stdout.write
  for (const stream of streams) stream.write = keep
  return {
    text: () => printed.join(''),
    restore: () => streams.forEach((stream, index) => (stream.write = originals[index]!)),
  }
}
