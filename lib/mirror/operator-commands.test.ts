import { describe, expect, it } from 'vitest'
import { buildStateGraph } from '../graph/state-graph'
import { createMirrorPartition } from './transition'
import { COMMAND_PRECONDITIONS, planCommand } from './preconditions'
import { leavingRules, MIRROR_PARTITION_STATES, OPERATOR_EVENTS, rulesFor, statesLeftBy } from './states'

/**
 * The operator's allow-lists, the transition table and the state graph say the same: a command applies in a
 * state exactly where the graph draws an edge out of it for the command's event (plus the re-runs the
 * preconditions name: a stop of STOPPING partitions), and nowhere the table would ignore the event.
 */
describe('operator commands agree with the transition table and the state graph', () => {
  const graph = buildStateGraph()
  const commands = Object.keys(OPERATOR_EVENTS) as Array<keyof typeof OPERATOR_EVENTS>

  for (const command of commands) {
    const event = OPERATOR_EVENTS[command]
    it(`${command}: allowed exactly where the graph has a ${event} edge leaving the state`, () => {
      for (const state of MIRROR_PARTITION_STATES) {
        const edgeOut = graph.edges.some((edge) => edge.from === state && edge.to !== state && edge.events.includes(event))
        const rerun = command === 'stop' && state === 'STOPPING'
        expect(COMMAND_PRECONDITIONS[command].includes(state), `${command} in ${state}`).toBe(edgeOut || rerun)
        expect(statesLeftBy(event).includes(state), `table: ${event} leaves ${state}`).toBe(edgeOut)
      }
    })

    it(`${command}: never allowed where the table has no rule for ${event}`, () => {
      for (const state of COMMAND_PRECONDITIONS[command]) expect(rulesFor(state, event).length, `${event} in ${state}`).toBeGreaterThan(0)
    })
  }

  it('pausing a FAILED partition is allowed by the table, and only when it failed while mirroring or pausing', () => {
    expect(leavingRules('FAILED', 'pauseRequested')).toEqual([{ to: 'PAUSING', when: 'isPauseSafeAfterFailure' }])
    expect(COMMAND_PRECONDITIONS.pause).toEqual(['MIRRORING', 'FAILED'])
    expect(graph.edges.some((edge) => edge.from === 'FAILED' && edge.to === 'PAUSING' && edge.events.includes('pauseRequested'))).toBe(true)
    const failedFrom = (previousState: 'MIRRORING' | 'PREPARING') => ({
      topic: 't',
      partition: 0,
      state: 'FAILED' as const,
      value: { ...createMirrorPartition(0), state: 'FAILED' as const, previousState },
    })
    const safe = planCommand('pause', [failedFrom('MIRRORING')], { named: true, mirror: 'm' })
    expect(safe.ok && safe.apply.length).toBe(1)
    // Resuming from PAUSED goes straight to MIRRORING, skipping an unfinished alignment: refused, by the guard.
    const unsafe = planCommand('pause', [failedFrom('PREPARING')], { named: true, mirror: 'm' })
    expect(unsafe.ok).toBe(false)
  })
})
