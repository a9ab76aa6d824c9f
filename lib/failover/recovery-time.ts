/**
 * Recovery time, measured (issue #34): a failover's RTO is the time from the operation's start (the operator's
 * confirmation) to the moment its last partition was STOPPED, i.e. the destination writable; a planned
 * switchover's phases are timed as well, and how long client writes were refused (fence → STOPPED, or → the
 * rollback). One reading for the report, the operation page and the metrics. Pure.
 */

export interface RtoInput {
  readonly status: string
  readonly startedAt: number
  readonly partitions: ReadonlyArray<{ readonly state: string; readonly finishedAt: number | null }>
}

/** Start → last partition STOPPED; null unless the operation succeeded with every partition STOPPED. */
export function operationRtoMs(operation: RtoInput): number | null {
  if (operation.status !== 'succeeded' || operation.partitions.length === 0) return null
  let last = operation.startedAt
  for (const partition of operation.partitions) {
    if (partition.state !== 'STOPPED' || partition.finishedAt === null) return null
    last = Math.max(last, partition.finishedAt)
  }
  return last - operation.startedAt
}

export interface SwitchoverTimesInput {
  readonly fencedAt: number | null
  readonly drainStartedAt: number | null
  readonly drainedAt: number | null
  readonly stoppedAt: number | null
  readonly rolledBackAt: number | null
}

export interface SwitchoverTimes {
  /** Fence asked → drain started (the fence itself and the open transactions' grace). */
  readonly fenceMs: number | null
  /** Drain started → every destination log end equal to the source's (and one group offset sync). */
  readonly drainMs: number | null
  /** Drained → every partition STOPPED. */
  readonly stopMs: number | null
  /** Fence asked → STOPPED or rolled back: how long clients could write nowhere. */
  readonly writesRefusedMs: number | null
}

const span = (from: number | null, to: number | null): number | null => (from === null || to === null ? null : Math.max(0, to - from))

/** Each finished phase of a switchover; a phase not (yet) ended is null. */
export function switchoverTimes(switchover: SwitchoverTimesInput): SwitchoverTimes {
  return {
    fenceMs: span(switchover.fencedAt, switchover.drainStartedAt),
    drainMs: span(switchover.drainStartedAt, switchover.drainedAt),
    stopMs: span(switchover.drainedAt, switchover.stoppedAt),
    writesRefusedMs: span(switchover.fencedAt, switchover.stoppedAt ?? switchover.rolledBackAt),
  }
}
