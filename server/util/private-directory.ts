import 'server-only'
import { mkdir, stat } from 'node:fs/promises'
import type { Logger } from '../observability/logger'

/**
 * The data directory holds tokens, sessions, the audit log and every cluster's records: created 0700, and a
 * warning at start when an existing one lets others in (a copy restored from a backup, a mkdir by hand).
 * It is not changed behind the operator's back: a shared group may be on purpose. server/main.ts also sets
 * the umask to 077, so what the server creates inside (segments, indexes, state files) is the owner's alone.
 */
export async function ensurePrivateDirectory(dir: string, log: Logger): Promise<{ openToOthers: boolean }> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const mode = (await stat(dir)).mode & 0o777
  const openToOthers = (mode & 0o077) !== 0
  if (openToOthers) {
    log.warn('the data directory can be read by others: it holds tokens, sessions and records; chmod 700 it', { dir, mode: `0${mode.toString(8)}` })
  }
  return { openToOthers }
}
