import 'server-only'
import { createHash, randomBytes } from 'node:crypto'
import { chmod, stat } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { ApiError } from '@/lib/api/errors'
import type { ApiToken, CreateApiTokenFields } from '@/lib/api/tokens'
import { Grant, GrantRole } from '@/lib/auth/grants'
import { SnapshotWriter, readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { IdentityReplica, SharedIdentityStore } from './identity-replica'

/**
 * Named API tokens (lib/api/tokens.ts), kept in `<dataDir>/api-tokens.json` (mode 0600, replaced atomically and
 * durably like every control-plane file). The file holds each token's sha256, never the secret: a leaked copy
 * of it, or of a backup, opens nothing. Secrets are 256 random bits, so an unsalted hash is enough (nothing to
 * guess from a dictionary) and a lookup by hash is one map read.
 */

export const MAX_API_TOKENS = 1000
/** How much later than its last write a token's last use is written again (a write per request would be a write per request). */
const LAST_USED_WRITE_MS = 60_000
const SECRET_PREFIX = 'mbk_'

export interface StoredApiToken extends ApiToken {
  /** sha256 of the secret, hex. */
  hash: string
}

const StoredToken = z.object({
  name: z.string(),
  role: GrantRole,
  clusters: z.array(z.string()).optional(),
  mirrors: z.array(z.string()).optional(),
  prefix: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.number(),
  createdBy: z.string(),
  expiresAt: z.number(),
  lastUsedAt: z.number().nullable(),
})
const TokensFile = z.object({ tokens: z.array(StoredToken) })

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** What a presented bearer secret is: a live token, one past its expiry, or none of ours. */
export type TokenLookup = { status: 'live'; token: StoredApiToken } | { status: 'expired'; token: StoredApiToken } | { status: 'unknown' }

export function grantOf(token: Pick<ApiToken, 'role' | 'clusters' | 'mirrors'>): Grant {
  return Grant.parse({ role: token.role, ...(token.clusters === undefined ? {} : { clusters: token.clusters }), ...(token.mirrors === undefined ? {} : { mirrors: token.mirrors }) })
}

function publicView({ hash: _hash, ...token }: StoredApiToken): ApiToken {
  return token
}

export class ApiTokenStore implements SharedIdentityStore {
  readonly sharedPrefix = 'api-token'
  private readonly byHash = new Map<string, StoredApiToken>()
  private readonly writer: SnapshotWriter
  private lastUsedWrittenAt = 0
  private replica: IdentityReplica | null = null

  private constructor(
    readonly file: string,
    private readonly now: () => number,
  ) {
    this.writer = new SnapshotWriter(() => writeFileAtomic(this.file, `${JSON.stringify({ tokens: [...this.byHash.values()] })}\n`, 0o600))
  }

  /**
   * An unreadable file stops the start rather than dropping every token: machines would lose access with no
   * word said, and the next create would overwrite the file for good.
   */
  static async open(dataDir: string, now: () => number = Date.now): Promise<ApiTokenStore> {
    const store = new ApiTokenStore(path.join(dataDir, 'api-tokens.json'), now)
    const text = await readTextIfExists(store.file)
    if (text === undefined) return store
    let parsed: z.ZodSafeParseResult<z.infer<typeof TokensFile>> | undefined
    try {
      parsed = TokensFile.safeParse(JSON.parse(text))
    } catch {
      parsed = undefined
    }
    if (!parsed?.success) throw new Error(`${store.file} is not an API tokens file; restore it from a backup, or remove it to revoke every named token`)
    for (const token of parsed.data.tokens) store.byHash.set(token.hash, token)
    // A copy restored from a backup may have lost its mode.
    if (((await stat(store.file)).mode & 0o077) !== 0) await chmod(store.file, 0o600)
    return store
  }

  get size(): number {
    return this.byHash.size
  }

  /** Every token, by name, without its hash. */
  list(): ApiToken[] {
    return [...this.byHash.values()].map(publicView).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  private byName(name: string): StoredApiToken | undefined {
    for (const token of this.byHash.values()) if (token.name === name) return token
    return undefined
  }

  /** A new token and its secret; the secret leaves this function once and is never kept. */
  async create(request: CreateApiTokenFields, createdBy: string): Promise<{ token: ApiToken; secret: string }> {
    if (this.byName(request.name) !== undefined) {
      throw new ApiError('CONFLICT', `a token named ${request.name} exists; revoke it first or choose another name`, { details: { name: request.name } })
    }
    if (this.byHash.size >= MAX_API_TOKENS) throw new ApiError('CONFLICT', `this server holds ${MAX_API_TOKENS} tokens, its maximum; revoke unused ones first`)
    const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`
    const createdAt = this.now()
    const token: StoredApiToken = {
      name: request.name,
      role: request.role,
      ...(request.clusters === undefined ? {} : { clusters: request.clusters }),
      ...(request.mirrors === undefined ? {} : { mirrors: request.mirrors }),
      prefix: secret.slice(0, SECRET_PREFIX.length + 6),
      hash: sha256Hex(secret),
      createdAt,
      createdBy,
      expiresAt: createdAt + request.expiresInDays * 24 * 60 * 60 * 1000,
      lastUsedAt: null,
    }
    this.byHash.set(token.hash, token)
    try {
      await this.writer.save()
    } catch (error) {
      // Not on disk, so not handed out: a token that vanishes at the next restart would fail a pipeline later.
      this.byHash.delete(token.hash)
      throw error
    }
    // Shared before its secret is handed out: the pipeline may call any instance with it next.
    await this.replica?.put(token.hash, token)
    return { token: publicView(token), secret }
  }

  /** Removes the token; its next request is refused. False when no token has that name. */
  async revoke(name: string): Promise<boolean> {
    const token = this.byName(name)
    if (token === undefined) return false
    this.byHash.delete(token.hash)
    await this.writer.save()
    await this.replica?.remove(token.hash)
    return true
  }

  attachReplica(replica: IdentityReplica): void {
    this.replica = replica
  }

  applyShared(hash: string, value: unknown): void {
    if (value === null) {
      if (this.byHash.delete(hash)) void this.writer.save().catch(() => undefined)
      return
    }
    const parsed = StoredToken.safeParse(value)
    if (!parsed.success || parsed.data.hash !== hash) return
    // Another instance's token of the same name (made at the same moment) is replaced: names stay unique here.
    const sameName = this.byName(parsed.data.name)
    if (sameName !== undefined && sameName.hash !== hash) this.byHash.delete(sameName.hash)
    const lastUsedAt = Math.max(this.byHash.get(hash)?.lastUsedAt ?? 0, parsed.data.lastUsedAt ?? 0)
    this.byHash.set(hash, { ...(parsed.data as StoredApiToken), lastUsedAt: lastUsedAt === 0 ? null : lastUsedAt })
    void this.writer.save().catch(() => undefined)
  }

  sharedEntries(): Array<[string, unknown]> {
    return [...this.byHash.entries()]
  }

  /** The token this secret is, marking it used (written to disk at most once a minute). */
  find(secret: string): TokenLookup {
    if (!secret.startsWith(SECRET_PREFIX)) return { status: 'unknown' }
    const token = this.byHash.get(sha256Hex(secret))
    if (token === undefined) return { status: 'unknown' }
    const now = this.now()
    if (token.expiresAt <= now) return { status: 'expired', token }
    token.lastUsedAt = now
    if (now - this.lastUsedWrittenAt >= LAST_USED_WRITE_MS) {
      this.lastUsedWrittenAt = now
      void this.writer.save().catch(() => undefined)
    }
    return { status: 'live', token }
  }

  /** Waits for pending writes (tests, shutdown). */
  flush(): Promise<void> {
    return this.writer.save()
  }
}
