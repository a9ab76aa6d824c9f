import 'server-only'

/**
 * Whether the control cluster answers this instance, from the round trips the instance makes anyway: its status
 * written and read every two seconds (instance-directory.ts) and the group's heartbeats (group-membership.ts). Once
 * nothing has answered for `staleMs`, the control cluster counts as unavailable: mutations are refused
 * (server/http/control-guard.ts, `CONTROL_CLUSTER_UNAVAILABLE`) while the mirrors this instance runs keep running;
 * the first answer makes it available again. The membership asks `answeredSince` to tell "the group moved on
 * without me" (the control cluster answers, my heartbeats do not: give the work up) from "nobody can reach the
 * control cluster" (keep it: docs/high-availability.md, "Failure behaviour").
 */
export interface ControlClusterState {
  available: boolean
  /** When the control cluster last answered (epoch ms): unavailable since then. */
  since: number
  /** The last error of a round trip since it last answered (null once it answers). */
  lastError: string | null
}

export class ControlClusterHealth {
  private lastAnsweredAt: number
  private lastError: string | null = null
  private unavailableLogged = false

  constructor(
    private readonly options: {
      staleMs: number
      log: (message: string, fields: Record<string, unknown>) => void
      now?: () => number
    },
  ) {
    this.lastAnsweredAt = this.now()
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  /** A round trip to the control cluster succeeded. */
  answered(): void {
    if (this.unavailableLogged) this.options.log('the control cluster answers again: mutations are accepted', { unavailableMs: this.now() - this.lastAnsweredAt })
    this.unavailableLogged = false
    this.lastAnsweredAt = this.now()
    this.lastError = null
  }

  /** A round trip failed (it may have taken long: the time counts from the last answer, not from here). */
  failed(error: unknown): void {
    this.lastError = error instanceof Error ? error.message : String(error)
    this.state()
  }

  /** Whether the control cluster has answered after `at` (epoch ms). */
  answeredSince(at: number): boolean {
    return this.lastAnsweredAt > at
  }

  state(): ControlClusterState {
    const available = this.now() - this.lastAnsweredAt < this.options.staleMs
    if (!available && !this.unavailableLogged) {
      this.unavailableLogged = true
      this.options.log('the control cluster does not answer: mutations are refused, the mirrors running here keep running', { since: new Date(this.lastAnsweredAt).toISOString(), lastError: this.lastError })
    }
    return { available, since: this.lastAnsweredAt, lastError: this.lastError }
  }
}
