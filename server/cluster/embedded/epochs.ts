import 'server-only'
import type { EpochEndOffset, EpochEntry } from '@/lib/log/types'
import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from '@/lib/log/types'

const UNDEFINED: EpochEndOffset = { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET }

/**
 * KIP-101 OffsetsForLeaderEpoch over a list of epoch entries (Kafka's `LeaderEpochFileCache.endOffsetFor`):
 * - the latest epoch ends at the log end offset;
 * - an older epoch ends where the next higher epoch starts, answered with the largest epoch ≤ the request;
 * - an epoch below the first entry ends where the first entry starts (the caller truncates to there);
 * - -1, an epoch above every entry, or an empty list → undefined (-1, -1).
 */
export function endOffsetForEpochEntries(entries: readonly EpochEntry[], requestedEpoch: number, logEndOffset: number): EpochEndOffset {
  if (requestedEpoch === UNDEFINED_EPOCH || entries.length === 0) return UNDEFINED
  const latest = entries[entries.length - 1]!
  if (latest.epoch === requestedEpoch) return { leaderEpoch: requestedEpoch, endOffset: logEndOffset }
  let floor: EpochEntry | undefined
  let higher: EpochEntry | undefined
  for (const entry of entries) {
    if (entry.epoch <= requestedEpoch) floor = entry
    else {
      higher = entry
      break
    }
  }
  if (higher === undefined) return UNDEFINED
  if (floor === undefined) return { leaderEpoch: requestedEpoch, endOffset: higher.startOffset }
  return { leaderEpoch: floor.epoch, endOffset: higher.startOffset }
}

/**
 * The leader's epoch entries including the epoch it was elected in, when no batch of that epoch exists yet:
 * Kafka assigns the new epoch at the leader's log end offset on election (`Partition.makeLeader`), which is
 * what lets a returning replica with an unreplicated tail see where its history diverges.
 */
export function withElectionEpoch(entries: readonly EpochEntry[], electionEpoch: EpochEntry | null): EpochEntry[] {
  if (electionEpoch === null) return [...entries]
  const latest = entries[entries.length - 1]
  if (latest !== undefined && (latest.epoch >= electionEpoch.epoch || latest.startOffset > electionEpoch.startOffset)) return [...entries]
  return [...entries, electionEpoch]
}

/**
 * KIP-320 fetch validation on the leader (Kafka's `Partition.fetchRecords` with a lastFetchedEpoch): the
 * caller's history diverges when the leader does not know its last epoch, or knows it ends before the
 * caller's fetch offset. Returns the leader's (epoch, end offset) to truncate to, or null when consistent.
 * An undefined answer (the caller's epoch is newer than everything the leader has) is reported as is.
 */
export function divergingEpoch(leaderAnswer: EpochEndOffset, lastFetchedEpoch: number, fetchOffset: number): EpochEndOffset | null {
  if (lastFetchedEpoch < 0) return null
  if (leaderAnswer.leaderEpoch < lastFetchedEpoch || leaderAnswer.endOffset < fetchOffset) return leaderAnswer
  return null
}

export interface TruncationDecision {
  offset: number
  /** False when another round of epoch comparison is needed (the follower's epoch history differs further back). */
  truncationCompleted: boolean
}

/**
 * Where a follower truncates given the leader's diverging epoch (Kafka's
 * `AbstractFetcherThread.getOffsetTruncationState`):
 * - the leader has no end offset → keep the follower's log up to its high watermark;
 * - the leader has no epoch → the leader's end offset (or the follower's end, when smaller);
 * - the follower knows the leader's epoch → the smaller of both ends of that epoch: done;
 * - the follower's nearest epoch is older → its end, capped by the leader's: compare again from there;
 * - the follower has no epoch that old → the leader's end offset capped by the follower's end: done.
 */
export function decideFollowerTruncation(
  leaderAnswer: EpochEndOffset,
  follower: { logEndOffset: number; highWatermark: number; endOffsetForEpoch(epoch: number): EpochEndOffset },
): TruncationDecision {
  if (leaderAnswer.endOffset === UNDEFINED_EPOCH_OFFSET) {
    return { offset: Math.min(follower.highWatermark, follower.logEndOffset), truncationCompleted: true }
  }
  if (leaderAnswer.leaderEpoch === UNDEFINED_EPOCH) {
    return { offset: Math.min(leaderAnswer.endOffset, follower.logEndOffset), truncationCompleted: true }
  }
  const own = follower.endOffsetForEpoch(leaderAnswer.leaderEpoch)
  if (own.endOffset === UNDEFINED_EPOCH_OFFSET) {
    return { offset: Math.min(leaderAnswer.endOffset, follower.logEndOffset), truncationCompleted: true }
  }
  if (own.leaderEpoch === leaderAnswer.leaderEpoch) {
    return { offset: Math.min(leaderAnswer.endOffset, own.endOffset), truncationCompleted: true }
  }
  return { offset: Math.min(leaderAnswer.endOffset, own.endOffset, follower.logEndOffset), truncationCompleted: false }
}
