import 'server-only'
import { createHash, randomBytes } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import type { Role } from '@/lib/api/session'
import { SnapshotWriter, readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '../observability/logger'

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000
/**
 * Sessions kept per role. A sign-in beyond it ends the oldest session of the same role, never another role's:
 * 1,000 viewer sign-ins used to sign a live operator out.
 */
export const MAX_SESSIONS_PER_ROLE = 1000

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

export interface StoredSession {
  /** sha256 of the session id, hex. */
  idHash: string
  role: Role
  tokenFingerprint: string
  createdAt: number
  expiresAt: number
}

const SessionsFile = z.object({
  sessions: z.array(
    z.object({
      idHash: z.string().regex(/^[0-9a-f]{64}$/),
      role: z.enum(['viewer', 'operator']),
      tokenFingerprint: z.string(),
      createdAt: z.number(),
      expiresAt: z.number(),
    }),
  ),
})

/** Sessions by hashed id, kept in `<dataDir>/sessions.json` (mode 0600) so a restart does not sign anyone out. */
export class SessionStore {
  private readonly sessions = new Map<string, StoredSession>()
  private readonly writer: SnapshotWriter

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

  async create(role: Role, tokenFingerprint: string): Promise<{ id: string; expiresAt: number }> {
    const id = randomBytes(32).toString('base64url')
    const createdAt = this.now()
    const session: StoredSession = { idHash: sha256(id).toString('hex'), role, tokenFingerprint, createdAt, expiresAt: createdAt + SESSION_TTL_MS }
    this.pruneExpired()
    // Oldest first: a Map keeps insertion order.
    const sameRole = [...this.sessions.entries()].filter(([, stored]) => stored.role === role)
    for (const [key] of sameRole.slice(0, Math.max(0, sameRole.length - MAX_SESSIONS_PER_ROLE + 1))) this.sessions.delete(key)
    this.sessions.set(session.idHash, session)
    await this.writer.save()
    return { id, expiresAt: session.expiresAt }
  }

  find(id: string): StoredSession | null {
    const session = this.sessions.get(sha256(id).toString('hex'))
    if (session === undefined || session.expiresAt <= this.now()) return null
    return session
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.sessions.delete(sha256(id).toString('hex'))
    if (deleted) await this.writer.save()
    return deleted
  }

  private pruneExpired(): void {
    const now = this.now()
    for (const [key, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(key)
  }
}
