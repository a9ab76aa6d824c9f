import { describe, expect, it } from 'vitest'
import { OperationReport } from '../api/operation-report'
import { buildOperationReport, markersOf, stopTimes, type ReportInput } from './report'
import { failoverReportMarkdown } from './report-markdown'

const plan = {
  mirror: 'dr',
  canProceed: true,
  gates: [
    { name: 'source-reachable', ok: true, severity: 'warning' as const, detail: 'the source answers' },
    { name: 'lag-threshold', ok: false, severity: 'warning' as const, detail: '3 record(s) at risk in orders-0' },
  ],
  partitions: [
    {
      topic: 'orders',
      partition: 0,
      state: 'PAUSED' as const,
      action: 'stop' as const,
      mirroredOffset: 3,
      sourceLogEndOffset: 6,
      recordsAtRisk: 3,
      timeAtRiskMs: 1_000,
      transactionsToAbort: [
        { producerId: 4001, producerEpoch: 0, firstOffset: 0 },
        { producerId: 4002, producerEpoch: 0, firstOffset: 2 },
      ],
      consumerGroupsBehind: [],
    },
  ],
}

// The destination of the KIP's worked example after the stop: 0-2 mirrored, ABORT 3 and 4, reset at 5.
const input: ReportInput = {
  operation: {
    id: 'op-1',
    kind: 'failover',
    mirror: 'dr',
    status: 'succeeded',
    startedAt: 10_000,
    finishedAt: 10_250,
    requestedBy: { actor: 'session:abc', role: 'operator' },
    resumedAt: [],
    partitions: [{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED', error: null, finishedAt: 10_250 }],
    plan,
  },
  sourceCluster: 'us-east',
  destinationCluster: 'eu-west',
  confirmedBy: 'session:abc',
  forcedGates: ['lag-threshold'],
  generatedAt: 20_000,
  outcomes: [
    {
      topic: 'orders',
      partition: 0,
      lastMirrorPosition: { epoch: 0, offset: 3 },
      destinationLeaderEpoch: 11,
      records: [
        { offset: 2, type: 'DATA', producerId: 4002, producerEpoch: 0 },
        { offset: 3, type: 'ABORT', producerId: 4001, producerEpoch: 0 },
        { offset: 4, type: 'ABORT', producerId: 4002, producerEpoch: 0 },
        { offset: 5, type: 'MIRROR_PID_RESET', producerId: null, producerEpoch: null },
      ],
      transitions: [
        { to: 'PAUSED', at: 5_000 },
        { to: 'STOPPING', at: 10_010 },
        { to: 'STOPPED', at: 10_200 },
      ],
    },
  ],
}

describe('buildOperationReport', () => {
  it('reports the worked example: ABORT 4001 at 3, ABORT 4002 at 4, reset at 5, forced lag gate, who confirmed', () => {
    const report = OperationReport.parse(buildOperationReport(input))
    expect(report.partitions[0]).toMatchObject({
      aborted: [
        { offset: 3, producerId: 4001, producerEpoch: 0 },
        { offset: 4, producerId: 4002, producerEpoch: 0 },
      ],
      pidResetOffset: 5,
      finalLeaderEpoch: 11,
      stoppingAt: 10_010,
      stoppedAt: 10_200,
      durationMs: 190,
    })
    expect(report.totals).toEqual({ partitions: 1, stopped: 1, failed: 0, recordsAtRisk: 3, transactionsAborted: 2, producersAborted: [4001, 4002] })
    expect(report.confirmation).toEqual({ confirmedBy: 'session:abc', confirmedAt: 10_000, forcedGates: [plan.gates[1]] })
    expect(report.operation.durationMs).toBe(250)
  })

  it('leaves out partitions it has no outcome for instead of inventing markers', () => {
    const report = buildOperationReport({ ...input, outcomes: [] })
    expect(report.partitions[0]).toMatchObject({ aborted: [], pidResetOffset: null, lastMirrorPosition: null, durationMs: null })
  })
})

describe('markersOf', () => {
  it('ignores ABORT markers below the last mirror position (they were mirrored from the source)', () => {
    const markers = markersOf({
      lastMirrorPosition: { epoch: 1, offset: 10 },
      records: [
        { offset: 7, type: 'ABORT', producerId: 1, producerEpoch: 0 },
        { offset: 10, type: 'MIRROR_PID_RESET', producerId: null, producerEpoch: null },
      ],
    })
    expect(markers).toEqual({ aborted: [], pidResetOffset: 10 })
  })

  it('starts at offset 0 for a log that was empty at the stop', () => {
    expect(markersOf({ lastMirrorPosition: { epoch: -1, offset: -1 }, records: [{ offset: 0, type: 'MIRROR_PID_RESET', producerId: null, producerEpoch: null }] }).pidResetOffset).toBe(0)
  })
})

describe('stopTimes', () => {
  it('takes the STOPPING and STOPPED of this operation, not of an earlier stop', () => {
    expect(stopTimes([{ to: 'STOPPING', at: 1 }, { to: 'STOPPED', at: 2 }, { to: 'STOPPING', at: 5_000 }, { to: 'STOPPED', at: 5_100 }], 5_000)).toEqual({ stoppingAt: 5_000, stoppedAt: 5_100 })
  })
})

describe('the post-mortem additions', () => {
  it('compares measured RPO and RTO with the objectives the mirror sets', () => {
    const report = buildOperationReport({ ...input, objectives: { rpoRecords: 10, rtoSeconds: 0.1 } })
    expect(report.measured).toEqual({ rtoMs: 200, rpo: { records: 3, seconds: 1 } })
    expect(report.objectiveResults).toEqual([
      { name: 'rpoRecords', objective: 10, measured: 3, met: true },
      { name: 'rtoSeconds', objective: 0.1, measured: 0.2, met: false },
    ])
    expect(buildOperationReport(input).objectiveResults).toEqual([])
  })

  it('groups the transitions of many partitions into one line of the timeline', () => {
    const outcomes = Array.from({ length: 50 }, (_, partition) => ({
      ...input.outcomes[0]!,
      partition,
      transitions: [
        { from: 'PAUSED' as const, to: 'STOPPING' as const, at: 10_010 + partition, reason: 'failover requested' },
        { from: 'STOPPING' as const, to: 'STOPPED' as const, at: 10_100 + partition, reason: 'stop completed' },
      ],
    }))
    const partitions = outcomes.map(({ partition }) => ({ topic: 'orders', partition, step: 'done' as const, state: 'STOPPED' as const, error: null, finishedAt: 10_200 }))
    const report = buildOperationReport({ ...input, operation: { ...input.operation, partitions }, outcomes })
    expect(report.timeline.filter((entry) => entry.event === 'transition').map(({ detail, partitions: count }) => [detail, count])).toEqual([
      ['50 partitions → STOPPING over 49 ms', 50],
      ['50 partitions → STOPPED over 49 ms', 50],
    ])
    expect(report.timeline[0]).toEqual({ at: 10_000, event: 'confirmed', detail: "Failover of dr confirmed by session:abc (typed the mirror's name); 50 partition(s) to stop" })
    expect(report.timeline.filter((entry) => entry.event === 'forced').map((entry) => entry.detail)).toEqual(['Gate lag-threshold forced by session:abc'])
  })

  it('writes the Markdown post-mortem with every section, objectives and escaped details', () => {
    const report = buildOperationReport({
      ...input,
      objectives: { rpoRecords: 1 },
      verification: { id: 'v-1', status: 'mismatched', finishedAt: 10_400, partitions: [{ topic: 'orders', partition: 0, status: 'mismatched', summary: 'identical up to offset 2, then differs', identicalUpTo: 2, mismatchCount: 1 }] },
      destinationGroups: [{ groupId: 'billing|eu', topic: 'orders', partition: 0, offset: 2 }],
    })
    const text = failoverReportMarkdown(report)
    for (const heading of ['## Summary', '## Objectives', '## Timeline', '## Preflight gates', '## Markers written', '## Verification', '## Consumer groups: where to resume', '## Next steps']) expect(text).toContain(heading)
    expect(text).toContain('| RPO (records) | 1 | 3 | ✕ breached |')
    expect(text).toContain('| orders-0 | mismatched | identical up to offset 2, then differs | 1 |')
    expect(text).toContain('| billing\\|eu | orders-0 | 2 |')
    expect(text).toContain('| lag-threshold | ✕ failed | warning | forced | 3 record(s) at risk in orders-0 |')
    expect(text.endsWith('\n')).toBe(true)
  })

  it("times a planned switchover's phases and writes refused, with the records lost, in the JSON and the Markdown", () => {
    const switchover = {
      phase: 'done' as const,
      fenceMethod: 'acl' as const,
      drainTimeoutMs: 120_000,
      transactionGraceMs: 30_000,
      fencedAt: 10_005,
      drainStartedAt: 10_040,
      drainedAt: 10_090,
      stoppedAt: 10_250,
      rolledBackAt: null,
      reason: null,
      transactionsAbortedAtSource: 0,
      groupsActiveOnSource: [],
      drain: null,
      recordsLost: { total: 0, partitions: [] },
    }
    const report = buildOperationReport({ ...input, operation: { ...input.operation, kind: 'switchover', type: 'planned', switchover } })
    expect(OperationReport.parse(report).measured).toEqual({ rtoMs: 200, rpo: { records: 3, seconds: 1 }, switchover: { fenceMs: 35, drainMs: 50, stopMs: 160, writesRefusedMs: 245, recordsLost: 0 } })
    expect(failoverReportMarkdown(report)).toContain('- Planned switchover: fence 35 ms, drain 50 ms, stop 160 ms; client writes refused for 245 ms; records lost (measured at STOPPED): 0')
    expect(buildOperationReport(input).measured.switchover).toBeUndefined()
  })
})
