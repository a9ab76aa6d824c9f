/**
 * When ULE_LOG_TRUNCATION (the voted KIP's ULE_RECOVERY) may resume MIRRORING: every replica of the destination
 * partition holds exactly the truncated log (KIP-1279.md §3.5, checklist #38). Decided from each replica's own log
 * end offset and latest epoch, never from ISR membership: a stopped broker stays in the ISR for
 * replica.lag.time.max.ms, and what its disk holds is unknown until it returns and reconciles its log with the
 * leader's. A replica removed from the assignment is not asked about.
 */

/** One replica of the assignment as the destination sees it. */
export interface ReplicaLogState {
  brokerId: number
  /** False while the replica's broker is down. */
  online: boolean
  /** The replica's log end offset and the epoch of its last batch (-1: empty); null when not known (offline, or not visible). */
  logEndOffset: number | null
  latestEpoch: number | null
}

export type ReplicaWait = 'offline' | 'unknown' | 'behind' | 'ahead' | 'otherEpoch'

export type ReplicaConvergence =
  | { converged: true; logEndOffset: number; latestEpoch: number }
  | { converged: false; leaderKnown: boolean; waitingFor: ReadonlyArray<{ brokerId: number; why: ReplicaWait }> }

/**
 * Compares every replica with the leader's log: the leader truncated to the divergence point and appends nothing
 * while the partition recovers, so a replica that ends where the leader ends, in the same epoch, holds the same
 * log (KIP-101: replicas whose last epochs and end offsets agree agree below them). A leader that cannot be seen
 * converges nothing.
 */
export function replicaConvergence(leader: number, replicas: readonly ReplicaLogState[]): ReplicaConvergence {
  const own = replicas.find((replica) => replica.brokerId === leader)
  if (!own || !own.online || own.logEndOffset === null || own.latestEpoch === null) {
    return { converged: false, leaderKnown: false, waitingFor: [{ brokerId: leader, why: leader < 0 || own?.online === false ? 'offline' : 'unknown' }] }
  }
  const waitingFor: Array<{ brokerId: number; why: ReplicaWait }> = []
  for (const replica of replicas) {
    const why = replicaWait(replica, own.logEndOffset, own.latestEpoch)
    if (why !== null) waitingFor.push({ brokerId: replica.brokerId, why })
  }
  if (waitingFor.length > 0) return { converged: false, leaderKnown: true, waitingFor }
  return { converged: true, logEndOffset: own.logEndOffset, latestEpoch: own.latestEpoch }
}

function replicaWait(replica: ReplicaLogState, logEndOffset: number, latestEpoch: number): ReplicaWait | null {
  if (!replica.online) return 'offline'
  if (replica.logEndOffset === null || replica.latestEpoch === null) return 'unknown'
  if (replica.logEndOffset < logEndOffset) return 'behind'
  if (replica.logEndOffset > logEndOffset) return 'ahead'
  if (replica.latestEpoch !== latestEpoch) return 'otherEpoch'
  return null
}

const WAIT_TEXT: Record<ReplicaWait, string> = {
  offline: 'offline',
  unknown: 'not visible',
  behind: 'behind the truncated log',
  ahead: 'still holding offsets past the truncation point',
  otherEpoch: 'holding another epoch at the truncation point',
}

/** "broker 1 offline; broker 3 behind the truncated log": what recovery waits for, for the log and the UI. */
export function describeReplicaWait(convergence: Extract<ReplicaConvergence, { converged: false }>): string {
  if (!convergence.leaderKnown) {
    const [{ brokerId, why }] = convergence.waitingFor as [{ brokerId: number; why: ReplicaWait }]
    return brokerId < 0 ? 'the partition has no leader' : `the leader (broker ${brokerId}) ${WAIT_TEXT[why]}`
  }
  return convergence.waitingFor.map(({ brokerId, why }) => `broker ${brokerId} ${WAIT_TEXT[why]}`).join('; ')
}
