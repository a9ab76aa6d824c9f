import 'server-only'
import type { EpochEndOffset } from '@/lib/log/types'
import type { PartitionLogApi } from '@/server/storage/types'
import { decideFollowerTruncation, divergingEpoch } from './epochs'

/**
 * A follower replica's fetcher, in-process: Kafka's `AbstractFetcherThread.doWork()` for one partition, whose
 * iteration is `maybeTruncate()` then `maybeFetch()`. The follower first reconciles its history with the
 * leader's (KIP-101/KIP-320), truncating a divergent tail; only a follower whose log is a prefix of the
 * leader's copies whole batches, until it reaches the leader's end.
 */

/** The follower's whole view of its leader (Kafka's LeaderEndPoint, without the network). */
export interface LeaderEndPoint {
  readonly log: PartitionLogApi
  /** KIP-101 OffsetsForLeaderEpoch on the leader, including the epoch it was elected in. */
  endOffsetForEpoch(epoch: number): EpochEndOffset
  /** replica.fetch.max.bytes */
  readonly fetchMaxBytes: number
}

type FetchOutcome = 'appended' | 'caughtUp' | 'truncated'

/** Bounds one replication step; a follower still behind after it continues on the next step. */
const MAX_REPLICATION_ROUNDS = 10_000

/** Runs the fetcher until the follower holds exactly the leader's log (or the round budget is spent). */
export async function replicateFollower(follower: PartitionLogApi, leader: LeaderEndPoint): Promise<void> {
  for (let round = 0; round < MAX_REPLICATION_ROUNDS; round++) {
    if (await maybeTruncate(follower, leader)) continue
    if ((await maybeFetch(follower, leader)) === 'caughtUp') return
  }
}

/**
 * The truncating phase. Returns true when it truncated, so that the history is checked again before any
 * fetch. The cases, in order:
 * - the follower ends below the leader's log start → it restarts empty at the leader's log start;
 * - the leader has never seen the follower's latest epoch → all of that epoch is divergent: back to its start;
 * - the leader's answer for that epoch ends before the follower's end (a diverging epoch) → Kafka's truncation
 *   rules (`decideFollowerTruncation`);
 * - the follower is longer than the leader (an unclean election left it with a tail) → back to the leader's end.
 */
export async function maybeTruncate(follower: PartitionLogApi, leader: LeaderEndPoint): Promise<boolean> {
  const leaderLog = leader.log
  if (follower.logEndOffset < leaderLog.logStartOffset) {
    await follower.truncateFullyAndStartAt(leaderLog.logStartOffset)
    return true
  }
  const fetchOffset = follower.logEndOffset
  const lastFetchedEpoch = follower.latestEpoch()
  if (lastFetchedEpoch >= 0) {
    const answer = leader.endOffsetForEpoch(lastFetchedEpoch)
    if (answer.endOffset < 0) {
      const latest = follower.epochEntries().at(-1)
      await truncateFollower(follower, latest && latest.startOffset < fetchOffset ? latest.startOffset : follower.logStartOffset)
      return true
    }
    const diverging = divergingEpoch(answer, lastFetchedEpoch, fetchOffset)
    if (diverging) {
      const decision = decideFollowerTruncation(diverging, follower)
      await truncateFollower(follower, decision.offset < fetchOffset ? decision.offset : (follower.epochEntries().at(-1)?.startOffset ?? 0))
      return true
    }
  }
  if (fetchOffset > leaderLog.logEndOffset) {
    await truncateFollower(follower, leaderLog.logEndOffset)
    return true
  }
  return false
}

/**
 * The fetching phase: one read of whole batches from the follower's end, appended as they are. A follower
 * that ends inside one of the leader's batches holds a tail the leader does not: it is cut back to the batch
 * boundary ('truncated'), and the next round checks its history again.
 */
export async function maybeFetch(follower: PartitionLogApi, leader: LeaderEndPoint): Promise<FetchOutcome> {
  const leaderLog = leader.log
  const fetchOffset = follower.logEndOffset
  if (fetchOffset === leaderLog.logEndOffset) return 'caughtUp'
  const read = await leaderLog.read(fetchOffset, leader.fetchMaxBytes, { maxOffset: leaderLog.logEndOffset })
  const first = read.batches[0]
  if (!first) return 'caughtUp'
  if (first.baseOffset < fetchOffset) {
    await truncateFollower(follower, first.baseOffset)
    return 'truncated'
  }
  await follower.appendAsFollower(read.records, { allowOffsetGaps: true })
  return 'appended'
}

/** Cuts a follower back to `offset`; at or below its log start that empties it and restarts it there. */
export async function truncateFollower(follower: PartitionLogApi, offset: number): Promise<void> {
  const target = Math.max(0, offset)
  if (target <= follower.logStartOffset) await follower.truncateFullyAndStartAt(Math.max(target, follower.logStartOffset))
  else await follower.truncateTo(target)
}
