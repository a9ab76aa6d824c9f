// deploy/prometheus/tests.yml (promtool's unit tests of rules.yml), generated from the cases below so that every
// expected alert carries the annotations of the rules table; the cases say what each rule must do.
import { stringify } from 'yaml'
import { ALERT_RULES, type AlertRuleName } from '@/lib/alerts/rules'

export const RULES_TESTS_FILE = 'deploy/prometheus/tests.yml'

interface Expected {
  readonly labels: Record<string, string>
  /** The summary annotation as Prometheus renders it. */
  readonly summary: string
}

interface AlertCheck {
  readonly at: string
  readonly alert: AlertRuleName
  /** Empty: the alert must not be firing then (absent, or still pending). */
  readonly firing: readonly Expected[]
}

interface TestCase {
  readonly name: string
  readonly series: ReadonlyArray<{ readonly series: string; readonly values: string }>
  readonly checks: readonly AlertCheck[]
}

// Every series is sampled each 15 s (promtool's default evaluation interval and the input's step).
const CASES: readonly TestCase[] = [
  {
    name: 'PartitionFailed: fires after FAILED partitions stay 30 s, resolves when none is; a mirror without any stays quiet',
    series: [
      { series: 'mirrorboard_partitions{mirror="dr",state="FAILED"}', values: '0 0 2 2 2 2 2 0 0' },
      { series: 'mirrorboard_partitions{mirror="calm",state="FAILED"}', values: '0x8' },
    ],
    checks: [
      { at: '45s', alert: 'PartitionFailed', firing: [] },
      { at: '60s', alert: 'PartitionFailed', firing: [{ labels: { mirror: 'dr', state: 'FAILED' }, summary: '2 partition(s) of mirror dr are FAILED' }] },
      { at: '105s', alert: 'PartitionFailed', firing: [] },
    ],
  },
  {
    name: 'MirrorLagGrowing: offset lag rising with an old unmirrored record fires after 2 m; a steady lag or a fresh one does not',
    series: [
      { series: 'mirrorboard_partition_offset_lag{mirror="dr",topic="orders",partition="0"}', values: '0+100x40' },
      { series: 'mirrorboard_partition_time_lag_seconds{mirror="dr",topic="orders",partition="0"}', values: '0+15x40' },
      { series: 'mirrorboard_partition_offset_lag{mirror="steady",topic="orders",partition="0"}', values: '500x40' },
      { series: 'mirrorboard_partition_time_lag_seconds{mirror="steady",topic="orders",partition="0"}', values: '120x40' },
      { series: 'mirrorboard_partition_offset_lag{mirror="fresh",topic="orders",partition="0"}', values: '0+100x40' },
      { series: 'mirrorboard_partition_time_lag_seconds{mirror="fresh",topic="orders",partition="0"}', values: '1x40' },
    ],
    checks: [
      { at: '3m', alert: 'MirrorLagGrowing', firing: [] },
      { at: '10m', alert: 'MirrorLagGrowing', firing: [{ labels: { mirror: 'dr' }, summary: 'Mirror dr is falling behind: its offset lag grew by 2k records in 5 minutes' }] },
    ],
  },
  {
    name: 'RpoObjectiveBreached: records or seconds at risk over the objective for a minute fire; a mirror without an objective stays quiet',
    series: [
      { series: 'mirrorboard_mirror_rpo_records{mirror="dr"}', values: '0 0 50 50 50 50 50 50 50 0 0' },
      { series: 'mirrorboard_mirror_rpo_seconds{mirror="dr"}', values: '0x10' },
      { series: 'mirrorboard_mirror_rpo_objective_records{mirror="dr"}', values: '10x10' },
      { series: 'mirrorboard_mirror_rpo_objective_seconds{mirror="dr"}', values: '30x10' },
      { series: 'mirrorboard_mirror_rpo_records{mirror="old"}', values: '0x10' },
      { series: 'mirrorboard_mirror_rpo_seconds{mirror="old"}', values: '0 0 90 90 90 90 90 90 90 90 90' },
      { series: 'mirrorboard_mirror_rpo_objective_seconds{mirror="old"}', values: '60x10' },
      { series: 'mirrorboard_mirror_rpo_records{mirror="free"}', values: '5000x10' },
    ],
    checks: [
      { at: '60s', alert: 'RpoObjectiveBreached', firing: [] },
      {
        at: '105s',
        alert: 'RpoObjectiveBreached',
        firing: [
          { labels: { mirror: 'dr' }, summary: 'A failover of mirror dr now would lose more than its recovery-point objective (50)' },
          { labels: { mirror: 'old' }, summary: 'A failover of mirror old now would lose more than its recovery-point objective (90)' },
        ],
      },
      { at: '150s', alert: 'RpoObjectiveBreached', firing: [{ labels: { mirror: 'old' }, summary: 'A failover of mirror old now would lose more than its recovery-point objective (90)' }] },
    ],
  },
  {
    name: 'FetchStale: a MIRRORING partition without a fetch for over 30 s fires after 30 s more, counted per mirror',
    series: [
      { series: 'mirrorboard_partition_last_fetch_age_seconds{mirror="dr",topic="orders",partition="0"}', values: '0.5x10' },
      { series: 'mirrorboard_partition_last_fetch_age_seconds{mirror="dr",topic="orders",partition="1"}', values: '0.5 10 35 50 65 80 95 110 125 140' },
    ],
    checks: [
      { at: '45s', alert: 'FetchStale', firing: [] },
      { at: '60s', alert: 'FetchStale', firing: [{ labels: { mirror: 'dr' }, summary: '1 MIRRORING partition(s) of mirror dr have not fetched for over 30 s' }] },
    ],
  },
  {
    name: 'SplitBrainWrites: fires at once when the old source takes records after a failover, summed over topics',
    series: [
      { series: 'mirrorboard_split_brain_records{mirror="dr",topic="orders"}', values: '0 0 3 3' },
      { series: 'mirrorboard_split_brain_records{mirror="dr",topic="payments"}', values: '0 0 0 2' },
    ],
    checks: [
      { at: '15s', alert: 'SplitBrainWrites', firing: [] },
      { at: '30s', alert: 'SplitBrainWrites', firing: [{ labels: { mirror: 'dr' }, summary: 'The old source of mirror dr took 3 records since the failover' }] },
      { at: '45s', alert: 'SplitBrainWrites', firing: [{ labels: { mirror: 'dr' }, summary: 'The old source of mirror dr took 5 records since the failover' }] },
    ],
  },
  {
    name: "OperationFailed: fires at once for a mirror whose newest operation failed, and resolves when the series goes (a scrape without it marks it stale)",
    series: [{ series: 'mirrorboard_operation_failed{mirror="dr",kind="failover",operation="op-1"}', values: '_ _ 1 1 stale' }],
    checks: [
      { at: '15s', alert: 'OperationFailed', firing: [] },
      {
        at: '30s',
        alert: 'OperationFailed',
        firing: [{ labels: { mirror: 'dr', kind: 'failover', operation: 'op-1' }, summary: 'Operation op-1 (failover) of mirror dr failed' }],
      },
      { at: '75s', alert: 'OperationFailed', firing: [] },
    ],
  },
  {
    name: 'DrillOverdue: fires at once for a mirror past its drillIntervalDays objective and resolves when a drill succeeds; one on schedule, or with no objective (no series), stays quiet',
    series: [
      { series: 'mirrorboard_drill_overdue{mirror="dr"}', values: '0 0 1 1 1 0 0' },
      { series: 'mirrorboard_drill_overdue{mirror="calm"}', values: '0x6' },
    ],
    checks: [
      { at: '15s', alert: 'DrillOverdue', firing: [] },
      { at: '30s', alert: 'DrillOverdue', firing: [{ labels: { mirror: 'dr' }, summary: 'The failover of mirror dr was not rehearsed within its drillIntervalDays objective' }] },
      { at: '60s', alert: 'DrillOverdue', firing: [{ labels: { mirror: 'dr' }, summary: 'The failover of mirror dr was not rehearsed within its drillIntervalDays objective' }] },
      { at: '75s', alert: 'DrillOverdue', firing: [] },
    ],
  },
]

export function testedAlerts(): Set<AlertRuleName> {
  return new Set(CASES.flatMap((testCase) => testCase.checks.filter((check) => check.firing.length > 0).map((check) => check.alert)))
}

export function rulesTestsText(): string {
  const document = {
    rule_files: ['rules.yml'],
    evaluation_interval: '15s',
    tests: CASES.map((testCase) => ({
      name: testCase.name,
      interval: '15s',
      input_series: testCase.series.map(({ series, values }) => ({ series, values })),
      alert_rule_test: testCase.checks.map((check) => {
        const rule = ALERT_RULES.find((candidate) => candidate.name === check.alert)
        if (rule === undefined) throw new Error(`no rule ${check.alert}`)
        return {
          eval_time: check.at,
          alertname: check.alert,
          exp_alerts: check.firing.map((expected) => ({
            exp_labels: { severity: rule.severity, ...expected.labels },
            exp_annotations: { summary: expected.summary, description: rule.description, runbook_url: `docs/runbook.md#${rule.runbook}` },
          })),
        }
      }),
    })),
  }
  return [
    '# promtool unit tests of rules.yml: `promtool test rules deploy/prometheus/tests.yml`.',
    '# Generated from scripts/alerts/rules-tests.ts by `npx tsx scripts/alerts/write-rules.ts`: edit the cases there.',
    '',
  ].join('\n') + stringify(document, { lineWidth: 0 })
}
