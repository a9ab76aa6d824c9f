import 'server-only'
import type { Producer } from 'kafkajs'
import type { ControlTopicLog } from './control-topic-log'

/** One instance as the directory knows it (the API's `Instance`, lib/api/instances.ts). */
export interface InstanceStatus {
  id: string
  version: string
  /** The mirrors it runs, by name. */
  mirrors: string[]
  /** When it last said it was alive (epoch ms). */
  heartbeatAt: number
  /** Where the others reach its API (MIRRORBOARD_ADVERTISED_URL); null or absent: nowhere (an older instance's record). */
  url?: string | null
  /** Its member id in the group now, to tell the group's leader; null before it joined. */
  memberId?: string | null
  /** Mirrors whose writes another instance fenced here (issue #40), newest last; absent from older instances. */
  fenced?: Array<{ mirror: string; cluster: string; transactionalId: string; at: number }>
}

const REPORT_MS = 2_000

/**
 * Who is in the group and what each runs, for `GET /api/v1/instances`: every instance writes its status on the
 * group's compacted instances topic every two seconds (key: its id) and reads everyone's. An instance whose last
 * status is older than the session timeout is shown not alive (its work has gone to others by then); one that
 * stopped cleanly removed its record (a tombstone).
 */
export class InstanceDirectory {
  private readonly known = new Map<string, InstanceStatus>()
  private timer: NodeJS.Timeout | null = null
  private reporting: Promise<void> = Promise.resolve()
  private warnedAt = 0

  constructor(
    private readonly deps: {
      self: () => Omit<InstanceStatus, 'heartbeatAt'>
      log: ControlTopicLog
      producer: Producer
      sessionTimeoutMs: number
      warn(message: string, fields: Record<string, unknown>): void
      /** Each round trip's outcome: whether the control cluster answers (control-health.ts). */
      health?: { answered(): void; failed(error: unknown): void }
    },
  ) {}

  start(): void {
    this.report()
    this.timer = setInterval(() => this.report(), REPORT_MS)
    this.timer.unref()
  }

  /** Writes this instance's status now and reads the others' (also called when its assignment changes). */
  report(): void {
    this.reporting = this.reporting
      .then(async () => {
        const status: InstanceStatus = { ...this.deps.self(), heartbeatAt: Date.now() }
        await this.deps.producer.send({ topic: this.deps.log.topic, acks: -1, messages: [{ key: status.id, value: JSON.stringify(status) }] })
        for (const { key, value } of await this.deps.log.readNew()) {
          if (value === null) this.known.delete(key)
          else this.known.set(key, JSON.parse(value) as InstanceStatus)
        }
        this.deps.health?.answered()
      })
      .catch((error: unknown) => {
        this.deps.health?.failed(error)
        // Once a minute while it fails (the control cluster down would write this every two seconds).
        if (Date.now() - this.warnedAt < 60_000) return
        this.warnedAt = Date.now()
        this.deps.warn('the instances status could not be written or read', { error: String(error) })
      })
  }

  list(now = Date.now()): Array<InstanceStatus & { alive: boolean }> {
    return [...this.known.values()].map((status) => ({ ...status, alive: now - status.heartbeatAt < this.deps.sessionTimeoutMs })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  /** A clean stop: the record goes (a tombstone), so the others do not list this instance as dead. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.reporting
    await this.deps.producer.send({ topic: this.deps.log.topic, acks: -1, messages: [{ key: this.deps.self().id, value: null }] }).catch(() => undefined)
  }
}
