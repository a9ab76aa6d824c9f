import 'server-only'
import type { EngineClusters } from './cluster-access'
import type { ReplicationThrottles } from './fetcher/replication-throttle'
import type { LagArchive } from './lag/lag-archive'
import type { OperationTracker } from './operations/operation-tracker'
import type { LeadershipWatch } from './runner/leadership-watch'
import type { PartitionRunner } from './runner/partition-runner'
import type { EngineState } from './state/engine-state'

/**
 * What every part of the engine (fetcher/, preparing/, syncs/, lag/, commands/, failover/, queries/) works
 * with: built once by the facade (engine.ts), so no part reaches another's internals.
 */
export interface EngineContext {
  readonly state: EngineState
  readonly clusters: EngineClusters
  /** The only executor of transitions and their effects (runner/partition-runner.ts). */
  readonly runner: PartitionRunner
  readonly operations: OperationTracker
  /** mirror.replication.throttled.rate per mirror: one token bucket each (fetcher/replication-throttle.ts). */
  readonly throttles: ReplicationThrottles
  /** Destination leader moves, seen at most once a second per mirror (runner/leadership-watch.ts). */
  readonly leadership: LeadershipWatch
  /** Where downsampled lag history is persisted; undefined keeps it in memory only. */
  readonly lagArchive: LagArchive | undefined
  /** replica.fetch.wait.max.ms: how long a fetch round may wait at the source for something new. */
  readonly fetchMaxWaitMs: number
  now(): number
  random(): number
  log(message: string, fields: Record<string, unknown>): void
}

/**
 * Partitions worked on at once by sweeps (start, stop, epoch checks): enough that their durable writes
 * share fsyncs, few enough that one sweep does not queue every partition's promise at once.
 */
export const PARTITION_CONCURRENCY = 128
