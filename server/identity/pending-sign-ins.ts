import 'server-only'
import type { PendingSignIn } from './oidc-client'

/**
 * Sign-ins sent to the provider and not back yet, by state. Each is taken once (a replayed callback finds
 * nothing), lives ten minutes, and at most MAX_PENDING are kept: a flood of started sign-ins pushes out the
 * oldest, never grows memory. Kept in memory: a restart in the middle of someone's sign-in makes them click again.
 */

export const PENDING_TTL_MS = 10 * 60 * 1000
export const MAX_PENDING = 10_000

export class PendingSignIns {
  private readonly byState = new Map<string, PendingSignIn>()

  constructor(private readonly now: () => number = Date.now) {}

  add(pending: PendingSignIn): void {
    this.byState.set(pending.state, pending)
    while (this.byState.size > MAX_PENDING) {
      const oldest = this.byState.keys().next()
      if (oldest.done) break
      this.byState.delete(oldest.value)
    }
  }

  take(state: string): PendingSignIn | null {
    const pending = this.byState.get(state)
    if (pending === undefined) return null
    this.byState.delete(state)
    return this.now() - pending.createdAt < PENDING_TTL_MS ? pending : null
  }

  get size(): number {
    return this.byState.size
  }
}
