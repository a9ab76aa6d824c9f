import { describe, expect, it } from 'vitest'
import { collapseRetryStorms, stormLabel, type TimelineTransition } from './retry-storms'
import type { MirrorPartitionState } from '../mirror/states'

let clock = 0
const step = (from: MirrorPartitionState, to: MirrorPartitionState, extra: Partial<TimelineTransition> = {}): TimelineTransition => ({ from, to, at: (clock += 1_000), reason: `${from} to ${to}`, ...extra })

/** `count` failed retries of an unreachable source after the first failure: FAILED → MIRRORING → FAILED … */
function storm(count: number): TimelineTransition[] {
  const rows = [step('MIRRORING', 'FAILED', { error: 'source unreachable', retryAttempt: 1 })]
  for (let attempt = 2; attempt <= count; attempt++) rows.push(step('FAILED', 'MIRRORING', { retryAttempt: attempt - 1 }), step('MIRRORING', 'FAILED', { error: `source unreachable #${attempt}`, retryAttempt: attempt }))
  return rows
}

const shape = (entries: ReturnType<typeof collapseRetryStorms>) =>
  entries.map((entry) => (entry.kind === 'storm' ? `${stormLabel(entry.path)} × ${entry.failures}` : `${entry.transition.from}→${entry.transition.to}`))

describe('collapseRetryStorms', () => {
  it('one row for a storm that is still going, with its last error and attempt', () => {
    clock = 0
    const history = [step('UNKNOWN', 'PREPARING'), step('PREPARING', 'MIRRORING'), ...storm(11)]
    const entries = collapseRetryStorms(history)
    expect(shape(entries)).toEqual(['UNKNOWN→PREPARING', 'PREPARING→MIRRORING', 'FAILED ⇄ MIRRORING × 11'])
    const row = entries[2]!
    expect(row.kind === 'storm' && { first: row.first, last: row.last, endsIn: row.endsIn, lastError: row.lastError, lastAttempt: row.lastAttempt, inside: row.transitions.length }).toEqual({
      first: 3_000,
      last: 23_000,
      endsIn: 'FAILED',
      lastError: 'source unreachable #11',
      lastAttempt: 11,
      inside: 21,
    })
    // Nothing is lost: every transition is in one entry, in order.
    expect(entries.flatMap((entry) => (entry.kind === 'storm' ? entry.transitions.map(({ index }) => index) : [entry.index]))).toEqual(history.map((_, index) => index))
  })

  it('the recovery after a storm, and what follows, stay rows of their own', () => {
    clock = 0
    const entries = collapseRetryStorms([...storm(4), step('FAILED', 'MIRRORING'), step('MIRRORING', 'PAUSING'), step('PAUSING', 'PAUSED')])
    expect(shape(entries)).toEqual(['FAILED ⇄ MIRRORING × 4', 'FAILED→MIRRORING', 'MIRRORING→PAUSING', 'PAUSING→PAUSED'])
  })

  it('leaves one or two failures row by row: a retry that worked is a story, not a storm', () => {
    clock = 0
    expect(shape(collapseRetryStorms([...storm(2), step('FAILED', 'MIRRORING')]))).toEqual(['MIRRORING→FAILED', 'FAILED→MIRRORING', 'MIRRORING→FAILED', 'FAILED→MIRRORING'])
  })

  it('collapses a cycle through PREPARING (the retry that worked its own row), and splits where the path changes', () => {
    clock = 0
    const cycle = () => [step('PREPARING', 'FAILED', { error: 'truncate failed' }), step('FAILED', 'PREPARING')]
    const history = [step('UNKNOWN', 'PREPARING'), ...cycle(), ...cycle(), ...cycle(), step('PREPARING', 'MIRRORING'), step('MIRRORING', 'FAILED'), step('FAILED', 'STOPPING')]
    expect(shape(collapseRetryStorms(history))).toEqual(['UNKNOWN→PREPARING', 'FAILED ⇄ PREPARING × 3', 'FAILED→PREPARING', 'PREPARING→MIRRORING', 'MIRRORING→FAILED', 'FAILED→STOPPING'])
    expect(stormLabel(['FAILED', 'PREPARING', 'MIRRORING'])).toBe('FAILED → PREPARING → MIRRORING ⟲')
  })
})
