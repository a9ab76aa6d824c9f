import { describe, expect, it } from 'vitest'
import { COMMAND_PRECONDITIONS, planCommand, planStart, type PartitionStateRef } from './preconditions'
import type { MirrorPartitionState } from './states'

// The refusals' messages are what an operator reads in the INVALID_MIRROR_STATE answer (API.md): pinned in full.

const of = (states: MirrorPartitionState[], topic = 't'): PartitionStateRef[] => states.map((state, partition) => ({ topic, partition, state }))

function refusal(plan: ReturnType<typeof planCommand>) {
  if (plan.ok) throw new Error('expected a refusal')
  return plan.refusal
}

describe('command refusal messages (#39)', () => {
  it('a named command says it needs every named partition in the allowed states, and which are not', () => {
    expect(refusal(planCommand('pause', of(['MIRRORING', 'PAUSED']), { named: true, mirror: 'm' })).message).toBe('pause needs every named partition in MIRRORING or FAILED; t-1 is PAUSED')
  })

  it('a delete needs every partition (named or not) STOPPED', () => {
    const { message, partitions } = refusal(planCommand('delete', of(['STOPPED', 'MIRRORING']), { named: false, mirror: 'm' }))
    expect(message).toBe('delete needs every partition in STOPPED; t-1 is MIRRORING')
    expect(partitions).toEqual([{ topic: 't', partition: 1, state: 'MIRRORING' }])
  })

  it('a command on all partitions with none in the allowed states lists them; one on none says the mirror has none', () => {
    const nothing = refusal(planCommand('resume', of(['MIRRORING', 'FAILED']), { named: false, mirror: 'm' }))
    expect(nothing.message).toBe('no partition of mirror m is in PAUSED; t-0 is MIRRORING, t-1 is FAILED')
    expect(nothing.partitions).toHaveLength(2)
    expect(refusal(planCommand('pause', [], { named: false, mirror: 'm' })).message).toBe('mirror m has no partitions to pause')
    // Already done partitions (a stop of STOPPED ones) are what the refusal lists.
    const stopped = refusal(planCommand('stop', of(['STOPPED']), { named: false, mirror: 'm' }))
    expect(stopped.message).toBe(`no partition of mirror m is in ${COMMAND_PRECONDITIONS.stop.join(' or ')}; t-0 is STOPPED`)
  })

  it('names at most five partitions and counts the rest', () => {
    const six = refusal(planCommand('recover', of(['MIRRORING', 'MIRRORING', 'MIRRORING', 'MIRRORING', 'MIRRORING', 'MIRRORING']), { named: true, mirror: 'm' }))
    expect(six.message).toBe('recover needs every named partition in FAILED; t-0 is MIRRORING, t-1 is MIRRORING, t-2 is MIRRORING, t-3 is MIRRORING, t-4 is MIRRORING and 1 more')
    const five = refusal(planCommand('recover', of(['MIRRORING', 'MIRRORING', 'MIRRORING', 'MIRRORING', 'MIRRORING']), { named: true, mirror: 'm' }))
    expect(five.message).toBe('recover needs every named partition in FAILED; t-0 is MIRRORING, t-1 is MIRRORING, t-2 is MIRRORING, t-3 is MIRRORING, t-4 is MIRRORING')
  })

  it('a start whose matched topics cannot start at all is refused with the partitions in the way', () => {
    const plan = planStart({ mirror: 'm', named: [], matched: ['t'], partitions: of(['MIRRORING']) })
    expect(plan).toEqual({
      ok: false,
      refusal: {
        command: 'start',
        message: `start needs partitions in ${COMMAND_PRECONDITIONS.start.join(' or ')}; t-0 is MIRRORING`,
        partitions: [{ topic: 't', partition: 0, state: 'MIRRORING' }],
        allowedStates: COMMAND_PRECONDITIONS.start,
      },
    })
  })

  it('a topic both named and matched is started once, as a named one', () => {
    const plan = planStart({ mirror: 'm', named: ['t'], matched: ['t', 'u'], partitions: [...of(['STOPPED']), ...of(['UNKNOWN'], 'u')] })
    expect(plan).toMatchObject({ ok: true, topics: ['t', 'u'] })
  })
})
