import 'server-only'
import type { Producer } from 'kafkajs'
import { AuditEntry } from '@/lib/api/audit'
import { matches, type AuditFilter, type AuditLog } from '@/server/audit/audit-log'
import type { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import type { ControlTopicViews } from './control-topic-log'
import { throttledWarning } from './throttled-warning'

/**
 * The group's shared audit log (issue #40: "the audit log … on the control cluster, not compacted";
 * docs/high-availability.md). Every instance keeps its own durable audit file as before (server/audit/audit-log.ts:
 * an acknowledged change has its entry on this instance's disk first) and copies each entry, in order, onto the
 * topic `<group>-audit` (one partition, cleanup `delete`): record key `<instance>/<its local id>`, value the entry
 * with `instance`. What the topic has not acknowledged yet stays owed, and is sent again (a produce that failed, a
 * restart: the start reads which local id of this instance the topic holds last and sends what follows), so no
 * entry is lost; one sent twice (a crash between the broker's acknowledgement and the next entry) is read once.
 *
 * GET /audit on any instance reads the topic: an entry's `id` there is its offset + 1 (the shared order), so paging
 * with `before` walks the group's log. The newest entries are kept in memory as the topic is followed; a query that
 * reaches further back reads the topic backwards, a page at a time. Each entry read from the topic after the start
 * is published as an `audit` event, so every instance's live stream carries every instance's entries.
 */

const PAGE = 500
const MEMORY_LIMIT = 10_000
const FOLLOW_MS = 1_000
const RETRY_MS = 3_000
/** The most a restart catches up in one go (then the next, until none is owed). */
const CATCH_UP_BATCH = 500

interface Shared {
  entry: AuditEntry
  /** `<instance>/<local id>`, to read an entry sent twice once. */
  key: string
}

export interface SharedAuditDeps {
  topic: string
  self: string
  reader: KafkaCluster
  producer: Producer
  local: AuditLog
  publish(entry: AuditEntry): void
  warn(message: string, fields: Record<string, unknown>): void
  views?: ControlTopicViews
}

export class SharedAudit {
  /** Entries read from the topic, oldest first, at most MEMORY_LIMIT (the newest). */
  private readonly recent: Shared[] = []
  private readonly recentKeys = new Set<string>()
  private nextOffset = 0
  /** The offset the held window starts at (older entries: read from the topic when asked). */
  private windowStart = 0
  /** The highest local id of this instance the topic holds; null until the start has read it. */
  private sentUpTo: number | null = null
  private sending: Promise<void> = Promise.resolve()
  private following: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | null = null
  private retry: NodeJS.Timeout | null = null
  private started = false
  /** Said once a minute while the control cluster does not answer (followed every second, sent again every 3 s). */
  private readonly readFailed = throttledWarning((message, fields) => this.deps.warn(message, fields))
  private readonly sendFailed = throttledWarning((message, fields) => this.deps.warn(message, fields))

  constructor(private readonly deps: SharedAuditDeps) {
    deps.views?.follows(deps.topic)
  }

  /** Reads the whole topic once (to know what of this instance's it holds), then sends what it lacks and follows it. */
  async start(): Promise<void> {
    let sentUpTo = 0
    await this.readNew((shared) => {
      const [instance, localId] = splitKey(shared.key)
      if (instance === this.deps.self) sentUpTo = Math.max(sentUpTo, localId)
    })
    this.sentUpTo = sentUpTo
    this.started = true
    this.send()
    // Following also sends whatever is owed (an entry appended while the runtime was still wiring this up).
    this.timer = setInterval(() => {
      void this.follow()
      this.send()
    }, FOLLOW_MS)
    this.timer.unref()
  }

  /** A new local entry (AuditLog's onAppend): sent after everything owed before it. */
  send(): void {
    if (this.sentUpTo === null) return
    this.sending = this.sending.then(() => this.sendOwed()).catch((error: unknown) => {
      this.sendFailed('audit entries could not be copied to the shared audit topic yet; retrying', { topic: this.deps.topic, error: String(error) })
      if (this.retry === null) {
        this.retry = setTimeout(() => {
          this.retry = null
          this.send()
        }, RETRY_MS)
        this.retry.unref()
      }
    })
  }

  private async sendOwed(): Promise<void> {
    for (;;) {
      const owed = await this.deps.local.after(this.sentUpTo ?? 0, CATCH_UP_BATCH)
      if (owed.length === 0) return
      await this.deps.producer.send({
        topic: this.deps.topic,
        acks: -1,
        messages: owed.map((entry) => ({ key: `${this.deps.self}/${entry.id}`, value: JSON.stringify({ ...entry, instance: this.deps.self }) })),
      })
      this.sentUpTo = owed.at(-1)!.id
    }
  }

  private follow(): Promise<void> {
    this.following = this.following
      .then(() => this.readNew((shared) => this.deps.publish(shared.entry)))
      .catch((error: unknown) => this.readFailed('the shared audit topic could not be read', { topic: this.deps.topic, error: String(error) }))
    return this.following
  }

  /** Reads what was appended to the topic since the last read into the held window. */
  private async readNew(onEntry: (shared: Shared) => void): Promise<void> {
    for (;;) {
      const page = await this.page(this.nextOffset)
      for (const shared of page.entries) {
        if (this.recentKeys.has(shared.key)) continue
        this.recent.push(shared)
        this.recentKeys.add(shared.key)
        onEntry(shared)
      }
      while (this.recent.length > MEMORY_LIMIT) {
        const dropped = this.recent.shift()!
        this.recentKeys.delete(dropped.key)
        this.windowStart = dropped.entry.id
      }
      if (page.next === this.nextOffset || page.next >= page.highWatermark) {
        this.nextOffset = page.next
        this.deps.views?.caughtUp(this.deps.topic)
        return
      }
      this.nextOffset = page.next
    }
  }

  /** One page of the topic from `from` (or from its log start, when retention removed what was there). */
  private async page(from: number): Promise<{ entries: Shared[]; next: number; logStart: number; highWatermark: number }> {
    let page
    try {
      page = await this.deps.reader.readRecords(this.deps.topic, 0, { fromOffset: from, limit: PAGE, isolation: 'read_committed' })
    } catch (error) {
      const logStart = (error as { code?: string; details?: { logStartOffset?: number } }).code === 'OFFSET_OUT_OF_RANGE' ? (error as { details?: { logStartOffset?: number } }).details?.logStartOffset : undefined
      if (logStart === undefined || logStart <= from) throw error
      return this.page(logStart)
    }
    const entries: Shared[] = []
    for (const record of page.records) {
      if (record.type !== 'DATA' || record.key === null || record.value === null || record.encoding !== undefined) continue
      try {
        const parsed = AuditEntry.safeParse(JSON.parse(record.value))
        if (parsed.success) entries.push({ key: record.key, entry: { ...parsed.data, id: record.offset + 1 } })
      } catch {
        // Not one of ours: skipped.
      }
    }
    const last = page.records.at(-1)
    return { entries, next: last ? last.offset + 1 : Math.max(from, page.logStartOffset), logStart: page.logStartOffset, highWatermark: page.highWatermark }
  }

  /** The group's entries matching `filter`, newest first: first brought up to date, so an entry just written elsewhere is there. */
  async query(filter: AuditFilter): Promise<AuditEntry[]> {
    if (this.started) await this.follow()
    const found: AuditEntry[] = []
    for (let index = this.recent.length - 1; index >= 0 && found.length < filter.limit; index--) {
      const { entry } = this.recent[index]!
      if (matches(entry, filter)) found.push(entry)
    }
    // Older than the held window: the topic, read backwards a page at a time down to its log start.
    let end = Math.min(this.windowStart, filter.before === undefined ? this.windowStart : filter.before - 1)
    const seen = new Set<number>(found.map((entry) => entry.id))
    while (found.length < filter.limit && end > 0) {
      const from = Math.max(0, end - PAGE)
      // Offsets from..end-1, read forwards (a page may hold fewer records than asked).
      const span: Shared[] = []
      let at = from
      let logStart = 0
      while (at < end) {
        const page = await this.page(at)
        logStart = page.logStart
        span.push(...page.entries.filter((shared) => shared.entry.id <= end))
        if (page.next <= at) break
        at = page.next
      }
      for (const { entry } of span.reverse()) {
        if (found.length >= filter.limit) break
        if (!seen.has(entry.id) && matches(entry, filter)) found.push(entry)
      }
      if (logStart >= end) break
      end = Math.max(from, logStart)
    }
    return found
  }

  close(): void {
    if (this.timer) clearInterval(this.timer)
    if (this.retry) clearTimeout(this.retry)
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf('/')
  return [key.slice(0, at), Number(key.slice(at + 1))]
}
