import { describe, expect, it } from 'vitest'
import { decideGates, gateTitle, isForceable } from './gate-forcing'

const gates = [
  { name: 'partitions-selected', ok: true, severity: 'blocking' as const },
  { name: 'source-reachable', ok: true, severity: 'warning' as const },
  { name: 'lag-threshold', ok: false, severity: 'warning' as const },
  { name: 'partitions-failed', ok: false, severity: 'warning' as const },
]

describe('decideGates', () => {
  it('stops a failover on every failing warning gate that was not forced', () => {
    const decision = decideGates(gates, ['lag-threshold'])
    expect(decision.canProceed).toBe(false)
    expect(decision.unforced.map((gate) => gate.name)).toEqual(['partitions-failed'])
    expect(decision.forced.map((gate) => gate.name)).toEqual(['lag-threshold'])
  })

  it('lets a failover proceed once every failing warning gate is forced', () => {
    const decision = decideGates(gates, ['partitions-failed', 'lag-threshold'])
    expect(decision.canProceed).toBe(true)
    expect(decision.forced.map((gate) => gate.name)).toEqual(['lag-threshold', 'partitions-failed'])
  })

  it('never lets forcing pass a failing blocking gate', () => {
    const blocked = [{ name: 'partitions-stoppable', ok: false, severity: 'blocking' as const }]
    const decision = decideGates(blocked, ['partitions-stoppable'])
    expect(decision.canProceed).toBe(false)
    expect(decision.blocking.map((gate) => gate.name)).toEqual(['partitions-stoppable'])
    expect(decision.forced).toEqual([])
    expect(isForceable(blocked[0]!)).toBe(false)
  })

  it('keeps the older reading (warnings only inform) when no forced list is given', () => {
    const decision = decideGates(gates, undefined)
    expect(decision.canProceed).toBe(true)
    expect(decision.unforced).toEqual([])
  })

  it('does not count a forced gate that passes as forced', () => {
    expect(decideGates(gates, ['source-reachable', 'lag-threshold', 'partitions-failed']).forced.map((gate) => gate.name)).toEqual(['lag-threshold', 'partitions-failed'])
  })
})

describe('gateTitle', () => {
  it('reads a gate name as words', () => {
    expect(gateTitle('lag-threshold')).toBe('Lag threshold')
  })
})
