/**
 * A mirror's incident timeline (issue #33 item 7): what happened to all its partitions, as an operator tells it —
 * "21 partitions MIRRORING → FAILED at 22:23:40 (source unreachable)", then the retries collapsed into one row,
 * "FAILED ⇄ MIRRORING × 11 for 4 min", then "21 partitions FAILED → MIRRORING" when it healed, and what operators
 * did (their pauses, recovers, failovers are transitions with their reason). Partition transitions that happen
 * together (same from → to within BUCKET_MS) are one entry; a retry storm (a run of entries into and out of
 * FAILED after the break) is one entry with the most failures any partition had in it.
 *
 * Pure: the server passes every partition's history (GET /mirrors/{m}/timeline); oldest first out.
 */
import type { MirrorPartitionState } from '../mirror/states'

export interface TimelineInput {
  readonly topic: string
  readonly partition: number
  readonly transitions: ReadonlyArray<{ readonly from: MirrorPartitionState; readonly to: MirrorPartitionState; readonly at: number; readonly reason: string; readonly error?: string }>
}

export interface MirrorTimelineEntry {
  readonly kind: 'change' | 'storm'
  readonly from: MirrorPartitionState
  readonly to: MirrorPartitionState
  /** First and last transition of the entry. */
  readonly at: number
  readonly until: number
  /** Distinct partitions in it. */
  readonly partitions: number
  readonly transitions: number
  readonly reason: string
  /** The newest failure message in it, if any. */
  readonly error: string | null
  /** A storm: the most times one partition entered FAILED in it, and the states it bounced between. */
  readonly failures: number | null
  readonly path: string | null
  /** A storm still going on: some of its partitions are FAILED now, and it runs to the newest transition. */
  readonly ongoing?: boolean
}

/** Transitions of the same from → to this close together are one event (a 10,000-partition pause is one row). */
export const BUCKET_MS = 2_000
/** A storm needs at least this many failed retries of some partition: one retry that worked is its own story. */
export const MIRROR_STORM_MIN_FAILURES = 2
/** The newest entries kept (the API answers at most these). */
export const TIMELINE_LIMIT = 200

interface Flat {
  readonly key: string
  readonly from: MirrorPartitionState
  readonly to: MirrorPartitionState
  readonly at: number
  readonly reason: string
  readonly error: string | null
}

interface Bucket {
  from: MirrorPartitionState
  to: MirrorPartitionState
  at: number
  until: number
  reason: string
  error: string | null
  members: Flat[]
}

export function mirrorTimeline(partitions: Iterable<TimelineInput>): MirrorTimelineEntry[] {
  const flat: Flat[] = []
  for (const { topic, partition, transitions } of partitions) {
    for (const transition of transitions) flat.push({ key: `${topic}/${partition}`, from: transition.from, to: transition.to, at: transition.at, reason: transition.reason, error: transition.error ?? null })
  }
  flat.sort((a, b) => a.at - b.at)
  // Each partition's state now: where its newest transition took it.
  const now = new Map<string, MirrorPartitionState>()
  for (const transition of flat) now.set(transition.key, transition.to)
  const failedNow = (key: string) => now.get(key) === 'FAILED'
  const buckets = bucketed(flat)
  const entries: MirrorTimelineEntry[] = []
  let index = 0
  while (index < buckets.length) {
    const storm = stormFrom(buckets, index, failedNow)
    if (storm === null) {
      entries.push(change(buckets[index]!))
      index += 1
    } else {
      entries.push(storm.entry)
      index = storm.end
    }
  }
  return entries.slice(-TIMELINE_LIMIT)
}

function bucketed(flat: readonly Flat[]): Bucket[] {
  const buckets: Bucket[] = []
  const open = new Map<string, Bucket>()
  for (const transition of flat) {
    const kind = `${transition.from}>${transition.to}`
    const current = open.get(kind)
    if (current !== undefined && transition.at - current.at <= BUCKET_MS) {
      current.members.push(transition)
      current.until = transition.at
      current.error = transition.error ?? current.error
      continue
    }
    const bucket: Bucket = { from: transition.from, to: transition.to, at: transition.at, until: transition.at, reason: transition.reason, error: transition.error, members: [transition] }
    buckets.push(bucket)
    open.set(kind, bucket)
  }
  return buckets
}

const isRetryStep = (bucket: Bucket) => bucket.to === 'FAILED' || (bucket.from === 'FAILED' && bucket.to !== 'STOPPING' && bucket.to !== 'STOPPED')

/**
 * The storm that starts at `start`, right after a break (an entry into FAILED): the run of entries into and out
 * of FAILED up to its last entry into FAILED (what follows, the recovery, is read on its own). Null when the run
 * holds fewer than MIRROR_STORM_MIN_FAILURES failures of any one partition.
 *
 * A storm still going on (the run reaches the newest transition and some of its partitions are FAILED now) takes
 * in its retries under way too, and counts from its first failed retry: while the engine retries, the newest rows
 * were a "FAILED → MIRRORING" that read as healed and flipped with every retry; now the one row grows.
 */
function stormFrom(buckets: readonly Bucket[], start: number, failedNow: (key: string) => boolean): { entry: MirrorTimelineEntry; end: number } | null {
  // Right after an entry into FAILED (the break, a row of its own), with partitions leaving FAILED to retry.
  const before = buckets[start - 1]
  const first = buckets[start]
  if (before === undefined || first === undefined || before.to !== 'FAILED' || first.from !== 'FAILED' || !isRetryStep(first)) return null
  let end = start
  let lastFailure = -1
  while (end < buckets.length && isRetryStep(buckets[end]!)) {
    if (buckets[end]!.to === 'FAILED') lastFailure = end
    end += 1
  }
  if (lastFailure < start) return null
  const ongoing = end === buckets.length && buckets.slice(start, end).some((bucket) => bucket.members.some((member) => failedNow(member.key)))
  const last = ongoing ? end - 1 : lastFailure
  const inside = buckets.slice(start, last + 1)
  const failuresOf = new Map<string, number>()
  const keys = new Set<string>()
  const states = new Set<MirrorPartitionState>()
  let error: string | null = null
  for (const bucket of inside) {
    for (const member of bucket.members) {
      keys.add(member.key)
      if (member.to === 'FAILED') failuresOf.set(member.key, (failuresOf.get(member.key) ?? 0) + 1)
    }
    states.add(bucket.to === 'FAILED' ? bucket.from : bucket.to)
    error = bucket.error ?? error
  }
  const failures = Math.max(0, ...failuresOf.values())
  if (failures < (ongoing ? 1 : MIRROR_STORM_MIN_FAILURES)) return null
  states.delete('FAILED')
  return {
    end: last + 1,
    entry: {
      kind: 'storm',
      from: 'FAILED',
      to: 'FAILED',
      at: inside[0]!.at,
      until: inside.at(-1)!.until,
      partitions: keys.size,
      transitions: inside.reduce((sum, bucket) => sum + bucket.members.length, 0),
      reason: 'retried with backoff',
      error,
      failures,
      path: `FAILED ⇄ ${[...states].join('/') || 'FAILED'}`,
      ...(ongoing ? { ongoing } : {}),
    },
  }
}

function change(bucket: Bucket): MirrorTimelineEntry {
  return {
    kind: 'change',
    from: bucket.from,
    to: bucket.to,
    at: bucket.at,
    until: bucket.until,
    partitions: new Set(bucket.members.map((member) => member.key)).size,
    transitions: bucket.members.length,
    reason: bucket.reason,
    error: bucket.error,
    failures: null,
    path: null,
  }
}
