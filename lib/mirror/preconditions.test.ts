import { describe, expect, it } from 'vitest'
import { COMMAND_PRECONDITIONS, planCommand, planStart, type MirrorCommand, type PartitionStateRef } from './preconditions'
import { MIRROR_PARTITION_STATES, type MirrorPartitionState } from './states'

/** One partition of topic `t` per state, so every row is checked against every state. */
const everyState: PartitionStateRef[] = MIRROR_PARTITION_STATES.map((state, partition) => ({ topic: 't', partition, state }))

function states(partitions: ReadonlyArray<{ state: MirrorPartitionState }>): MirrorPartitionState[] {
  return partitions.map((p) => p.state)
}

const ROWS: Array<{ command: MirrorCommand; allowed: MirrorPartitionState[]; done?: MirrorPartitionState[] }> = [
  { command: 'start', allowed: ['UNKNOWN', 'STOPPED'] },
  { command: 'stop', allowed: ['PREPARING', 'EPOCH_FENCING', 'ULE_LOG_TRUNCATION', 'MIRRORING', 'PAUSING', 'PAUSED', 'STOPPING', 'FAILED'], done: ['STOPPED'] },
  { command: 'pause', allowed: ['MIRRORING', 'FAILED'] },
  { command: 'resume', allowed: ['PAUSED'] },
  { command: 'recover', allowed: ['FAILED'] },
  { command: 'delete', allowed: ['STOPPED'] },
]

describe('command preconditions (KIP-1279.md §6.2, §11 #39 #40)', () => {
  it('is the table of the KIP prototype, with FAILED and the transient states a stop may start from, and a FAILED pause as the transition table allows', () => {
    for (const { command, allowed } of ROWS) expect([...COMMAND_PRECONDITIONS[command]].sort(), command).toEqual([...allowed].sort())
  })

  for (const { command, allowed, done = [] } of ROWS) {
    describe(command, () => {
      for (const state of MIRROR_PARTITION_STATES) {
        const verdict = allowed.includes(state) ? 'applies' : done.includes(state) ? 'is already done' : 'is refused'
        it(`named: ${verdict} in ${state}`, () => {
          const plan = planCommand(command, [{ topic: 't', partition: 0, state }, { topic: 't', partition: 1, state: allowed[0]! }], { named: true, mirror: 'm' })
          if (verdict === 'is refused') {
            expect(plan.ok).toBe(false)
            if (plan.ok) return
            // Every offending partition is named with its state; the allowed ones are not.
            expect(plan.refusal.partitions).toEqual([{ topic: 't', partition: 0, state }])
            expect(plan.refusal.allowedStates).toEqual(COMMAND_PRECONDITIONS[command])
            expect(plan.refusal.message).toContain(`t-0 is ${state}`)
          } else {
            expect(plan.ok).toBe(true)
            if (!plan.ok) return
            expect(states(plan.apply)).toEqual(verdict === 'applies' ? [state, allowed[0]] : [allowed[0]])
            expect(plan.skipped).toEqual(verdict === 'applies' ? [] : [{ topic: 't', partition: 0, state }])
          }
        })
      }

      it('all: applies where it may and reports the rest as skipped (delete: all or nothing)', () => {
        const plan = planCommand(command, everyState, { named: false, mirror: 'm' })
        if (command === 'delete') {
          expect(plan.ok).toBe(false)
          if (plan.ok) return
          expect(states(plan.refusal.partitions).sort()).toEqual(MIRROR_PARTITION_STATES.filter((s) => s !== 'STOPPED').sort())
          return
        }
        expect(plan.ok).toBe(true)
        if (!plan.ok) return
        expect(states(plan.apply).sort()).toEqual([...allowed].sort())
        expect(states(plan.skipped).sort()).toEqual(MIRROR_PARTITION_STATES.filter((s) => !allowed.includes(s)).sort())
      })

      if (command !== 'start') {
        it('all: refused when no partition qualifies, naming them', () => {
          const others = everyState.filter((p) => !allowed.includes(p.state))
          const plan = planCommand(command, others, { named: false, mirror: 'm' })
          expect(plan.ok).toBe(false)
          if (plan.ok) return
          expect(states(plan.refusal.partitions).sort()).toEqual(states(others).sort())
          expect(planCommand(command, [], { named: false, mirror: 'm' }).ok).toBe(false)
        })
      }
    })
  }

  it('delete of a mirror that is all STOPPED applies to every partition', () => {
    const plan = planCommand('delete', [{ topic: 'a', partition: 0, state: 'STOPPED' }, { topic: 'b', partition: 0, state: 'STOPPED' }], { named: false, mirror: 'm' })
    expect(plan.ok && plan.apply.length).toBe(2)
  })
})

describe('planStart', () => {
  const partitions: PartitionStateRef[] = [
    { topic: 'orders', partition: 0, state: 'MIRRORING' },
    { topic: 'orders', partition: 1, state: 'STOPPED' },
    { topic: 'payments', partition: 0, state: 'STOPPED' },
    { topic: 'logs', partition: 0, state: 'PAUSED' },
  ]

  it('refuses a named topic with a partition that is not STOPPED or UNKNOWN, naming it', () => {
    const plan = planStart({ mirror: 'm', named: ['orders', 'payments'], matched: [], partitions })
    expect(plan.ok).toBe(false)
    if (plan.ok) return
    expect(plan.refusal.partitions).toEqual([{ topic: 'orders', partition: 0, state: 'MIRRORING' }])
  })

  it('starts named topics new to the mirror or STOPPED', () => {
    const plan = planStart({ mirror: 'm', named: ['payments', 'fresh'], matched: [], partitions })
    expect(plan.ok && [...plan.topics]).toEqual(['payments', 'fresh'])
    expect(plan.ok && plan.apply.map((p) => `${p.topic}-${p.partition}`)).toEqual(['payments-0'])
  })

  it('starts matched topics where it may and skips the partitions it may not', () => {
    const plan = planStart({ mirror: 'm', named: [], matched: ['orders', 'logs', 'fresh'], partitions })
    expect(plan.ok).toBe(true)
    if (!plan.ok) return
    expect(plan.topics).toEqual(['orders', 'fresh'])
    expect(plan.apply.map((p) => `${p.topic}-${p.partition}`)).toEqual(['orders-1'])
    expect(plan.skipped).toEqual([
      { topic: 'orders', partition: 0, state: 'MIRRORING' },
      { topic: 'logs', partition: 0, state: 'PAUSED' },
    ])
  })

  it('refuses patterns whose every match is busy, and accepts patterns that match nothing yet', () => {
    const busy = planStart({ mirror: 'm', named: [], matched: ['logs'], partitions })
    expect(busy.ok).toBe(false)
    if (!busy.ok) expect(busy.refusal.partitions).toEqual([{ topic: 'logs', partition: 0, state: 'PAUSED' }])
    expect(planStart({ mirror: 'm', named: [], matched: [], partitions })).toEqual({ ok: true, topics: [], apply: [], skipped: [] })
  })
})
