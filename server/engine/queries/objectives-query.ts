import 'server-only'
import { operationRtoMs } from '@/lib/failover/recovery-time'
import { currentRpoStatus, drillRtoResults, rpoCompliance, rtoResults, type DrillRtoResult, type RpoCompliance, type RtoResult } from '@/lib/mirror/objective-compliance'
import type { MirrorObjectives } from '@/lib/api/mirrors'
import { minuteOf, type LagArchive } from '../lag/lag-archive'
import type { EngineMirror } from '../state/engine-mirror'
import type { FailoverOperation } from '../types'
import { mirrorFigures } from './mirror-figures'

const WINDOW_MS = 30 * 24 * 60 * 60 * 1000

export interface MirrorObjectivesView {
  objectives: MirrorObjectives | null
  current: { records: number | null; seconds: number | null; known: boolean; status: 'met' | 'breached' | 'unknown' | null }
  rpoCompliance: RpoCompliance | null
  rto: RtoResult[]
  drills: DrillRtoResult[]
}

/** What the objectives read of a drill (server/drills/ keeps them; the engine does not run drills). */
export interface DrillRtoInput {
  readonly id: string
  readonly status: string
  readonly startedAt: number
  readonly rtoMs: number | null
}

/**
 * A mirror's objectives and how it holds them (GET /mirrors/{m}/objectives): the recovery point now (the failover
 * plan's figures, mirror-figures.ts), the minutes of the last 30 days the engine archived (lag-archive.ts) judged
 * against the RPO objective, and the measured RTO of its failovers and drills in that window.
 */
export async function mirrorObjectives(
  mirror: EngineMirror,
  operations: readonly FailoverOperation[],
  drills: readonly DrillRtoInput[],
  archive: LagArchive | undefined,
  now: number,
): Promise<MirrorObjectivesView> {
  const objectives = mirror.definition.config.objectives ?? null
  const figures = mirrorFigures(mirror, now)
  const rpo = { rpoRecords: objectives?.rpoRecords, rpoSeconds: objectives?.rpoSeconds }
  const hasRpo = rpo.rpoRecords !== undefined || rpo.rpoSeconds !== undefined
  const status = currentRpoStatus(figures.rpo, { ...(rpo.rpoRecords === undefined ? {} : { rpoRecords: rpo.rpoRecords }), ...(rpo.rpoSeconds === undefined ? {} : { rpoSeconds: rpo.rpoSeconds }) })
  // Minutes from before this mirror was created are another mirror's of the same name (one deleted where its
  // files could not be removed, or on another instance): never this one's compliance.
  const points = archive === undefined ? [] : await archive.loadRecoveryPoints(mirror.definition.name, now, Math.max(now - WINDOW_MS, minuteOf(mirror.definition.createdAt)))
  const samples = points.map((point) => ({ t: point.t, records: point.r, oldestMs: point.s, known: point.k }))
  const measured = operations.flatMap((operation) => {
    const rtoMs = operation.startedAt >= now - WINDOW_MS ? operationRtoMs(operation) : null
    return rtoMs === null ? [] : [{ operation: operation.id, type: operation.type ?? 'unplanned', startedAt: operation.startedAt, rtoMs }]
  })
  return {
    objectives: objectives === null ? null : { ...objectives },
    current: { records: figures.rpo.records, seconds: figures.rpo.seconds, known: figures.rpo.known, status },
    rpoCompliance: hasRpo ? rpoCompliance(samples, { ...(rpo.rpoRecords === undefined ? {} : { rpoRecords: rpo.rpoRecords }), ...(rpo.rpoSeconds === undefined ? {} : { rpoSeconds: rpo.rpoSeconds }) }, now) : null,
    rto: rtoResults(measured, objectives?.rtoSeconds),
    drills: drillRtoResults(drills, objectives?.rtoSeconds, now),
  }
}
