import { describe, expect, it } from 'vitest'
import type { Operation, OperationEvent } from '../api/operations'
import { applyOperationEvent, readOperation } from './operation-event'

function operation(status: Operation['status'], state: Operation['partitions'][number]['state']): Operation {
  return {
    id: 'op-1',
    kind: 'switchover',
    mirror: 'm',
    status,
    startedAt: 1_000,
    finishedAt: status === 'running' ? null : 2_000,
    requestedBy: null,
    resumedAt: [],
    partitions: [{ topic: 't', partition: 0, step: state === 'STOPPED' ? 'done' : 'removeFetcher', state, error: null, finishedAt: state === 'STOPPED' ? 1_500 : null }],
  }
}

const plan = { mirror: 'm' } as unknown as NonNullable<Operation['plan']>

describe('an operation held by a tab', () => {
  it('is not taken back to running by a read answered before the finished event', () => {
    const finished = operation('succeeded', 'STOPPED')
    const staleRead = { ...operation('running', 'MIRRORING'), plan }
    expect(readOperation(finished, staleRead)).toEqual({ ...finished, plan })
    expect(readOperation(finished, staleRead).status).toBe('succeeded')
  })

  it('takes every read that is not older: a first read, a later progress, the finish, another operation', () => {
    const running = operation('running', 'MIRRORING')
    const finished = operation('succeeded', 'STOPPED')
    expect(readOperation(undefined, running)).toBe(running)
    expect(readOperation(running, finished)).toBe(finished)
    expect(readOperation(running, running)).toBe(running)
    const other = { ...running, id: 'op-2' }
    expect(readOperation(finished, other)).toBe(other)
  })

  it('ignores a running event about an operation it holds finished, and applies the finish', () => {
    const finished = operation('succeeded', 'STOPPED')
    const { plan: _plan, ...running } = operation('running', 'MIRRORING')
    const progress: OperationEvent = { ...running, change: 'progress', partial: true }
    expect(applyOperationEvent(finished, progress)).toBe(finished)
    expect(applyOperationEvent(finished, { ...running, change: 'accepted' })).toBe(finished)
    const { plan: _none, ...done } = finished
    expect(applyOperationEvent(operation('running', 'MIRRORING'), { ...done, change: 'finished' })?.status).toBe('succeeded')
  })
})
