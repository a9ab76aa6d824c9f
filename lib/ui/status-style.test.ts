import { describe, expect, it } from 'vitest'
import { AttentionKind } from '../api/attention'
import { AuditOutcome } from '../api/audit'
import { RunStatus } from '../api/demo'
import { DrillStatus } from '../api/drills'
import { OperationStatus } from '../api/operations'
import { STATE_STYLE, TONE_STYLE } from './state-style'
import {
  ATTENTION_KIND_STYLE,
  AUDIT_OUTCOME_STYLE,
  DRILL_STATUS_STYLE,
  LAG_TREND_STYLE,
  OPERATION_STATUS_STYLE,
  RPO_STATUS_STYLE,
  RUN_STATUS_STYLE,
  WORKLOAD_STATE_STYLE,
  workloadState,
  type StatusStyle,
} from './status-style'

const TABLES: ReadonlyArray<[string, readonly string[], Readonly<Record<string, StatusStyle>>]> = [
  ['operation', OperationStatus.options, OPERATION_STATUS_STYLE],
  ['drill', DrillStatus.options, DRILL_STATUS_STYLE],
  ['run', RunStatus.options, RUN_STATUS_STYLE],
  ['audit outcome', AuditOutcome.options, AUDIT_OUTCOME_STYLE],
  ['lag trend', ['growing', 'shrinking', 'steady', 'unknown', 'notMirroring', 'pending'], LAG_TREND_STYLE],
  ['workload', ['running', 'paused', 'failing'], WORKLOAD_STATE_STYLE],
  ['attention', AttentionKind.options, ATTENTION_KIND_STYLE],
  ['RPO', ['met', 'breached', 'unknown'], RPO_STATUS_STYLE],
]

describe('status styles', () => {
  it('never shows an unknown recovery point in the tone of a met one', () => {
    expect(RPO_STATUS_STYLE.unknown.tone).not.toBe(RPO_STATUS_STYLE.met.tone)
    expect(RPO_STATUS_STYLE.unknown.icon).not.toBe(RPO_STATUS_STYLE.met.icon)
  })

  it.each(TABLES)('gives every %s status of the API a look, each with its own glyph', (_kind, statuses, table) => {
    expect(Object.keys(table).sort()).toEqual([...statuses].sort())
    const icons = statuses.map((status) => table[status]?.icon)
    expect(new Set(icons).size).toBe(statuses.length)
    for (const status of statuses) expect(TONE_STYLE[table[status]!.tone]).toBeDefined()
  })

  it('shows a status word the same way whatever runs it (an operation, a drill, a demo run)', () => {
    for (const status of ['running', 'succeeded', 'failed'] as const) {
      expect(DRILL_STATUS_STYLE[status]).toEqual(OPERATION_STATUS_STYLE[status])
      expect(RUN_STATUS_STYLE[status]).toEqual(OPERATION_STATUS_STYLE[status])
    }
  })

  it('speaks the partition states’ colours: failure is danger, success healthy, work in progress the progress tone', () => {
    expect([OPERATION_STATUS_STYLE.failed.tone, DRILL_STATUS_STYLE.failed.tone, RUN_STATUS_STYLE.failed.tone, AUDIT_OUTCOME_STYLE.failed.tone]).toEqual(['danger', 'danger', 'danger', 'danger'])
    expect([OPERATION_STATUS_STYLE.succeeded.tone, AUDIT_OUTCOME_STYLE.ok.tone]).toEqual(['healthy', 'healthy'])
    expect(OPERATION_STATUS_STYLE.running.tone).toBe('progress')
    // Only what is still moving pulses.
    const active = TABLES.flatMap(([kind, statuses, table]) => statuses.filter((status) => table[status]?.active === true).map((status) => `${kind}:${status}`))
    expect(active).toEqual(['operation:running', 'drill:running', 'run:running'])
  })

  it('shows a FAILED or paused partition in the attention list as its state looks everywhere else', () => {
    expect(ATTENTION_KIND_STYLE.failed).toMatchObject({ icon: STATE_STYLE.FAILED.icon, tone: STATE_STYLE.FAILED.tone })
    expect(ATTENTION_KIND_STYLE.paused).toMatchObject({ icon: STATE_STYLE.PAUSED.icon, tone: STATE_STYLE.PAUSED.tone })
  })

  it('calls a paused workload paused even when its last step failed', () => {
    expect(workloadState({ paused: true, lastError: 'partition orders-2 has no leader' })).toBe('paused')
    expect(workloadState({ paused: false, lastError: 'partition orders-2 has no leader' })).toBe('failing')
    expect(workloadState({ paused: false, lastError: null })).toBe('running')
  })
})
