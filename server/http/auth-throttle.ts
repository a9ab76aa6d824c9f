import 'server-only'

/**
 * Limits per source address on presenting credentials (issue #41 item 5):
 *
 * - sign-ins (`POST /session`, successful or not): a bucket of `signInBurst`, refilled one every
 *   `signInRefillMs`; 1,000 viewer sign-ins in 5 s used to evict an operator's session;
 * - failed authentication (a wrong sign-in token or bearer token): a bucket of `failureBurst` refilled one every
 *   `failureRefillMs`. Once it is empty the source backs off: every token it presents is refused with 429,
 *   unchecked (a right one too, or guessing would go on at full speed), for 1 s, then 2 s, 4 s… up to
 *   `maxBackoffMs` while it keeps failing; a source whose bucket has refilled starts again at 1 s.
 *
 * Generated tokens are 256-bit, so this is not what keeps them secret: it keeps a short token from being
 * guessed quickly and the server from doing unbounded work for one source. Sources are bounded too: beyond
 * `maxSources` tracked at once the oldest are forgotten.
 */

export interface AuthThrottleLimits {
  signInBurst: number
  signInRefillMs: number
  failureBurst: number
  failureRefillMs: number
  maxBackoffMs: number
  maxSources: number
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleLimits = {
  signInBurst: 30,
  signInRefillMs: 2_000,
  failureBurst: 100,
  failureRefillMs: 1_000,
  maxBackoffMs: 5 * 60_000,
  maxSources: 10_000,
}

interface SourceState {
  signIns: number
  failures: number
  /** When both buckets were last brought up to date. */
  updatedAt: number
  blockedUntil: number
  nextBackoffMs: number
}

export type ThrottleVerdict = { ok: true } | { ok: false; limit: 'sign-in' | 'failures'; retryAfterMs: number }

export class AuthThrottle {
  private readonly sources = new Map<string, SourceState>()

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits: AuthThrottleLimits = DEFAULT_AUTH_THROTTLE,
  ) {}

  private state(source: string): SourceState {
    const now = this.now()
    let state = this.sources.get(source)
    if (state === undefined) {
      state = { signIns: this.limits.signInBurst, failures: this.limits.failureBurst, updatedAt: now, blockedUntil: 0, nextBackoffMs: 1000 }
      if (this.sources.size >= this.limits.maxSources) {
        const oldest = this.sources.keys().next()
        if (!oldest.done) this.sources.delete(oldest.value)
      }
      this.sources.set(source, state)
      return state
    }
    const elapsed = now - state.updatedAt
    state.signIns = Math.min(this.limits.signInBurst, state.signIns + elapsed / this.limits.signInRefillMs)
    // Nothing refills while the source backs off, so each failure after a back-off doubles the next one.
    const refilling = Math.max(0, now - Math.max(state.updatedAt, state.blockedUntil))
    state.failures = Math.min(this.limits.failureBurst, state.failures + refilling / this.limits.failureRefillMs)
    state.updatedAt = now
    if (state.failures >= this.limits.failureBurst && now >= state.blockedUntil) state.nextBackoffMs = 1000
    return state
  }

  /** Whether `source` may present a token now (it is not backing off). */
  check(source: string): ThrottleVerdict {
    const state = this.state(source)
    const wait = state.blockedUntil - this.now()
    return wait > 0 ? { ok: false, limit: 'failures', retryAfterMs: wait } : { ok: true }
  }

  /** Takes a sign-in from the source's bucket, unless it is empty or the source is backing off. */
  admitSignIn(source: string): ThrottleVerdict {
    const blocked = this.check(source)
    if (!blocked.ok) return blocked
    const state = this.state(source)
    if (state.signIns < 1) return { ok: false, limit: 'sign-in', retryAfterMs: (1 - state.signIns) * this.limits.signInRefillMs }
    state.signIns -= 1
    return { ok: true }
  }

  /** Counts a wrong token; returns true when this failure started a back-off. */
  failure(source: string): boolean {
    const state = this.state(source)
    state.failures -= 1
    if (state.failures >= 1) return false
    state.blockedUntil = this.now() + state.nextBackoffMs
    state.nextBackoffMs = Math.min(this.limits.maxBackoffMs, state.nextBackoffMs * 2)
    return true
  }
}
