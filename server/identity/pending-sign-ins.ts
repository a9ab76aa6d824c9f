import 'server-only'
import path from 'node:path'
import { z } from 'zod'
import { SnapshotWriter, readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { IdentityReplica, SharedIdentityStore } from '@/server/http/identity-replica'
import type { PendingSignIn } from './oidc-client'

/**
 * Sign-ins sent to the provider and not back yet, by state. Each is taken once (a replayed callback finds
 * nothing), lives ten minutes, and at most MAX_PENDING are kept: a flood of started sign-ins pushes out the
 * oldest, never grows memory.
 *
 * With a data dir they are also kept in `<dataDir>/pending-sign-ins.json` (mode 0600, replaced atomically and
 * durably), so a restart while someone is at the provider's login form does not make them start again. A start
 * waits for its write (the browser is sent to the provider only once its sign-in would survive a crash); a take
 * does not (the worst a crash can then do is keep a used state until it expires, and the provider's code it
 * came with is already spent). The file holds the PKCE verifier and nonce of sign-ins at most ten minutes old:
 * secrets only together with a code the provider hands to that browser alone.
 */

export const PENDING_TTL_MS = 10 * 60 * 1000
export const MAX_PENDING = 10_000

const PendingEntry = z.object({ state: z.string(), nonce: z.string(), codeVerifier: z.string(), next: z.string(), createdAt: z.number() })
const PendingFile = z.object({ pending: z.array(PendingEntry) })

export class PendingSignIns implements SharedIdentityStore {
  readonly sharedPrefix = 'pending-sign-in'
  private readonly byState = new Map<string, PendingSignIn>()
  private readonly writer: SnapshotWriter | null
  private replica: IdentityReplica | null = null

  constructor(
    private readonly now: () => number = Date.now,
    readonly file: string | null = null,
  ) {
    this.writer = file === null ? null : new SnapshotWriter(() => writeFileAtomic(file, `${JSON.stringify({ pending: [...this.byState.values()] })}\n`, 0o600))
  }

  /** The pending sign-ins kept in `dataDir`, those still in time; an unreadable file is ignored (they start again). */
  static async open(dataDir: string, now: () => number = Date.now): Promise<PendingSignIns> {
    const pending = new PendingSignIns(now, path.join(dataDir, 'pending-sign-ins.json'))
    const text = await readTextIfExists(pending.file as string)
    if (text === undefined) return pending
    let parsed: z.ZodSafeParseResult<z.infer<typeof PendingFile>> | undefined
    try {
      parsed = PendingFile.safeParse(JSON.parse(text))
    } catch {
      parsed = undefined
    }
    if (parsed?.success) {
      for (const entry of parsed.data.pending) if (now() - entry.createdAt < PENDING_TTL_MS) pending.byState.set(entry.state, entry)
    }
    return pending
  }

  async add(pending: PendingSignIn): Promise<void> {
    this.byState.set(pending.state, pending)
    const ended = this.trim()
    await this.writer?.save()
    // Shared before the browser goes to the provider: it may come back to another instance.
    await this.replica?.put(pending.state, pending)
    for (const state of ended) await this.replica?.remove(state)
  }

  /** Drops what is too old, then the oldest beyond MAX_PENDING; the states dropped. */
  private trim(): string[] {
    const ended: string[] = []
    const now = this.now()
    for (const [state, entry] of this.byState) {
      if (now - entry.createdAt < PENDING_TTL_MS) break
      this.byState.delete(state)
      ended.push(state)
    }
    while (this.byState.size > MAX_PENDING) {
      const oldest = this.byState.keys().next()
      if (oldest.done) break
      this.byState.delete(oldest.value)
      ended.push(oldest.value)
    }
    return ended
  }

  take(state: string): PendingSignIn | null {
    const pending = this.byState.get(state)
    if (pending === undefined) return null
    this.byState.delete(state)
    void this.writer?.save().catch(() => undefined)
    // Used once across the group too: a replayed callback at another instance finds nothing once this arrives.
    void this.replica?.remove(state)
    return this.now() - pending.createdAt < PENDING_TTL_MS ? pending : null
  }

  attachReplica(replica: IdentityReplica): void {
    this.replica = replica
  }

  applyShared(state: string, value: unknown): void {
    if (value === null) {
      if (this.byState.delete(state)) void this.writer?.save().catch(() => undefined)
      return
    }
    const parsed = PendingEntry.safeParse(value)
    if (!parsed.success || parsed.data.state !== state || this.now() - parsed.data.createdAt >= PENDING_TTL_MS) return
    this.byState.set(state, parsed.data)
    this.trim()
    void this.writer?.save().catch(() => undefined)
  }

  sharedEntries(): Array<[string, unknown]> {
    return [...this.byState.entries()]
  }

  get size(): number {
    return this.byState.size
  }

  /** Waits for the writes under way (tests). */
  async flush(): Promise<void> {
    await this.writer?.save()
  }
}
