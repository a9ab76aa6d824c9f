import 'server-only'

/**
 * Whether the control cluster answers this instance, from the round trips the instance makes anyway: its status
 * written and read every two seconds (instance-directory.ts), the group's heartbeats (group-membership.ts) and the
 * reads of the other control topics (control-topic-log.ts). Once nothing has answered for `staleMs`, the control
 * cluster counts as unavailable: mutations are refused
 * (server/http/control-guard.ts, `CONTROL_CLUSTER_UNAVAILABLE`) while the mirrors this instance runs keep running;
 * the first answer makes it available again. The membership asks `answeredSince` to tell "the group moved on
 * without me" (the control cluster answers, my heartbeats do not: give the work up) from "nobody can reach the
 * control cluster" (keep it: docs/high-availability.md, "Failure behaviour"). It also keeps, for `GET /instances` and
 * `GET /health`, the last outage and how old this instance's copy of each control topic is (when a read of it last
 * reached its end, control-topic-log.ts): what the instance answers from the shared state is that old. A read is an
 * answer too, so while unavailable every copy is at least `staleMs` old.
 */
export interface ControlClusterState {
  available: boolean
  /** When the control cluster last answered (epoch ms): unavailable since then. */
  since: number
  /** The last error of a round trip since it last answered (null once it answers). */
  lastError: string | null
}

/** The last time nothing answered for `staleMs` or longer, and how it ended. */
export interface ControlClusterOutage {
  /** Its last answer before the silence (epoch ms). */
  from: number
  /** The first answer after it. */
  to: number
  /** The last error a round trip saw meanwhile (null: it merely went silent). */
  lastError: string | null
}

/** How current this instance's copy of one control topic is: when a read last reached the topic's end. */
export interface ControlTopicView {
  topic: string
  /** Epoch ms; null before the first read reached the end. */
  readAt: number | null
}

/** Everything `GET /instances` and `GET /health` say about the control cluster (control-health.ts's whole picture). */
export interface ControlClusterReport extends ControlClusterState {
  /** When the state began: its last answer while unavailable; its first answer after the last outage (or the start) while available. */
  changedAt: number
  lastAnsweredAt: number
  lastOutage: ControlClusterOutage | null
  views: ControlTopicView[]
}

export class ControlClusterHealth {
  private lastAnsweredAt: number
  private lastError: string | null = null
  private unavailableLogged = false
  private availableSince: number
  private lastOutage: ControlClusterOutage | null = null
  /** Per control topic this instance follows, when a read last reached its end (insertion order: as registered). */
  private readonly readAt = new Map<string, number | null>()

  constructor(
    private readonly options: {
      staleMs: number
      log: (message: string, fields: Record<string, unknown>) => void
      now?: () => number
    },
  ) {
    this.lastAnsweredAt = this.now()
    this.availableSince = this.lastAnsweredAt
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  /** A round trip to the control cluster succeeded. */
  answered(): void {
    const now = this.now()
    if (this.unavailableLogged) this.options.log('the control cluster answers again: mutations are accepted', { unavailableMs: now - this.lastAnsweredAt })
    // An outage whether or not anyone asked for the state meanwhile (state() notices it lazily).
    if (now - this.lastAnsweredAt >= this.options.staleMs) {
      this.lastOutage = { from: this.lastAnsweredAt, to: now, lastError: this.lastError }
      this.availableSince = now
    }
    this.unavailableLogged = false
    this.lastAnsweredAt = now
    this.lastError = null
  }

  /** A control topic this instance keeps a copy of, not read yet (so the report lists it before its first read). */
  follows(topic: string): void {
    if (!this.readAt.has(topic)) this.readAt.set(topic, null)
  }

  /** A read of `topic` reached its end: this instance's copy of it is as current as now (and the control cluster answered). */
  caughtUp(topic: string): void {
    this.answered()
    this.readAt.set(topic, this.lastAnsweredAt)
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

  /** The state with its history and how old this instance's copy of each control topic is. */
  report(): ControlClusterReport {
    const state = this.state()
    return {
      ...state,
      changedAt: state.available ? this.availableSince : state.since,
      lastAnsweredAt: this.lastAnsweredAt,
      lastOutage: this.lastOutage,
      views: [...this.readAt].map(([topic, readAt]) => ({ topic, readAt })),
    }
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
