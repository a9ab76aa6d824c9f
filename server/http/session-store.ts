import 'server-only'
import { createHash, randomBytes } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import type { Role } from '@/lib/api/session'
import { SnapshotWriter, readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '../observability/logger'
import type { IdentityReplica, SharedIdentityStore } from './identity-replica'

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000
/**
 * Sessions kept per role. A sign-in beyond it ends the oldest session of the same role, never another role's:
 * 1,000 viewer sign-ins used to sign a live operator out.
 */
export const MAX_SESSIONS_PER_ROLE = 1000
/** Sessions kept per person signed in through the identity provider (a browser each, and then some). */
export const MAX_SESSIONS_PER_SUBJECT = 50
/** How much later than its last write a provider session's last use is written again (a write per request would be a write per request). */
const LAST_SEEN_WRITE_MS = 60_000

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** Who signed in through the identity provider; their roles are worked out from it on each request (roles file). */
export interface SessionIdentity {
  subject: string
  name?: string | undefined
  email?: string | undefined
  groups: string[]
}

export interface StoredSession {
  /** sha256 of the session id, hex. */
  idHash: string
  /** The strongest role at sign-in, as the header shows it; a provider session's grants come from `identity`. */
  role: Role
  /** The token's fingerprint; `oidc` for a provider sign-in. */
  tokenFingerprint: string
  createdAt: number
  /** The absolute end. */
  expiresAt: number
  identity?: SessionIdentity | undefined
  /** Provider sessions end when unused for the idle time. */
  lastSeenAt?: number | undefined
  /** The ID token a provider session signed in with: sign-out sends it as `id_token_hint`. Kept here only (mode 0600 file), never in a cookie or an answer. */
  idToken?: string | undefined
}

const StoredSessionSchema = z.object({
  idHash: z.string().regex(/^[0-9a-f]{64}$/),
  role: z.enum(['viewer', 'operator']),
  tokenFingerprint: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  identity: z.object({ subject: z.string(), name: z.string().optional(), email: z.string().optional(), groups: z.array(z.string()) }).optional(),
  lastSeenAt: z.number().optional(),
  idToken: z.string().optional(),
})

const SessionsFile = z.object({ sessions: z.array(StoredSessionSchema) })

/** Sessions by hashed id, kept in `<dataDir>/sessions.json` (mode 0600) so a restart does not sign anyone out. */
export class SessionStore implements SharedIdentityStore {
  readonly sharedPrefix = 'session'
  private readonly sessions = new Map<string, StoredSession>()
  private readonly writer: SnapshotWriter
  private lastSeenWrittenAt = 0
  private replica: IdentityReplica | null = null

  private constructor(
    readonly file: string,
    private readonly now: () => number,
  ) {
    this.writer = new SnapshotWriter(() =>
      writeFileAtomic(this.file, `${JSON.stringify({ sessions: [...this.sessions.values()] })}\n`, 0o600),
    )
  }

  static async open(dataDir: string, now: () => number = Date.now, log?: Logger): Promise<SessionStore> {
    const store = new SessionStore(path.join(dataDir, 'sessions.json'), now)
    const text = await readTextIfExists(store.file)
    if (text !== undefined) {
      let parsed: z.ZodSafeParseResult<z.infer<typeof SessionsFile>> | undefined
      try {
        parsed = SessionsFile.safeParse(JSON.parse(text))
      } catch {
        parsed = undefined
      }
      // Sessions are a convenience: an unreadable file signs everyone out instead of stopping the server.
      if (parsed?.success) for (const session of parsed.data.sessions) store.sessions.set(session.idHash, session)
      else log?.warn('ignoring an unreadable sessions file', { file: store.file })
    }
    return store
  }

  get size(): number {
    return this.sessions.size
  }

  async create(role: Role, tokenFingerprint: string, identity?: SessionIdentity, idToken?: string): Promise<{ id: string; idHash: string; expiresAt: number }> {
    const id = randomBytes(32).toString('base64url')
    const createdAt = this.now()
    const session: StoredSession = {
      idHash: sha256(id).toString('hex'),
      role,
      tokenFingerprint,
      createdAt,
      expiresAt: createdAt + SESSION_TTL_MS,
      ...(identity === undefined ? {} : { identity, lastSeenAt: createdAt }),
      ...(identity === undefined || idToken === undefined ? {} : { idToken }),
    }
    this.pruneExpired()
    // Token sessions are evicted per role, provider sessions per person: nobody's sign-ins end another's session.
    const sameBucket = (stored: StoredSession) =>
      identity === undefined ? stored.identity === undefined && stored.role === role : stored.identity?.subject === identity.subject
    const limit = identity === undefined ? MAX_SESSIONS_PER_ROLE : MAX_SESSIONS_PER_SUBJECT
    // Oldest first: a Map keeps insertion order.
    const bucket = [...this.sessions.entries()].filter(([, stored]) => sameBucket(stored))
    const evicted = bucket.slice(0, Math.max(0, bucket.length - limit + 1)).map(([key]) => key)
    for (const key of evicted) this.sessions.delete(key)
    this.sessions.set(session.idHash, session)
    await this.writer.save()
    // Shared before the browser gets its cookie: its next request may reach another instance.
    await this.replica?.put(session.idHash, session)
    for (const key of evicted) await this.replica?.remove(key)
    return { id, idHash: session.idHash, expiresAt: session.expiresAt }
  }

  /**
   * The live session of this id. A provider session unused for `idleMs` has ended; one that is used is marked
   * so (written now and then, not on every request).
   */
  find(id: string, idleMs = Number.POSITIVE_INFINITY): StoredSession | null {
    const session = this.sessions.get(sha256(id).toString('hex'))
    const now = this.now()
    if (session === undefined || session.expiresAt <= now) return null
    if (session.identity !== undefined) {
      const lastSeenAt = session.lastSeenAt ?? session.createdAt
      if (lastSeenAt + idleMs <= now) return null
      session.lastSeenAt = now
      // The file may lag a minute behind: after a restart a session lives at most that much less.
      if (now - this.lastSeenWrittenAt >= LAST_SEEN_WRITE_MS) {
        this.lastSeenWrittenAt = now
        void this.writer.save().catch(() => undefined)
        // The other instances measure the idle time from the same last use (a minute late at most).
        void this.replica?.put(session.idHash, session)
      }
    }
    return session
  }

  /** When this session ends if nothing else happens: the absolute end, or sooner the idle one. */
  endOf(session: StoredSession, idleMs: number): number {
    return session.identity === undefined ? session.expiresAt : Math.min(session.expiresAt, (session.lastSeenAt ?? session.createdAt) + idleMs)
  }

  async delete(id: string): Promise<boolean> {
    const idHash = sha256(id).toString('hex')
    const deleted = this.sessions.delete(idHash)
    if (deleted) await this.writer.save()
    // Ended everywhere, also when this instance never held it: a sign-out may reach any instance.
    await this.replica?.remove(idHash)
    return deleted
  }

  private pruneExpired(): void {
    const now = this.now()
    for (const [key, session] of this.sessions) {
      if (session.expiresAt > now) continue
      this.sessions.delete(key)
      void this.replica?.remove(key)
    }
  }

  attachReplica(replica: IdentityReplica): void {
    this.replica = replica
  }

  /** Waits for the writes under way (tests, shutdown). */
  flush(): Promise<void> {
    return this.writer.save()
  }

  applyShared(idHash: string, value: unknown): void {
    if (value === null) {
      if (this.sessions.delete(idHash)) void this.writer.save().catch(() => undefined)
      return
    }
    const parsed = StoredSessionSchema.safeParse(value)
    if (!parsed.success || parsed.data.idHash !== idHash) return
    const held = this.sessions.get(idHash)
    const lastSeenAt = Math.max(held?.lastSeenAt ?? 0, parsed.data.lastSeenAt ?? 0)
    this.sessions.set(idHash, { ...parsed.data, ...(lastSeenAt > 0 ? { lastSeenAt } : {}) })
    void this.writer.save().catch(() => undefined)
  }

  sharedEntries(): Array<[string, unknown]> {
    return [...this.sessions.entries()]
  }
}
