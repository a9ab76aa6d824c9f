import { readPartitionState } from './mirror-state-records'

/**
 * Fencing of `__mirror_state` partition-state writes (KIP-1279.md §5.3, checklist #3). Every write names
 * the stateEpoch its writer believes is stored and the leader epoch the writer acts under; the state log
 * refuses a write from a writer that is behind, so a stale writer (an old leader, an engine that missed a
 * write) can never overwrite a newer state. The writer re-reads the stored state and decides again.
 */

/** `-1` in either field skips that check, as the KIP's request fields do. */
export interface StateWriteFence {
  /** The stateEpoch the writer read (the partition's stateEpoch before the transition it writes). */
  readonly expectedStateEpoch: number
  /** The destination partition leader epoch the writer acts under. */
  readonly leaderEpoch: number
}

/** What the state log holds for a partition key: its last stateEpoch and the highest writer epoch seen. */
export interface StoredFencing {
  readonly stateEpoch: number
  readonly leaderEpoch: number
}

export type StateFenceCode = 'FENCED_LEADER_EPOCH' | 'FENCED_STATE_EPOCH'

export const NO_FENCE_CHECK = -1

/**
 * Null when the write may go, else why it is refused. The leader epoch is checked first (the KIP's order):
 * a writer from an older leadership is fenced whatever state epoch it names.
 */
export function checkStateFence(stored: StoredFencing | null, fence: StateWriteFence | undefined): StateFenceCode | null {
  if (!stored || !fence) return null
  if (fence.leaderEpoch !== NO_FENCE_CHECK && stored.leaderEpoch > fence.leaderEpoch) return 'FENCED_LEADER_EPOCH'
  if (fence.expectedStateEpoch !== NO_FENCE_CHECK && stored.stateEpoch > fence.expectedStateEpoch) return 'FENCED_STATE_EPOCH'
  return null
}

/**
 * The fencing a key holds after an accepted write of `written`: the highest writer epoch stays (a write that
 * skipped the check does not lower it), the stateEpoch is the written one.
 */
export function fencingAfterWrite(stored: StoredFencing | null, written: StoredFencing): StoredFencing {
  return { stateEpoch: written.stateEpoch, leaderEpoch: Math.max(stored?.leaderEpoch ?? NO_FENCE_CHECK, written.leaderEpoch) }
}

/** One write of a batch that the state log refuses, with what it holds for the key. */
export interface FencedWrite {
  key: string
  code: StateFenceCode
  storedStateEpoch: number
  storedLeaderEpoch: number
}

/** How a state log judges one append: the writes it refuses, and the fencing each key holds if it takes them all. */
export interface StateWriteJudgement {
  fenced: FencedWrite[]
  fencingAfter: ReadonlyMap<string, StoredFencing | null>
}

/** One write of an append; `parsed`, when the caller has parsed `value` already (a log that applies it too parses it once). */
export interface StateWriteEntry {
  key: string
  value: string | null
  fence?: StateWriteFence
  parsed?: { value: unknown }
}

/**
 * Judges the writes of one append. Each is checked against the fencing as the batch's earlier writes leave it
 * (a batch may write a key twice); `storedOf` is what the log holds before the batch. A refused append writes
 * nothing, so `fencingAfter` matters only when `fenced` is empty.
 */
export function judgeStateWrites(entries: ReadonlyArray<StateWriteEntry>, storedOf: (key: string) => StoredFencing | null): StateWriteJudgement {
  const fenced: FencedWrite[] = []
  const fencingAfter = new Map<string, StoredFencing | null>()
  for (const entry of entries) {
    const stored = fencingAfter.has(entry.key) ? fencingAfter.get(entry.key)! : storedOf(entry.key)
    const code = checkStateFence(stored, entry.fence)
    if (code) {
      fenced.push({ key: entry.key, code, storedStateEpoch: stored!.stateEpoch, storedLeaderEpoch: stored!.leaderEpoch })
      continue
    }
    const written = entry.value === null ? null : readPartitionState(entry.parsed === undefined ? parseStateValue(entry.value) : entry.parsed.value)
    fencingAfter.set(entry.key, entry.value === null ? null : written ? fencingAfterWrite(stored, written) : stored)
  }
  return { fenced, fencingAfter }
}

/** The refusal's message: every fenced key with why and what is stored. */
export function fencedWritesMessage(fenced: readonly FencedWrite[]): string {
  return `stale __mirror_state writer: ${fenced.map((f) => `${f.key} (${f.code}, stored stateEpoch ${f.storedStateEpoch}, leader epoch ${f.storedLeaderEpoch})`).join(', ')}`
}

/** A stored value as JSON; undefined when it does not parse (the record is then skipped, not trusted). */
export function parseStateValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
