/**
 * A mirror held to its recovery-point objective (issue #34, API.md §"Round 3"): what a failover now would lose
 * (records at risk, summed; the age of the oldest of them, the largest over partitions) against
 * `objectives.rpoRecords` / `objectives.rpoSeconds`. The same figures as the failover plan (lib/mirror/at-risk.ts).
 *
 * Status:
 * - `breached`: a figure exceeds its objective — exact, or a lower bound (a lower bound over it is over it for certain);
 * - `met`: every figure is exact and within its objective;
 * - `unknown`: a figure is unknown or only a lower bound within its objective (the source does not answer):
 *   never shown as met, and the failover gate treats it as not met.
 */
import type { AtRisk } from '../mirror/at-risk'
import type { FailoverGate, FailoverPreflight } from '../mirror/failover-plan'
import { formatInteger } from '../ui/format'

export interface RpoObjective {
  readonly rpoRecords?: number
  readonly rpoSeconds?: number
}

export type RpoStatus = 'met' | 'breached' | 'unknown'

export interface RpoStanding {
  readonly objective: RpoObjective
  /** Records at risk, summed; a lower bound unless `known`; null when a partition's is unknown and none is over. */
  readonly records: number | null
  /** Age of the oldest record at risk, in seconds (max over partitions); same rules. */
  readonly seconds: number | null
  readonly known: boolean
  readonly status: RpoStatus
}

/** The objective's RPO part, or null when it sets none (the gate does not apply). */
export function rpoObjectiveOf(objectives: { rpoRecords?: number; rpoSeconds?: number } | null | undefined): RpoObjective | null {
  if (!objectives) return null
  const objective: { rpoRecords?: number; rpoSeconds?: number } = {}
  if (objectives.rpoRecords !== undefined) objective.rpoRecords = objectives.rpoRecords
  if (objectives.rpoSeconds !== undefined) objective.rpoSeconds = objectives.rpoSeconds
  return Object.keys(objective).length > 0 ? objective : null
}

export function rpoStanding(objective: RpoObjective, partitions: readonly AtRisk[]): RpoStanding {
  let records: number | null = 0
  let timeMs: number | null = 0
  let known = true
  for (const atRisk of partitions) {
    if (!atRisk.known) known = false
    records = records === null || atRisk.records === null ? null : records + atRisk.records
    timeMs = timeMs === null || atRisk.timeMs === null ? null : Math.max(timeMs, atRisk.timeMs)
  }
  // A sum with an unknown term is still a lower bound of what is known: kept for "over" decisions.
  const knownRecords = partitions.reduce((sum, atRisk) => sum + (atRisk.records ?? 0), 0)
  const knownTimeMs = partitions.reduce((max, atRisk) => Math.max(max, atRisk.timeMs ?? 0), 0)
  const seconds = timeMs === null ? null : timeMs / 1000
  const over =
    (objective.rpoRecords !== undefined && knownRecords > objective.rpoRecords) || (objective.rpoSeconds !== undefined && knownTimeMs / 1000 > objective.rpoSeconds)
  const exact = known && (objective.rpoRecords === undefined || records !== null) && (objective.rpoSeconds === undefined || seconds !== null)
  const status: RpoStatus = over ? 'breached' : exact ? 'met' : 'unknown'
  return { objective, records, seconds, known: exact, status }
}

/** `12 records and 3.4 s` — what a failover now would lose, in words (a lower bound says so). */
export function describeRpo(standing: Pick<RpoStanding, 'records' | 'seconds' | 'known'>): string {
  const records = standing.records === null ? 'an unknown number of records' : `${standing.known ? '' : 'at least '}${formatInteger(standing.records)} record${standing.records === 1 ? '' : 's'}`
  const seconds = standing.seconds === null ? 'an unknown age' : `${standing.known ? '' : 'at least '}${formatSeconds(standing.seconds)}`
  return `${records} and ${seconds}`
}

/** `objective 100 records, 30 s` */
export function describeRpoObjective(objective: RpoObjective): string {
  const parts: string[] = []
  if (objective.rpoRecords !== undefined) parts.push(`${formatInteger(objective.rpoRecords)} record${objective.rpoRecords === 1 ? '' : 's'}`)
  if (objective.rpoSeconds !== undefined) parts.push(formatSeconds(objective.rpoSeconds))
  return parts.join(', ')
}

function formatSeconds(seconds: number): string {
  return seconds < 10 ? `${Math.round(seconds * 10) / 10} s` : `${formatInteger(Math.round(seconds))} s`
}

/** The failover gate `rpo-objective`: fails (a warning that only an explicit force passes) unless the RPO is met. */
export function rpoGateDetail(standing: RpoStanding): string {
  const objective = describeRpoObjective(standing.objective)
  switch (standing.status) {
    case 'met':
      return `would lose ${describeRpo(standing)}: within the objective (${objective})`
    case 'breached':
      return `would lose ${describeRpo(standing)}: over the objective (${objective}); force this gate to accept the loss`
    case 'unknown':
      return `would lose ${describeRpo(standing)}: cannot be held to the objective (${objective}) while the source does not answer; force this gate to accept an unknown loss`
  }
}

/**
 * The plan held to the objective: its `rpo` standing from the partitions the failover stops, and the gate
 * `rpo-objective` (none when the mirror sets no RPO objective). `canProceed` is unchanged: the gate is a
 * warning, which the engine refuses with RPO_OBJECTIVE_EXCEEDED unless it is named in `force`.
 */
export function withRpoGate<P extends FailoverPreflight>(plan: P, objective: RpoObjective | null): P & { rpo?: RpoStanding } {
  if (objective === null) return plan
  const stopped = plan.partitions.filter((partition) => partition.action === 'stop' || partition.action === 'stopInProgress')
  const standing = rpoStanding(objective, stopped.map((partition) => partition.atRisk))
  const gate: FailoverGate = { name: 'rpo-objective', ok: standing.status === 'met', severity: 'warning', detail: rpoGateDetail(standing) }
  return { ...plan, gates: [...plan.gates, gate], rpo: standing }
}
