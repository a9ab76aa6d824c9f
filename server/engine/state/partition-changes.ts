import 'server-only'
import type { PartitionChange, PartitionField, PartitionRuntime, PartitionSnapshot, PartitionTransitionRecord, PartitionChangePublisher, SnapshotStaleness } from '../types'

export type { PartitionChange, PartitionField, SnapshotStaleness } from '../types'

/**
 * The one write path of a partition's runtime (TanStack Query's `#dispatch`, for the engine): the runner,
 * the fetcher, the lag sampler, the leadership watch and replay all describe what changed as a
 * `PartitionChange`, and `changePartition` applies it and publishes it, so a listener sees every change
 * exactly once and nothing else writes a runtime's fields (they are readonly everywhere but here).
 *
 * The partition's snapshot is marked stale by the change that moves something it shows, so a read rebuilds
 * only what changed instead of diffing every partition against its last snapshot.
 */

/** A change as published: only the fields whose value did move, and the transition if one was appended. */
export interface PublishedPartitionChange {
  runtime: PartitionRuntime
  change: PartitionChange
}

const MAX_TRANSITIONS_KEPT = 500

/** Fields a snapshot shows (queries/partition-snapshots.ts); lastFetchAt is apart: it moves every round. */
const SHOWN_FIELDS: ReadonlySet<PartitionField> = new Set<PartitionField>([
  'value',
  'stateDurable',
  'sourceHighWatermark',
  'sourceObservedAt',
  'oldestUnmirroredTimestamp',
  'destinationHighWatermark',
  'destinationLogEndOffset',
  'destinationLeaderEpoch',
  // A FAILED partition shows its reason and its next retry.
  'failureCode',
  'retryAt',
])

/** Listeners of every partition change of one engine; each runtime publishes to the one it was created with. */
export class PartitionChanges implements PartitionChangePublisher {
  private readonly listeners = new Set<(published: PublishedPartitionChange) => void>()

  subscribe(listener: (published: PublishedPartitionChange) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** @internal called by changePartition only */
  publish(runtime: PartitionRuntime, change: PartitionChange): void {
    if (this.listeners.size === 0) return
    const published = { runtime, change }
    for (const listener of this.listeners) listener(published)
  }
}

/** What this module alone may write. */
type WritableRuntime = { -readonly [K in PartitionField]: PartitionRuntime[K] } & {
  transitions: PartitionTransitionRecord[]
  snapshot: Readonly<PartitionSnapshot> | null
  snapshotStaleness: SnapshotStaleness
}

/**
 * Applies `change` to the runtime and publishes what moved. A field given its current value is not a
 * change: it is neither published nor makes the snapshot stale.
 */
export function changePartition(runtime: PartitionRuntime, change: PartitionChange): void {
  const target = runtime as unknown as WritableRuntime
  const fields = target as unknown as Record<PartitionField, unknown>
  const moved = onlyMoved(fields, change)
  let staleness = runtime.snapshotStaleness
  let any = false
  for (const key in moved) {
    if (key === 'transition') continue
    const field = key as PartitionField
    fields[field] = moved[field]
    any = true
    if (SHOWN_FIELDS.has(field)) staleness = 'stale'
    else if (field === 'lastFetchAt' && staleness === 'fresh') staleness = 'lastFetchAt'
  }
  target.snapshotStaleness = staleness
  if (moved.transition) {
    target.transitions.push(moved.transition)
    if (target.transitions.length > MAX_TRANSITIONS_KEPT) target.transitions.splice(0, target.transitions.length - MAX_TRANSITIONS_KEPT)
    any = true
  }
  if (any) runtime.changes.publish(runtime, moved)
}

/** `change` itself when every field in it moves (the common case, no copy), else a copy without the others. */
function onlyMoved(fields: Record<PartitionField, unknown>, change: PartitionChange): PartitionChange {
  let allMove = true
  for (const key in change) {
    if (key !== 'transition' && fields[key as PartitionField] === change[key as PartitionField]) {
      allMove = false
      break
    }
  }
  if (allMove) return change
  const moved: Record<string, unknown> = {}
  for (const key in change) {
    if (key === 'transition' || fields[key as PartitionField] !== change[key as PartitionField]) moved[key] = change[key as keyof PartitionChange]
  }
  return moved as PartitionChange
}

/** The snapshot kept from the last read, and how much of it changes since have made stale. */
export function keptSnapshot(runtime: PartitionRuntime): { snapshot: Readonly<PartitionSnapshot> | null; staleness: SnapshotStaleness } {
  return { snapshot: runtime.snapshot, staleness: runtime.snapshotStaleness }
}

/** Keeps the snapshot a read built: fresh until the next change of something it shows. */
export function keepSnapshot(runtime: PartitionRuntime, snapshot: Readonly<PartitionSnapshot>): void {
  const target = runtime as unknown as WritableRuntime
  target.snapshot = snapshot
  target.snapshotStaleness = 'fresh'
}
