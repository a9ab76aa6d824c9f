import type { Context } from './context'
import { RefusedError } from './exit'

/**
 * The typed confirmation of something that cannot be undone (a failover, a failback's truncation), after its
 * preview was printed: `--confirm VALUE` in a script; typed at the terminal otherwise, as the wizard asks for it.
 * Without a terminal and without --confirm, nothing is done: a usage error (exit 2) naming the flag to add.
 */
export async function confirmation({ io, flags }: Pick<Context, 'io' | 'flags'>, expected: string, what: string): Promise<string> {
  const given = flags.string('confirm')
  if (given !== undefined) return given
  if (!io.interactive) throw flags.usageError(`${what} needs --confirm ${expected} when not run at a terminal (the preview above is what it would do)`)
  const typed = await io.readLine(`Type ${expected} to confirm ${what}: `)
  if (typed === null || typed.trim() !== expected) {
    throw new RefusedError('CONFIRMATION_REQUIRED', `${typed === null ? 'nothing was' : `"${typed.trim()}" was`} typed, not ${expected}: nothing was done`)
  }
  return expected
}
