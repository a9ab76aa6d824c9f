/**
 * What the alert rules read of a mirror (lib/alerts/rules.ts), computed once per evaluation by the server
 * (server/engine/queries/mirror-figures.ts for the engine's part) from the same figures the metrics expose,
 * so the built-in rules and the shipped Prometheus rules see one set of numbers. Pure data.
 */
import type { DrillCadence } from '../drill/cadence'
import type { MirrorPartitionState } from '../mirror/states'

/** A partition named in an alert's summary (the first few FAILED ones). */
export interface FigurePartition {
  readonly topic: string
  readonly partition: number
  readonly error: string | null
}

/**
 * Records at risk and the age of the oldest record not yet mirrored, over the partitions the mirror still
 * protects (every state but STOPPING and STOPPED): what a failover now would lose, counted as the failover
 * plan counts it (lib/mirror/at-risk.ts). `known` is false when a part rests on a silent source: the figures
 * are then lower bounds; null when a partition's are not known at all.
 */
export interface RecoveryPoint {
  readonly records: number | null
  readonly seconds: number | null
  readonly known: boolean
}

export interface MirrorFigures {
  readonly mirror: string
  readonly partitionsByState: Partial<Record<MirrorPartitionState, number>>
  /** Up to five FAILED partitions, longest failed first. */
  readonly failedExamples: readonly FigurePartition[]
  /** Sum of the offset lag of MIRRORING partitions (lower bounds while a source is silent); null when none has a figure. */
  readonly totalOffsetLag: number | null
  /** Max time lag (seconds) over the same partitions; null when none is known. */
  readonly maxTimeLagSeconds: number | null
  /** Seconds since the least recently fetched MIRRORING partition last fetched (or entered MIRRORING); null when none mirrors. */
  readonly maxFetchAgeSeconds: number | null
  /** MIRRORING partitions whose last fetch is older than the stale threshold of the FetchStale rule. */
  readonly staleFetchPartitions: number
  readonly rpo: RecoveryPoint
  /** The mirror's recovery-point objective (config.objectives); null when it sets none. */
  readonly rpoObjective: { readonly records: number | null; readonly seconds: number | null } | null
  /** Records written to the old source since a failover (the split-brain guard); 0 when none or not watched. */
  readonly splitBrainRecords: number
  /** The newest finished operation of the mirror, when it failed. */
  readonly failedOperation: { readonly id: string; readonly kind: string; readonly finishedAt: number } | null
  /** How recently the mirror's failover was rehearsed against its `drillIntervalDays` objective (DrillOverdue); null when the server runs no drills. */
  readonly drills: DrillCadence | null
}

/** Seconds after which a MIRRORING partition's last fetch counts as stale (FetchStale; the overview's attention list uses 30 s too). */
export const FETCH_STALE_SECONDS = 30
