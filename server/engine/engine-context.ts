import 'server-only'
import type { EngineClusters } from './cluster-access'
import type { ReplicationThrottles } from './fetcher/replication-throttle'
import type { LagArchive } from './lag/lag-archive'
import type { OperationTracker } from './operations/operation-tracker'
import type { LeadershipWatch } from './runner/leadership-watch'
import type { PartitionRunner } from './runner/partition-runner'
import type { EngineState } from './state/engine-state'

/**
 * What the parts of the engine (fetcher/, preparing/, syncs/, lag/, commands/, failover/, operations/, queries/)
 * work with, one capability per interface: each function asks for the ones it uses (`ctx: ClusterAccess &
 * PartitionStore`), so what a part can touch is in its signature. The facade (engine.ts) builds the one object
 * that has them all, so no part reaches another's internals.
 */

/** The engine's time and randomness, injected: tests step time, and retry jitter is deterministic in them. */
export interface EngineClock {
  now(): number
  random(): number
}

export interface EngineLog {
  log(message: string, fields: Record<string, unknown>): void
}

/** The mirrors and partition runtimes the engine holds, and where their events are published. */
export interface PartitionStore {
  readonly state: EngineState
}

/** The only executor of transitions and their effects (runner/partition-runner.ts), under each partition's lock. */
export interface PartitionDispatch {
  readonly runner: PartitionRunner
}

/** Clusters by name through their ports, each destination's `__mirror_state` store, bounded source calls. */
export interface ClusterAccess {
  readonly clusters: EngineClusters
}

/** The durable operations (operations/operation-tracker.ts). */
export interface OperationsAccess {
  readonly operations: OperationTracker
}

export interface FetchSettings {
  /** mirror.replication.throttled.rate per mirror: one token bucket each (fetcher/replication-throttle.ts). */
  readonly throttles: ReplicationThrottles
  /** replica.fetch.wait.max.ms: how long a fetch round may wait at the source for something new. */
  readonly fetchMaxWaitMs: number
}

/** Destination leader moves, seen at most once a second per mirror (runner/leadership-watch.ts). */
export interface LeadershipAccess {
  readonly leadership: LeadershipWatch
}

/** Where downsampled lag history is persisted; undefined keeps it in memory only. */
export interface LagArchiveAccess {
  readonly lagArchive: LagArchive | undefined
}

/** Every capability: what the facade holds and hands out. */
export interface EngineContext
  extends EngineClock,
    EngineLog,
    PartitionStore,
    PartitionDispatch,
    ClusterAccess,
    OperationsAccess,
    FetchSettings,
    LeadershipAccess,
    LagArchiveAccess {}

/**
 * Partitions worked on at once by sweeps (start, stop, epoch checks): enough that their durable writes
 * share fsyncs, few enough that one sweep does not queue every partition's promise at once.
 */
export const PARTITION_CONCURRENCY = 128
