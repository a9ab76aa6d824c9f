import { describe, expect, it } from 'vitest'
import { Operation, OperationEvent } from '@/lib/api/operations'
import { applyOperationEvent } from '@/lib/ui/operation-event'
import { OperationEventPayloads } from './events-operation-delta'

function operation(steps: Array<Operation['partitions'][number]['step']>, status: Operation['status'] = 'running'): Operation {
  return {
    id: 'op-1',
    kind: 'failover',
    mirror: 'm',
    status,
    startedAt: 1_000,
    finishedAt: status === 'running' ? null : 2_000,
    requestedBy: { actor: 'operator', role: 'operator' },
    resumedAt: [],
    partitions: steps.map((step, index) => ({ topic: 't', partition: index, step, state: step === 'done' ? 'STOPPED' : 'STOPPING', error: null, finishedAt: step === 'done' ? 1_500 : null })),
  }
}

describe('operation event payloads', () => {
  it('sends every partition when accepted, only the changed ones in progress, every one when finished', () => {
    const payloads = new OperationEventPayloads()
    const accepted = payloads.payload(operation(['removeFetcher', 'removeFetcher', 'removeFetcher']), 'accepted')
    expect(accepted.partial).toBeUndefined()
    expect(accepted.partitions).toHaveLength(3)

    const progress = payloads.payload(operation(['bumpEpoch', 'removeFetcher', 'done']), 'progress')
    expect(progress.partial).toBe(true)
    expect(progress.partitions.map((entry) => [entry.partition, entry.step])).toEqual([
      [0, 'bumpEpoch'],
      [2, 'done'],
    ])
    expect(OperationEvent.parse(progress)).toEqual(progress)

    const unchanged = payloads.payload(operation(['bumpEpoch', 'removeFetcher', 'done']), 'progress')
    expect(unchanged.partitions).toEqual([])

    const finished = payloads.payload(operation(['done', 'done', 'done'], 'succeeded'), 'finished')
    expect(finished.partial).toBeUndefined()
    expect(finished.partitions).toHaveLength(3)
  })

  it('sends every partition in the first progress event of an operation it has not seen (a restarted server)', () => {
    const progress = new OperationEventPayloads().payload(operation(['bumpEpoch', 'done']), 'progress')
    expect(progress.partial).toBeUndefined()
    expect(progress.partitions).toHaveLength(2)
  })

  it('patched in order, the deltas give a tab the same operation as the full events would', () => {
    const payloads = new OperationEventPayloads()
    const timeline: Array<Array<Operation['partitions'][number]['step']>> = [
      ['removeFetcher', 'removeFetcher', 'removeFetcher', 'removeFetcher'],
      ['persistPosition', 'removeFetcher', 'bumpEpoch', 'removeFetcher'],
      ['abortTransactions', 'persistPosition', 'bumpEpoch', 'done'],
      ['done', 'pidReset', 'done', 'done'],
    ]
    const held: { value: Operation | undefined } = { value: { ...operation(timeline[0]!), plan: { mirror: 'm', gates: [], partitions: [] } } }
    timeline.forEach((steps, index) => {
      const event = payloads.payload(operation(steps), index === 0 ? 'accepted' : 'progress')
      held.value = applyOperationEvent(held.value, event)
      expect(held.value?.partitions).toEqual(operation(steps).partitions)
      // The plan (GET /operations/{id} only) survives the events, which never carry it.
      expect(held.value?.plan).toEqual({ mirror: 'm', gates: [], partitions: [] })
    })
  })

  it('a partial event on nothing held, another operation or an unknown partition asks for a refetch', () => {
    const payloads = new OperationEventPayloads()
    payloads.payload(operation(['removeFetcher', 'removeFetcher']), 'accepted')
    const delta = payloads.payload(operation(['done', 'removeFetcher']), 'progress')
    expect(applyOperationEvent(undefined, delta)).toBeUndefined()
    expect(applyOperationEvent({ ...operation(['removeFetcher']), id: 'op-2' }, delta)).toBeUndefined()
    expect(applyOperationEvent({ ...operation(['removeFetcher']), partitions: [{ ...operation(['removeFetcher']).partitions[0]!, partition: 9 }] }, delta)).toBeUndefined()
  })
})
