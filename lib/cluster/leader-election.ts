/**
 * Kafka's leader election for one partition (the controller's `PartitionLeaderElectionAlgorithms`), for
 * clean and unclean elections alike:
 * - clean: the first replica, in assignment order, that is alive and in the ISR leads; the ISR stays;
 * - unclean (only when the topic allows it): with no such replica, the first alive replica leads, with an
 *   ISR of itself alone; what the old ISR held beyond its log is lost, and histories may diverge;
 * - offline: nobody can lead; the caller leaves the ISR as it is, so that its last member can lead again
 *   cleanly when it comes back.
 */
export type LeaderChoice =
  | { readonly kind: 'clean'; readonly leader: number; readonly isr: readonly number[] }
  | { readonly kind: 'unclean'; readonly leader: number; readonly isr: readonly number[] }
  | { readonly kind: 'offline' }

export interface LeaderElectionInput {
  /** The partition's replicas in assignment order (the preferred leader first). */
  readonly replicas: readonly number[]
  /** The in-sync replicas the new leader may come from. */
  readonly isr: readonly number[]
  /** Whether a replica's broker is up and holds an open log. */
  readonly isAlive: (replica: number) => boolean
  /** `unclean.leader.election.enable` of the topic. */
  readonly uncleanElectionEnabled: boolean
}

export function chooseLeader(input: LeaderElectionInput): LeaderChoice {
  const { replicas, isr, isAlive, uncleanElectionEnabled } = input
  const clean = replicas.find((replica) => isAlive(replica) && isr.includes(replica))
  if (clean !== undefined) return { kind: 'clean', leader: clean, isr: [...isr] }
  if (!uncleanElectionEnabled) return { kind: 'offline' }
  const unclean = replicas.find((replica) => isAlive(replica))
  return unclean === undefined ? { kind: 'offline' } : { kind: 'unclean', leader: unclean, isr: [unclean] }
}
