import 'server-only'
import { randomBytes } from 'node:crypto'
import { chmod, stat } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import type { Role } from '@/lib/api/session'
import type { Logger } from '../observability/logger'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'

/**
 * The two access tokens a server answers to when no identity provider signs people in (and beside one): where
 * they come from (the environment, the data dir's tokens file, or generated at the first start) and whether one
 * is strong enough. auth.ts checks requests against them.
 */

export interface Tokens {
  operator: string
  viewer: string
}

const TokensFile = z.object({ operator: z.string().min(1).optional(), viewer: z.string().min(1).optional() })

function generateToken(role: Role): string {
  return `mb${role === 'operator' ? 'o' : 'v'}_${randomBytes(32).toString('base64url')}`
}

/**
 * An estimate of a token's strength: its length times the bits of the alphabet its characters come from
 * (lower case, upper case, digits, others). A generated token is 256 bits; 128 is the least the warning asks.
 */
export function tokenStrengthBits(token: string): number {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/]
  const sizes = [26, 26, 10, 33]
  const alphabet = classes.reduce((total, pattern, index) => total + (pattern.test(token) ? (sizes[index] ?? 0) : 0), 0)
  return Math.floor(token.length * Math.log2(Math.max(alphabet, 2)))
}

export const MIN_TOKEN_BITS = 128

/**
 * Tokens from the environment, else from `<dataDir>/tokens.json`, else generated now, kept there (mode 0600)
 * and printed once so the person who started the server can sign in.
 */
export async function loadTokens(
  dataDir: string,
  fromEnv: { operator?: string | undefined; viewer?: string | undefined },
  log: Logger,
): Promise<Tokens> {
  const file = path.join(dataDir, 'tokens.json')
  const text = await readTextIfExists(file)
  let stored: z.infer<typeof TokensFile> = {}
  if (text !== undefined) {
    const parsed = TokensFile.safeParse(JSON.parse(text))
    if (!parsed.success) throw new Error(`${file} is not a tokens file; remove it to generate new tokens`, { cause: parsed.error })
    stored = parsed.data
    // A copy restored from a backup may have lost its mode; tokens are secrets.
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600)
  }

  const generated: Partial<Tokens> = {}
  const pick = (role: Role): string => {
    const value = fromEnv[role] ?? stored[role]
    if (value !== undefined) return value
    generated[role] = generateToken(role)
    return generated[role]
  }
  const tokens: Tokens = { operator: pick('operator'), viewer: pick('viewer') }
  for (const role of ['operator', 'viewer'] as const) {
    const bits = tokenStrengthBits(tokens[role])
    if (generated[role] === undefined && bits < MIN_TOKEN_BITS) {
      log.warn(`the ${role} token is weak (about ${bits} bits, under ${MIN_TOKEN_BITS}): it can be guessed; use a long random one, or leave it unset to have one generated`, { role, bits })
    }
  }
  if (tokens.operator === tokens.viewer) {
    throw new Error('the operator and viewer tokens must differ (MIRRORBOARD_OPERATOR_TOKEN, MIRRORBOARD_VIEWER_TOKEN)')
  }
  if (generated.operator !== undefined || generated.viewer !== undefined) {
    await writeFileAtomic(file, `${JSON.stringify({ ...stored, ...generated }, null, 1)}\n`, 0o600)
    const lines = Object.entries(generated).map(([role, token]) => `  ${role.padEnd(8)} ${token}`)
    // Printed on purpose, once: this is how the person starting the server learns the generated tokens.
    process.stdout.write(`Mirrorboard access tokens (kept in ${file}):\n${lines.join('\n')}\n`)
    log.info('generated access tokens', { file, roles: Object.keys(generated) })
  }
  return tokens
}

