/**
 * "Needs attention" on the overview (UI.md §2): which mirror partitions an operator should look at first.
 *
 * Three findings, worst first:
 * - `failed`: the partition is FAILED (the engine retries retryable failures; until then nothing is mirrored);
 * - `lagGrowing`: its offset lag has not shrunk for over `growingForMs` (a minute) and rose within the last
 *   `stillRisingWithinMs`, so the destination is falling further behind rather than catching up;
 * - `staleFetch`: a MIRRORING partition whose last successful fetch is older than `staleAfterMs` (or that
 *   never fetched since it entered MIRRORING that long ago): the lag figures shown for it are not current;
 * - `paused`: PAUSING or PAUSED. Deliberate, so the mildest finding, but nothing is mirrored meanwhile and the
 *   engine samples no lag for it, so the point the destination would fail over to stops moving.
 * A partition gets one item, for its worst finding. Items are ordered by finding, then within a finding by
 * what makes it worse: failed longest first, growing lag by time lag then offset lag, stale and paused longest first.
 *
 * Pure: the server feeds it partition snapshots and lag points (server/api/attention.ts).
 */
import type { FailureCode } from '../mirror/failure-code'
import type { MirrorPartitionState } from '../mirror/states'
import { FAILURE_CAUSES, failureGroups, type FailureCause } from './incident'

export type AttentionKind = 'failed' | 'lagGrowing' | 'staleFetch' | 'paused'

/** Higher is worse; also the order of the overview's list. */
export const ATTENTION_SEVERITY = { failed: 4, lagGrowing: 3, staleFetch: 2, paused: 1 } as const satisfies Record<AttentionKind, number>

export interface AttentionThresholds {
  readonly staleAfterMs: number
  readonly growingForMs: number
  readonly stillRisingWithinMs: number
}

export const DEFAULT_ATTENTION_THRESHOLDS: AttentionThresholds = { staleAfterMs: 30_000, growingForMs: 60_000, stillRisingWithinMs: 20_000 }

/** What the finder reads of a partition (a subset of the API's Partition). */
export interface AttentionPartition {
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  readonly stateSince: number
  readonly error: string | null
  readonly retryAttempt: number
  readonly offsetLag: number | null
  readonly timeLagMs: number | null
  readonly lastFetchAt: number | null
  readonly failureCode?: FailureCode | null
  readonly nextRetryAt?: number | null
}

/** `[time, offsetLag, timeLagMs]`, oldest first, as GET /mirrors/{m}/lag answers. */
export type AttentionLagPoint = readonly [number, number | null, number | null]

export interface AttentionItem {
  readonly kind: AttentionKind
  readonly mirror: string
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  /** failed, paused: when it entered that state; lagGrowing: since when the lag has not shrunk; staleFetch: the last fetch (or entering MIRRORING). */
  readonly since: number
  readonly offsetLag: number | null
  readonly timeLagMs: number | null
  readonly lastFetchAt: number | null
  readonly error: string | null
  readonly retryAttempt: number
  /** lagGrowing: records the lag grew by since `since`. */
  readonly lagGrowth: number | null
  /** failed: why, as a code; null otherwise. */
  readonly failureCode: FailureCode | null
  /** failed: when the engine retries next; null otherwise or when it does not. */
  readonly nextRetryAt: number | null
}

/**
 * Since when the offset lag has not shrunk, if it grew over that stretch and is still rising: the start of the
 * longest run of non-decreasing points ending at the newest one, provided the run lasts `growingForMs`, ends
 * higher than it began, and its last rise is within `stillRisingWithinMs` of the newest point. A lag that rose
 * and then stayed flat (an idle source) is steady, not growing.
 */
export function lagGrowingSince(points: readonly AttentionLagPoint[], thresholds: Pick<AttentionThresholds, 'growingForMs' | 'stillRisingWithinMs'>): { since: number; growth: number } | null {
  let newestIndex = points.length - 1
  while (newestIndex >= 0 && points[newestIndex]![1] === null) newestIndex -= 1
  if (newestIndex < 1) return null
  const newest = points[newestIndex]!
  const newestLag = newest[1]!
  let startIndex = newestIndex
  let lastRiseAt: number | null = null
  for (let index = newestIndex - 1; index >= 0; index--) {
    const lag = points[index]![1]
    if (lag === null) break
    const laterLag = points[startIndex]![1]!
    if (lag > laterLag) break
    if (lag < laterLag && lastRiseAt === null) lastRiseAt = points[startIndex]![0]
    startIndex = index
  }
  const start = points[startIndex]!
  const growth = newestLag - start[1]!
  if (growth <= 0 || lastRiseAt === null) return null
  if (newest[0] - start[0] < thresholds.growingForMs) return null
  if (newest[0] - lastRiseAt > thresholds.stillRisingWithinMs) return null
  return { since: start[0], growth }
}

/** The items of one mirror, unordered. `lagOf` gives a partition's recent lag points (only asked for lagging MIRRORING partitions). */
export function findAttention(
  mirror: string,
  partitions: readonly AttentionPartition[],
  lagOf: (topic: string, partition: number) => readonly AttentionLagPoint[],
  now: number,
  thresholds: AttentionThresholds = DEFAULT_ATTENTION_THRESHOLDS,
): AttentionItem[] {
  const items: AttentionItem[] = []
  for (const partition of partitions) {
    const base = {
      mirror,
      topic: partition.topic,
      partition: partition.partition,
      state: partition.state,
      offsetLag: partition.offsetLag,
      timeLagMs: partition.timeLagMs,
      lastFetchAt: partition.lastFetchAt,
      error: partition.error,
      retryAttempt: partition.retryAttempt,
      lagGrowth: null,
      failureCode: partition.state === 'FAILED' ? (partition.failureCode ?? null) : null,
      nextRetryAt: partition.state === 'FAILED' ? (partition.nextRetryAt ?? null) : null,
    }
    if (partition.state === 'FAILED') {
      items.push({ ...base, kind: 'failed', since: partition.stateSince })
      continue
    }
    if (partition.state === 'PAUSED' || partition.state === 'PAUSING') {
      items.push({ ...base, kind: 'paused', since: partition.stateSince })
      continue
    }
    if (partition.state !== 'MIRRORING') continue
    if ((partition.offsetLag ?? 0) > 0) {
      const growing = lagGrowingSince(lagOf(partition.topic, partition.partition), thresholds)
      if (growing !== null) {
        items.push({ ...base, kind: 'lagGrowing', since: growing.since, lagGrowth: growing.growth })
        continue
      }
    }
    const fetchedAt = partition.lastFetchAt ?? partition.stateSince
    if (now - fetchedAt > thresholds.staleAfterMs) items.push({ ...base, kind: 'staleFetch', since: fetchedAt })
  }
  return items
}

/** Worst first: by finding, then growing lag by time lag then offset lag, the others longest first; then by name. */
export function compareAttention(a: AttentionItem, b: AttentionItem): number {
  const bySeverity = ATTENTION_SEVERITY[b.kind] - ATTENTION_SEVERITY[a.kind]
  if (bySeverity !== 0) return bySeverity
  let byKind = 0
  if (a.kind === 'lagGrowing') byKind = (b.timeLagMs ?? 0) - (a.timeLagMs ?? 0) || (b.offsetLag ?? 0) - (a.offsetLag ?? 0)
  else byKind = a.since - b.since
  return byKind || a.mirror.localeCompare(b.mirror) || a.topic.localeCompare(b.topic) || a.partition - b.partition
}

export interface AttentionSummary {
  readonly items: AttentionItem[]
  readonly totals: Record<AttentionKind, number>
  /** Every item, grouped by mirror and finding (and cause): never cut. */
  readonly groups: AttentionGroup[]
}

/** The worst `limit` items and how many there are of each finding (the list may be cut, the totals and groups never are). */
export function summarizeAttention(items: readonly AttentionItem[], limit: number): AttentionSummary {
  const totals: Record<AttentionKind, number> = { failed: 0, lagGrowing: 0, staleFetch: 0, paused: 0 }
  for (const item of items) totals[item.kind] += 1
  return { items: [...items].sort(compareAttention).slice(0, limit), totals, groups: groupAttention(items) }
}

/**
 * One line per mirror and finding, FAILED ones split by cause: what "needs attention" lists, expandable to the
 * partitions. Worst first, as the items are.
 */
export interface AttentionGroup {
  readonly kind: AttentionKind
  readonly mirror: string
  /** failed: why (lib/overview/incident.ts); null for the other findings. */
  readonly cause: FailureCause | null
  /** How the cause reads: "source unreachable", "lag growing"... */
  readonly label: string
  readonly partitions: number
  /** The oldest `since` of the group (for an unreachable source: its last successful fetch). */
  readonly since: number
  readonly nextRetryAt: number | null
  readonly retryAttempt: number
  readonly error: string | null
  readonly examples: ReadonlyArray<{ readonly topic: string; readonly partition: number }>
}

const KIND_LABELS: Readonly<Record<AttentionKind, string>> = { failed: 'failed', lagGrowing: 'lag growing', staleFetch: 'fetches stale', paused: 'paused' }
const GROUP_EXAMPLES = 50

export function groupAttention(items: readonly AttentionItem[]): AttentionGroup[] {
  const byKey = new Map<string, AttentionItem[]>()
  for (const item of items) {
    const key = `${item.kind}\u0000${item.mirror}`
    const list = byKey.get(key)
    if (list === undefined) byKey.set(key, [item])
    else list.push(item)
  }
  const groups: AttentionGroup[] = []
  for (const list of byKey.values()) {
    const { kind, mirror } = list[0]!
    if (kind === 'failed') {
      for (const group of failureGroups(mirror, list.map((item) => ({ ...item, stateSince: item.since })))) {
        groups.push({ kind, mirror, cause: group.cause, label: FAILURE_CAUSES[group.cause].label, partitions: group.partitions, since: group.since, nextRetryAt: group.nextRetryAt, retryAttempt: group.retryAttempt, error: group.error, examples: group.examples })
      }
      continue
    }
    const ordered = [...list].sort(compareAttention)
    groups.push({
      kind,
      mirror,
      cause: null,
      label: KIND_LABELS[kind],
      partitions: list.length,
      since: Math.min(...list.map((item) => item.since)),
      nextRetryAt: null,
      retryAttempt: Math.max(...list.map((item) => item.retryAttempt)),
      error: null,
      examples: ordered.slice(0, GROUP_EXAMPLES).map(({ topic, partition }) => ({ topic, partition })),
    })
  }
  return groups.sort(compareAttentionGroups)
}

/** Worst first: by finding, then the most partitions, the oldest, by name. */
export function compareAttentionGroups(a: Pick<AttentionGroup, 'kind' | 'partitions' | 'since' | 'mirror'>, b: Pick<AttentionGroup, 'kind' | 'partitions' | 'since' | 'mirror'>): number {
  return ATTENTION_SEVERITY[b.kind] - ATTENTION_SEVERITY[a.kind] || b.partitions - a.partitions || a.since - b.since || a.mirror.localeCompare(b.mirror)
}
