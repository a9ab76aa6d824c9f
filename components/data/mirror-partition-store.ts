import type { MirrorPartition } from '@/lib/api/mirrors'
import type { LagEvent, PartitionEvent } from '@/lib/api/events'
import { isFailureCode } from '@/lib/mirror/failure-code'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'
import { timeLagAt } from '@/lib/mirror/partition-lag'
import { partitionKey, type RowChange } from '@/lib/ui/partition-table'
import type { TopicLagSample } from '@/lib/ui/lag-series'
import type { PartitionPreview } from '@/lib/ui/partition-preview'

/**
 * The live partitions of one mirror, for a table of up to 10,000 rows: a map patched in place by `lag`
 * events (which carry only the partitions whose lag changed) and `partition` events (state changes), and
 * replaced by an occasional refetch. Subscribers are told at most once per animation frame, with what
 * kind of change happened, so the table re-sorts only when the change can move a row and redraws only its
 * visible rows otherwise. Nothing here re-creates a 10,000-element array per tick.
 */

export type { LagEvent, PartitionEvent } from '@/lib/api/events'

/*
 * The two events are read with plain checks that give what their schemas (lib/api/events.ts) give, field for
 * field: unknown fields are left out, as zod's objects strip them (mirror-partition-store.test.ts holds the two
 * to the same verdicts). Why not the schemas: zod was the mirror page's largest module of its first load, and
 * it checks without its compiled fast path in the browser (the page's CSP forbids eval): a 2,000-partition
 * mirror's lag event cost a phone's CPU a long task every second, on any mirror's page.
 */

function numberOrNull(value: unknown): value is number | null {
  return value === null || (typeof value === 'number' && Number.isFinite(value))
}

function optionalNumberOrNull(value: unknown): boolean {
  return value === undefined || numberOrNull(value)
}

const STATES: ReadonlySet<unknown> = new Set(MIRROR_PARTITION_STATES)
const LAG_ENTRY_KEYS: ReadonlySet<string> = new Set(['topic', 'partition', 'offsetLag', 'timeLagMs', 'lagKnown', 'lagAsOf', 'timeLagFrom'])

function onlyKeys(value: object, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false
  return true
}

type LagEntry = LagEvent['partitions'][number]

/** The entry as the schema gives it, or undefined: the same object when it holds only known fields (the rule). */
function lagEntry(value: unknown): LagEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const entry = value as Record<string, unknown>
  const valid =
    typeof entry.topic === 'string' &&
    Number.isSafeInteger(entry.partition) &&
    numberOrNull(entry.offsetLag) &&
    numberOrNull(entry.timeLagMs) &&
    (entry.lagKnown === undefined || entry.lagKnown === false) &&
    optionalNumberOrNull(entry.lagAsOf) &&
    optionalNumberOrNull(entry.timeLagFrom)
  if (!valid) return undefined
  if (onlyKeys(entry, LAG_ENTRY_KEYS)) return entry as unknown as LagEntry
  const { topic, partition, offsetLag, timeLagMs, lagKnown, lagAsOf, timeLagFrom } = entry as unknown as LagEntry
  return withoutUndefined({ topic, partition, offsetLag, timeLagMs, lagKnown, lagAsOf, timeLagFrom })
}

function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key]
  return value
}

/**
 * `mirror`'s lag event as LagEvent.safeParse gives it, or undefined (another mirror's, or not a lag event).
 * Another mirror's event is not read at all. The server's envelope (type, the mirror's totals) is left out.
 */
export function readLagEvent(data: unknown, mirror: string): LagEvent | undefined {
  if (typeof data !== 'object' || data === null || (data as { mirror?: unknown }).mirror !== mirror) return undefined
  const event = data as Record<string, unknown>
  if (typeof event.at !== 'number' || !Number.isFinite(event.at) || !Array.isArray(event.partitions)) return undefined
  const source = event.partitions as unknown[]
  let partitions: LagEntry[] | undefined
  for (let index = 0; index < source.length; index++) {
    const entry = lagEntry(source[index])
    if (entry === undefined) return undefined
    // Copied only from the first entry that had to be rewritten: a well-formed list is taken as it is.
    if (entry !== source[index]) partitions ??= source.slice(0, index) as LagEntry[]
    partitions?.push(entry)
  }
  return { mirror, at: event.at, partitions: partitions ?? (source as LagEntry[]) }
}

/** `mirror`'s partition event as PartitionEvent.safeParse gives it, or undefined (another mirror's, or not one). */
export function readPartitionEvent(data: unknown, mirror: string): PartitionEvent | undefined {
  if (typeof data !== 'object' || data === null || (data as { mirror?: unknown }).mirror !== mirror) return undefined
  const event = data as Record<string, unknown>
  const valid =
    typeof event.topic === 'string' &&
    Number.isSafeInteger(event.partition) &&
    STATES.has(event.from) &&
    STATES.has(event.to) &&
    typeof event.at === 'number' &&
    Number.isFinite(event.at) &&
    Number.isSafeInteger(event.stateEpoch) &&
    (event.error === undefined || event.error === null || typeof event.error === 'string') &&
    (event.failureCode === undefined || event.failureCode === null || isFailureCode(event.failureCode)) &&
    (event.retryAttempt === undefined || Number.isSafeInteger(event.retryAttempt)) &&
    optionalNumberOrNull(event.nextRetryAt)
  if (!valid) return undefined
  const { topic, partition, from, to, at, stateEpoch, error, failureCode, retryAttempt, nextRetryAt } = event as unknown as PartitionEvent
  return withoutUndefined({ mirror, topic, partition, from, to, at, stateEpoch, error, failureCode, retryAttempt, nextRetryAt })
}

export interface StoreChange {
  /** The set of partitions changed (a refetch added or removed some). */
  readonly membership: boolean
  readonly kinds: ReadonlySet<RowChange>
}

type Listener = (change: StoreChange) => void
type LagListener = (at: number, sample: TopicLagSample) => void

export type { PartitionPreview } from '@/lib/ui/partition-preview'

export class MirrorPartitionStore {
  private rows = new Map<string, MirrorPartition>()
  private loaded = false
  private version = 0
  private readonly listeners = new Set<Listener>()
  private readonly lagListeners = new Set<LagListener>()
  private pendingKinds = new Set<RowChange>()
  private pendingMembership = false
  private notifyScheduled = false
  /** Events that arrived while a refetch was in flight: replayed over its (older) answer. */
  private replay: Array<{ kind: 'lag'; event: LagEvent } | { kind: 'partition'; event: PartitionEvent }> | null = null
  /** Partitions an event named that the store does not hold (topics started since the last fetch). */
  private unknownSeen = false

  constructor(
    readonly mirror: string,
    private readonly schedule: (callback: () => void) => void = defaultSchedule,
    /** Until the first full answer: what the table shows (never read by the store's own figures). */
    readonly preview: PartitionPreview | null = null,
  ) {}

  get isLoaded(): boolean {
    return this.loaded
  }

  get size(): number {
    return this.rows.size
  }

  /** Bumped on every change, for useSyncExternalStore. */
  getVersion = (): number => this.version

  get(key: string): MirrorPartition | undefined {
    return this.rows.get(key)
  }

  values(): IterableIterator<MirrorPartition> {
    return this.rows.values()
  }

  /** True once an event named a partition the store does not hold; reading it clears it. */
  takeUnknownSeen(): boolean {
    const seen = this.unknownSeen
    this.unknownSeen = false
    return seen
  }

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Called after each lag event is applied, with every MIRRORING partition's lag summed per topic. */
  subscribeLag(listener: LagListener): () => void {
    this.lagListeners.add(listener)
    return () => this.lagListeners.delete(listener)
  }

  /** A refetch starts: events from now on are kept and replayed over its answer. */
  beginRefetch(): void {
    this.replay = []
  }

  replaceAll(partitions: readonly MirrorPartition[]): void {
    const next = new Map<string, MirrorPartition>()
    for (const partition of partitions) next.set(partitionKey(partition.topic, partition.partition), partition)
    const membership = !this.loaded || next.size !== this.rows.size || [...next.keys()].some((key) => !this.rows.has(key))
    this.rows = next
    this.loaded = true
    const replay = this.replay ?? []
    this.replay = null
    for (const entry of replay) {
      if (entry.kind === 'lag') this.patchLag(entry.event)
      else this.patchState(entry.event)
    }
    this.changed(membership, ['state', 'lag'])
  }

  /** A refetch failed: stop keeping events for it. */
  abandonRefetch(): void {
    this.replay = null
  }

  applyLag(event: LagEvent): void {
    if (event.mirror !== this.mirror) return
    this.replay?.push({ kind: 'lag', event })
    if (this.patchLag(event)) this.changed(false, ['lag'])
    // Sums over a partial list would be wrong: the live point waits for the whole list.
    if (this.lagListeners.size === 0 || !this.loaded) return
    const sample = this.topicLag(event.at)
    for (const listener of this.lagListeners) listener(event.at, sample)
  }

  applyTransition(event: PartitionEvent): void {
    if (event.mirror !== this.mirror) return
    this.replay?.push({ kind: 'partition', event })
    if (this.patchState(event)) this.changed(false, ['state'])
  }

  /**
   * Offset lag summed and time lag maximised per topic at `at` (the chart's live point), over every partition
   * that has lag: MIRRORING ones, and FAILED or PAUSED ones with their lower bounds (the last known offset lag,
   * a time lag still growing), as the server's history records them. Leaving those out drew a FAILED mirror's
   * lag falling to nothing while its source was silent. STOPPED partitions have no lag (null) and add nothing.
   */
  topicLag(at: number = Date.now()): TopicLagSample {
    const sample = new Map<string, { offsetLag: number; timeLagMs: number | null }>()
    for (const row of this.rows.values()) {
      if (row.offsetLag === null || row.state === 'STOPPED' || row.state === 'STOPPING' || row.state === 'UNKNOWN') continue
      const timeLagMs = timeLagAt(row, at)
      const entry = sample.get(row.topic)
      if (entry === undefined) sample.set(row.topic, { offsetLag: row.offsetLag, timeLagMs })
      else {
        entry.offsetLag += row.offsetLag
        if (timeLagMs !== null) entry.timeLagMs = Math.max(entry.timeLagMs ?? 0, timeLagMs)
      }
    }
    return sample
  }

  private patchLag(event: LagEvent): boolean {
    let changed = false
    for (const entry of event.partitions) {
      const { topic, partition, offsetLag, timeLagMs } = entry
      const key = partitionKey(topic, partition)
      const row = this.rows.get(key)
      if (row === undefined) {
        if (this.loaded) this.unknownSeen = true
        continue
      }
      const lagKnown = entry.lagKnown ?? true
      const lagAsOf = lagKnown ? event.at : (entry.lagAsOf ?? null)
      const timeLagFrom = lagKnown ? null : (entry.timeLagFrom ?? null)
      if (row.offsetLag === offsetLag && row.timeLagMs === timeLagMs && (row.lagKnown ?? true) === lagKnown && (row.timeLagFrom ?? null) === timeLagFrom) continue
      this.rows.set(key, { ...row, offsetLag, timeLagMs, lagKnown, lagAsOf, timeLagFrom })
      changed = true
    }
    return changed
  }

  private patchState(event: PartitionEvent): boolean {
    const key = partitionKey(event.topic, event.partition)
    const row = this.rows.get(key)
    if (row === undefined) {
      if (this.loaded) this.unknownSeen = true
      return false
    }
    // An older transition (replayed, or overtaken by a refetch that already shows a later state).
    if (event.stateEpoch < row.stateEpoch || (event.stateEpoch === row.stateEpoch && row.state === event.to)) return false
    const failure =
      event.error === undefined
        ? {}
        : { error: event.error, failureCode: event.failureCode ?? null, retryAttempt: event.retryAttempt ?? 0, nextRetryAt: event.nextRetryAt ?? null }
    this.rows.set(key, { ...row, state: event.to, previousState: event.from, stateSince: event.at, stateEpoch: event.stateEpoch, ...failure })
    return true
  }

  private changed(membership: boolean, kinds: RowChange[]): void {
    this.version += 1
    this.pendingMembership ||= membership
    for (const kind of kinds) this.pendingKinds.add(kind)
    if (this.notifyScheduled) return
    this.notifyScheduled = true
    this.schedule(() => {
      this.notifyScheduled = false
      const change: StoreChange = { membership: this.pendingMembership, kinds: this.pendingKinds }
      this.pendingMembership = false
      this.pendingKinds = new Set()
      for (const listener of this.listeners) listener(change)
    })
  }
}

function defaultSchedule(callback: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(callback)
  else setTimeout(callback, 16)
}
