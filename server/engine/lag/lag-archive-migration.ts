import 'server-only'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** Where recovery-point files live: no mirror's lag file can have this name, as lag files end in `.jsonl`. */
export const RECOVERY_POINTS_DIRECTORY = 'recovery-points'

const LEGACY_SUFFIX = '.rpo.jsonl'

function isRecoveryPointLine(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === 'object' && value !== null && typeof (value as { t?: unknown }).t === 'number' && 'r' in value && 'k' in value && !('p' in value)
  } catch {
    return false
  }
}

/**
 * Recovery points were once kept beside the lag history as `<mirror>.rpo.jsonl`, which is also the lag file of a
 * mirror named `<mirror>.rpo` (a legal name): both mirrors appended to one file. They now live in
 * `recovery-points/<mirror>.jsonl`. This moves every legacy file's recovery-point lines there (merged with any
 * already moved, one line per minute, oldest first) and leaves its other lines, the lag of a mirror named
 * `….rpo`, where they were; a file left with none is removed. The new file is written before the old one is
 * trimmed, and minutes already moved are not moved twice, so a crash midway loses nothing when it runs again.
 */
export async function migrateLegacyRecoveryPoints(dir: string): Promise<number> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw error
  }
  let moved = 0
  for (const name of names.filter((candidate) => candidate.endsWith(LEGACY_SUFFIX))) {
    const legacy = path.join(dir, name)
    const lines = (await readFile(legacy, 'utf8')).split('\n').filter((line) => line !== '')
    const points = lines.filter(isRecoveryPointLine)
    if (points.length === 0) continue
    const rest = lines.filter((line) => !isRecoveryPointLine(line))
    const target = path.join(dir, RECOVERY_POINTS_DIRECTORY, `${name.slice(0, -LEGACY_SUFFIX.length)}.jsonl`)
    await mkdir(path.dirname(target), { recursive: true })
    await replace(target, mergeByMinute(points, await readLines(target)))
    if (rest.length === 0) await rm(legacy, { force: true })
    else await replace(legacy, rest)
    moved += points.length
  }
  return moved
}

async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}

/** One line per minute (the later file's wins), oldest first; lines that are not a minute (a torn append) are left out. */
function mergeByMinute(...sources: string[][]): string[] {
  const byMinute = new Map<number, string>()
  for (const line of sources.flat()) {
    if (isRecoveryPointLine(line)) byMinute.set((JSON.parse(line) as { t: number }).t, line)
  }
  return [...byMinute.entries()].sort(([a], [b]) => a - b).map(([, line]) => line)
}

async function replace(file: string, lines: readonly string[]): Promise<void> {
  const temporary = `${file}.tmp`
  await writeFile(temporary, lines.map((line) => `${line}\n`).join(''))
  await rename(temporary, file)
}
