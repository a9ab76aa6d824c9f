/**
 * The in-sync replica set of a partition, as Kafka's leader keeps it (Partition.maybeShrinkIsr, maybeExpandIsr,
 * maybeIncrementLeaderHW): pure decisions over what the leader knows of its followers. The embedded cluster's
 * ReplicatedPartition acts on them (server/cluster/embedded/replicated-partition.ts).
 */

/** What the leader knows of a follower (mutable: the leader updates it as the follower fetches). */
export interface FollowerView {
  /** The follower's log end offset as the current leader knows it; -1 until it fetched from this leader. */
  logEndOffset: number
  lastCaughtUpTimeMs: number
}

/** ISR members other than the leader that have not caught up within replica.lag.time.max.ms (or never fetched). */
export function outOfSyncReplicas(input: { isr: readonly number[]; leader: number; followers: ReadonlyMap<number, FollowerView>; now: number; replicaLagTimeMaxMs: number }): number[] {
  return input.isr.filter((replica) => {
    if (replica === input.leader) return false
    const state = input.followers.get(replica)
    return !state || input.now - state.lastCaughtUpTimeMs > input.replicaLagTimeMaxMs
  })
}

/**
 * Replicas outside the ISR that may join it: caught up to the high watermark and to the start of the leader's
 * epoch (`replicas`: those with an open log).
 */
export function joiningReplicas(input: {
  replicas: readonly number[]
  isr: readonly number[]
  leader: number
  followers: ReadonlyMap<number, FollowerView>
  highWatermark: number
  leaderEpochStartOffset: number
}): number[] {
  return input.replicas.filter((replica) => {
    if (replica === input.leader || input.isr.includes(replica)) return false
    const state = input.followers.get(replica)
    return state !== undefined && state.logEndOffset >= 0 && state.logEndOffset >= input.highWatermark && state.logEndOffset >= input.leaderEpochStartOffset
  })
}

/** The high watermark the ISR has reached: the smallest log end among its members; null while one has not fetched from this leader yet. */
export function isrHighWatermark(input: { isr: readonly number[]; leader: number; leaderLogEndOffset: number; followers: ReadonlyMap<number, FollowerView> }): number | null {
  let highWatermark = input.leaderLogEndOffset
  for (const replica of input.isr) {
    if (replica === input.leader) continue
    const state = input.followers.get(replica)
    if (!state || state.logEndOffset < 0) return null
    highWatermark = Math.min(highWatermark, state.logEndOffset)
  }
  return highWatermark
}
