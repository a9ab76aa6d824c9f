/**
 * The alert rules, once: the server evaluates them (server/alerts/, built-in alerting for users without
 * Prometheus) and deploy/prometheus/rules.yml is generated from this table (`npx tsx scripts/alerts/write-rules.ts`;
 * scripts/alerts/rules-file.test.ts fails when the file and the table differ). Each rule holds its PromQL over
 * the metrics of GET /api/metrics and the same condition over a mirror's figures (lib/alerts/figures.ts, read
 * from the same engine numbers as the metrics), with one set of thresholds for both.
 *
 * A rule is one entry plus the figure it reads (objectives and drills included).
 */
import { lastDrillText } from '../drill/cadence'
import { FETCH_STALE_SECONDS, type MirrorFigures } from './figures'
import { formatInteger } from '../ui/format'

export const ALERT_RULE_NAMES = ['PartitionFailed', 'MirrorLagGrowing', 'RpoObjectiveBreached', 'FetchStale', 'SplitBrainWrites', 'OperationFailed', 'DrillOverdue'] as const
export type AlertRuleName = (typeof ALERT_RULE_NAMES)[number]
export type AlertSeverity = 'critical' | 'warning'

/** `[time ms, total offset lag]` of a mirror at each evaluation, oldest first (what `delta()` reads in Prometheus). */
export type LagSample = readonly [number, number]

/** What a rule found on a mirror: its value (Prometheus' `$value`), a sentence for people, and labels that tell instances apart. */
export interface RuleFinding {
  readonly value: number
  readonly summary: string
  /** Labels beyond `mirror` that make this a different alert (OperationFailed: the operation). */
  readonly labels?: Readonly<Record<string, string>>
  /** Where in the mirror, when the finding is about one topic (and one partition): the alert names them. */
  readonly topic?: string
  readonly partition?: number
}

/**
 * The topic (and partition) every one of `count` partitions belongs to, when `examples` lists them all and they
 * share it; nothing when they span topics or not all are listed.
 */
export function placeOf(count: number, examples: ReadonlyArray<{ readonly topic: string; readonly partition: number }>): { topic?: string; partition?: number } {
  const first = examples[0]
  if (first === undefined || examples.length !== count || examples.some((example) => example.topic !== first.topic)) return {}
  return count === 1 ? { topic: first.topic, partition: first.partition } : { topic: first.topic }
}

export interface AlertRule {
  readonly name: AlertRuleName
  readonly severity: AlertSeverity
  /** How long the condition must hold before the alert fires (Prometheus' `for`). */
  readonly forSeconds: number
  /** PromQL over the exposed metrics and the recording rules below; its result series carry `mirror`. */
  readonly expr: string
  /** Prometheus' summary annotation (Go template); the built-in evaluation writes its own from the figures. */
  readonly summary: string
  readonly description: string
  /** Anchor of the rule's section in docs/runbook.md. */
  readonly runbook: string
  /** The same condition over a mirror's figures; null while it does not hold. */
  readonly evaluate: (figures: MirrorFigures, lagHistory: readonly LagSample[]) => RuleFinding | null
}

/** MirrorLagGrowing: the window the growth is measured over and the time lag above which growth matters. */
export const LAG_GROWTH_WINDOW_SECONDS = 300
export const LAG_GROWING_MIN_TIME_LAG_SECONDS = 60
/** RpoObjectiveBreached: a breach must last this long (a burst the mirror absorbs within a minute is no alert). */
export const RPO_BREACH_FOR_SECONDS = 60

export const RECORDING_RULES: ReadonlyArray<{ readonly record: string; readonly expr: string }> = [
  { record: 'mirrorboard:mirror_offset_lag:sum', expr: 'sum by (mirror) (mirrorboard_partition_offset_lag)' },
  { record: 'mirrorboard:mirror_time_lag_seconds:max', expr: 'max by (mirror) (mirrorboard_partition_time_lag_seconds)' },
  { record: 'mirrorboard:mirror_last_fetch_age_seconds:max', expr: 'max by (mirror) (mirrorboard_partition_last_fetch_age_seconds)' },
  { record: 'mirrorboard:mirrored_records:rate1m', expr: 'sum by (mirror) (rate(mirrorboard_mirrored_records_total[1m]))' },
]

/** "a drill every day", "a drill every 7 days", "a drill every 3.5 days". */
function drillEvery(days: number): string {
  return days === 1 ? 'a drill every day' : `a drill every ${formatInteger(days)} days`
}

function plural(count: number, one: string, many: string): string {
  return `${formatInteger(count)} ${count === 1 ? one : many}`
}

/** Growth of the total offset lag over the window: newest minus oldest sample within it (the sign of Prometheus' delta()). */
export function lagGrowth(history: readonly LagSample[], windowSeconds: number): number | null {
  const newest = history.at(-1)
  if (newest === undefined) return null
  const from = newest[0] - windowSeconds * 1000
  const oldest = history.find(([t]) => t >= from)
  if (oldest === undefined || oldest === newest) return null
  return newest[1] - oldest[1]
}

export const ALERT_RULES: readonly AlertRule[] = [
  {
    name: 'PartitionFailed',
    severity: 'critical',
    forSeconds: 30,
    expr: 'mirrorboard_partitions{state="FAILED"} > 0',
    summary: '{{ $value }} partition(s) of mirror {{ $labels.mirror }} are FAILED',
    description: 'Nothing is mirrored for a FAILED partition: the engine retries retryable failures with backoff; a non-retryable one waits for an operator (recover, or fail over).',
    runbook: 'partitionfailed',
    evaluate: (figures) => {
      const failed = figures.partitionsByState.FAILED ?? 0
      if (failed === 0) return null
      const named = figures.failedExamples.map((p) => `${p.topic}-${p.partition}${p.error ? ` (${p.error})` : ''}`).join(', ')
      const more = failed > figures.failedExamples.length ? `, and ${failed - figures.failedExamples.length} more` : ''
      return { value: failed, summary: `${plural(failed, 'partition', 'partitions')} of mirror ${figures.mirror} FAILED: ${named}${more}`, ...placeOf(failed, figures.failedExamples) }
    },
  },
  {
    name: 'MirrorLagGrowing',
    severity: 'warning',
    forSeconds: 120,
    expr: `delta(mirrorboard:mirror_offset_lag:sum[${LAG_GROWTH_WINDOW_SECONDS / 60}m]) > 0 and on (mirror) mirrorboard:mirror_time_lag_seconds:max > ${LAG_GROWING_MIN_TIME_LAG_SECONDS}`,
    summary: 'Mirror {{ $labels.mirror }} is falling behind: its offset lag grew by {{ $value | humanize }} records in 5 minutes',
    description: `The total offset lag of the MIRRORING partitions rose over ${LAG_GROWTH_WINDOW_SECONDS / 60} minutes while the oldest unmirrored record is over ${LAG_GROWING_MIN_TIME_LAG_SECONDS} s old: the source takes records faster than the mirror copies them (throttle, network, destination).`,
    runbook: 'mirrorlaggrowing',
    evaluate: (figures, history) => {
      const growth = lagGrowth(history, LAG_GROWTH_WINDOW_SECONDS)
      if (growth === null || growth <= 0 || (figures.maxTimeLagSeconds ?? 0) <= LAG_GROWING_MIN_TIME_LAG_SECONDS) return null
      return {
        value: growth,
        summary: `Mirror ${figures.mirror} is falling behind: its offset lag grew by ${plural(growth, 'record', 'records')} in 5 minutes (oldest unmirrored record ${Math.round(figures.maxTimeLagSeconds ?? 0)} s old)`,
      }
    },
  },
  {
    name: 'RpoObjectiveBreached',
    severity: 'warning',
    forSeconds: RPO_BREACH_FOR_SECONDS,
    expr: '(mirrorboard_mirror_rpo_records > on (mirror) mirrorboard_mirror_rpo_objective_records) or (mirrorboard_mirror_rpo_seconds > on (mirror) mirrorboard_mirror_rpo_objective_seconds)',
    summary: 'A failover of mirror {{ $labels.mirror }} now would lose more than its recovery-point objective ({{ $value | humanize }})',
    description:
      "What a failover now would lose (records at risk, or the age of the oldest record not yet mirrored) exceeds the mirror's RPO objective; an unplanned failover is refused (RPO_OBJECTIVE_EXCEEDED) unless forced. A lower bound over the objective counts: while the source is silent the loss is at least that.",
    runbook: 'rpoobjectivebreached',
    evaluate: (figures) => {
      const objective = figures.rpoObjective
      if (objective === null) return null
      const overRecords = objective.records !== null && figures.rpo.records !== null && figures.rpo.records > objective.records
      const overSeconds = objective.seconds !== null && figures.rpo.seconds !== null && figures.rpo.seconds > objective.seconds
      if (!overRecords && !overSeconds) return null
      const atLeast = figures.rpo.known ? '' : 'at least '
      const parts: string[] = []
      if (overRecords) parts.push(`${atLeast}${plural(figures.rpo.records!, 'record', 'records')} at risk (objective ${plural(objective.records!, 'record', 'records')})`)
      if (overSeconds) parts.push(`${atLeast}${Math.round(figures.rpo.seconds!)} s at risk (objective ${objective.seconds} s)`)
      return { value: overRecords ? figures.rpo.records! : figures.rpo.seconds!, summary: `A failover of mirror ${figures.mirror} now would lose ${parts.join(' and ')}` }
    },
  },
  {
    name: 'FetchStale',
    severity: 'warning',
    forSeconds: 30,
    expr: `count by (mirror) (mirrorboard_partition_last_fetch_age_seconds > ${FETCH_STALE_SECONDS}) > 0`,
    summary: `{{ $value }} MIRRORING partition(s) of mirror {{ $labels.mirror }} have not fetched for over ${FETCH_STALE_SECONDS} s`,
    description: 'A MIRRORING partition fetches from its source at least every half second; one that has not for this long has a stuck fetcher or a source that holds its requests, and its lag figures are not current.',
    runbook: 'fetchstale',
    evaluate: (figures) => {
      if (figures.staleFetchPartitions === 0) return null
      return {
        value: figures.staleFetchPartitions,
        summary: `${plural(figures.staleFetchPartitions, 'MIRRORING partition', 'MIRRORING partitions')} of mirror ${figures.mirror} have not fetched for over ${FETCH_STALE_SECONDS} s (longest ${Math.round(figures.maxFetchAgeSeconds ?? 0)} s)`,
      }
    },
  },
  {
    name: 'SplitBrainWrites',
    severity: 'critical',
    forSeconds: 0,
    expr: 'sum by (mirror) (mirrorboard_split_brain_records) > 0',
    summary: 'The old source of mirror {{ $labels.mirror }} took {{ $value }} records since the failover',
    description: 'Producers still write to the old source after a failover: their records are not on the new primary, and a failback truncates them away.',
    runbook: 'splitbrainwrites',
    evaluate: (figures) =>
      figures.splitBrainRecords > 0
        ? { value: figures.splitBrainRecords, summary: `The old source of mirror ${figures.mirror} took ${plural(figures.splitBrainRecords, 'record', 'records')} since the failover` }
        : null,
  },
  {
    name: 'OperationFailed',
    severity: 'critical',
    forSeconds: 0,
    expr: 'mirrorboard_operation_failed == 1',
    summary: 'Operation {{ $labels.operation }} ({{ $labels.kind }}) of mirror {{ $labels.mirror }} failed',
    description: "The mirror's newest operation failed: some partitions did not reach the state it promised. The alert resolves when a later operation of the mirror succeeds.",
    runbook: 'operationfailed',
    evaluate: (figures) =>
      figures.failedOperation === null
        ? null
        : {
            value: 1,
            summary: `Operation ${figures.failedOperation.id} (${figures.failedOperation.kind}) of mirror ${figures.mirror} failed`,
            labels: { operation: figures.failedOperation.id, kind: figures.failedOperation.kind },
          },
  },
  {
    name: 'DrillOverdue',
    severity: 'warning',
    forSeconds: 0,
    expr: 'mirrorboard_drill_overdue == 1',
    summary: 'The failover of mirror {{ $labels.mirror }} was not rehearsed within its drillIntervalDays objective',
    description:
      "The mirror's objectives ask for a successful drill (a failover rehearsed on a copy of the destination) every drillIntervalDays; the last one is older than that, or there has been none. The alert resolves when a drill of the mirror succeeds.",
    runbook: 'drilloverdue',
    evaluate: (figures) => {
      const cadence = figures.drills
      if (cadence?.overdue !== true || cadence.intervalDays === null) return null
      const last = cadence.daysSince === null ? 'was never rehearsed successfully' : `was last rehearsed successfully ${lastDrillText(cadence)}`
      return { value: 1, summary: `The failover of mirror ${figures.mirror} ${last}; its objective is ${drillEvery(cadence.intervalDays)}` }
    },
  },
]

export function ruleNamed(name: string): AlertRule | undefined {
  return ALERT_RULES.find((rule) => rule.name === name)
}
