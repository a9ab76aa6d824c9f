import 'server-only'
import type { MirrorFigures } from '@/lib/alerts/figures'
import type { DrillCadence } from '@/lib/drill/cadence'
import type { MirrorEngine } from './engine'
import type { SplitBrainWatch } from './failover/split-brain-watch'

/** Each mirror's newest finished operation, when it failed (OperationFailed, `mirrorboard_operation_failed`). */
export function failedOperations(engine: MirrorEngine): Map<string, NonNullable<MirrorFigures['failedOperation']>> {
  const newest = new Map<string, { id: string; kind: string; status: string; finishedAt: number | null }>()
  for (const operation of engine.listOperations()) {
    if (operation.status !== 'running' && !newest.has(operation.mirror)) newest.set(operation.mirror, operation)
  }
  const failed = new Map<string, NonNullable<MirrorFigures['failedOperation']>>()
  for (const [mirror, operation] of newest) {
    if (operation.status === 'failed') failed.set(mirror, { id: operation.id, kind: operation.kind, finishedAt: operation.finishedAt ?? 0 })
  }
  return failed
}

/**
 * What the alert rules read of every mirror: the engine's figures, the split-brain guard's count, a failed
 * operation, and the drills' cadence (`drills`, from server/drills/ by the composition root; absent, null).
 */
export function mirrorAlertFigures(engine: MirrorEngine, splitBrain: SplitBrainWatch, drills?: (mirror: string) => DrillCadence): MirrorFigures[] {
  const failed = failedOperations(engine)
  return engine.listMirrors().map((definition) => ({
    ...engine.mirrorFigures(definition.name),
    splitBrainRecords: splitBrain.forMirror(definition.name)?.recordsWritten ?? 0,
    failedOperation: failed.get(definition.name) ?? null,
    drills: drills?.(definition.name) ?? null,
  }))
}
