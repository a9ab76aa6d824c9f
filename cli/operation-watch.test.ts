import { describe, expect, it } from 'vitest'
import type { Operation } from '@/lib/api/operations'
import { ProgressPrinter } from './operation-watch'
import { memoryIo } from './testing/memory-io'

type Entry = Operation['partitions'][number]

function operation(partitions: Array<Pick<Entry, 'topic' | 'partition' | 'step' | 'state'> & Partial<Entry>>, status: Operation['status'] = 'running'): Operation {
  return {
    id: 'op-1',
    kind: 'failover',
    mirror: 'dr',
    status,
    startedAt: 1_764_400_000_000 - 1_500,
    finishedAt: status === 'running' ? null : 1_764_400_000_000,
    requestedBy: null,
    resumedAt: [],
    partitions: partitions.map((entry) => ({ error: null, finishedAt: null, ...entry })),
  }
}

function printer(bar = false) {
  const io = memoryIo({ tty: bar })
  let text = ''
  return { io, print: new ProgressPrinter(io, (chunk) => void (text += chunk), { color: false }, bar), text: () => text }
}

describe('following a failover: every STOPPING step', () => {
  it('prints each step a partition completed, the ones between two updates too, then its final state, once', () => {
    const { print, text } = printer()
    print.update(operation([{ topic: 'orders', partition: 0, step: 'removeFetcher', state: 'STOPPING' }]))
    print.update(operation([{ topic: 'orders', partition: 0, step: 'bumpEpoch', state: 'STOPPING' }]))
    print.update(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED' }], 'succeeded'))
    print.update(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED' }], 'succeeded'))
    print.finish(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED' }], 'succeeded'))
    expect(text()).toBe(
      [
        '07:06:40  orders-0  removeFetcher ✓',
        '07:06:40  orders-0  persistPosition ✓',
        '07:06:40  orders-0  bumpEpoch ✓',
        '07:06:40  orders-0  abortTransactions ✓',
        '07:06:40  orders-0  pidReset ✓',
        '07:06:40  orders-0  STOPPED',
        'Operation op-1 succeeded: 1/1 partitions STOPPED in 1.5 s',
        '',
      ].join('\n'),
    )
  })

  it('prints the final state once the partition has left STOPPING, not the moment its step reads done', () => {
    const { print, text } = printer()
    print.update(operation([{ topic: 'orders', partition: 0, step: 'pidReset', state: 'STOPPING' }]))
    print.update(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPING' }]))
    expect(text()).not.toMatch(/orders-0 {2}STOPP/)
    print.update(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED' }], 'succeeded'))
    print.finish(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED' }], 'succeeded'))
    expect(text().split('\n').filter((line) => /orders-0 {2}(STOPPED|STOPPING)$/.test(line))).toEqual(['07:06:40  orders-0  STOPPED'])
  })

  it('prints a partition\'s error once, and a failed operation as failed', () => {
    const { print, text } = printer()
    const failing = operation([{ topic: 'orders', partition: 0, step: 'abortTransactions', state: 'STOPPING', error: 'coordinator not available' }])
    print.update(failing)
    print.update(failing)
    print.finish(operation([{ topic: 'orders', partition: 0, step: 'abortTransactions', state: 'FAILED', error: 'coordinator not available' }], 'failed'))
    expect(text().match(/error at abortTransactions: coordinator not available/g)).toHaveLength(1)
    expect(text()).toContain('Operation op-1 failed after 1.5 s: 0/1 partitions STOPPED')
  })

  it('prints a rolled-back switchover as rolled back with its reason, not as failed nor still running', () => {
    const { print, text } = printer()
    const rolledBack = { ...operation([{ topic: 'orders', partition: 0, step: 'removeFetcher', state: 'MIRRORING' }], 'rolledBack'), kind: 'switchover' as const }
    print.finish({ ...rolledBack, switchover: { reason: 'cancelled by session:1a2b3c4d' } as NonNullable<Operation['switchover']> })
    expect(text()).toBe('Operation op-1 rolled back after 1.5 s: cancelled by session:1a2b3c4d; nothing lost, the mirror mirrors as before\n')
  })

  it('counts steps instead of naming partitions beyond twenty, a line per step as it completes', () => {
    const { print, text } = printer()
    const partitions = (step: Entry['step'], count: number) => Array.from({ length: 30 }, (_, index) => ({ topic: 't', partition: index, step: index < count ? step : 'removeFetcher', state: 'STOPPING' as const }))
    print.update(operation(partitions('persistPosition', 10)))
    print.update(operation(partitions('done', 30), 'succeeded'))
    expect(text()).not.toContain('t-0')
    expect(text()).toContain('removeFetcher … 10/30 partitions')
    for (const step of ['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset']) expect(text()).toContain(`${step} ✓ 30/30 partitions`)
  })

  it('draws a progress bar on a terminal, cleared before each line and at the end', () => {
    const { print, text } = printer(true)
    print.update(operation([{ topic: 'orders', partition: 0, step: 'bumpEpoch', state: 'STOPPING' }, { topic: 'orders', partition: 1, step: 'done', state: 'STOPPED' }]))
    expect(text()).toMatch(/\[█+░+\] 1\/2 STOPPED · next: bumpEpoch · 1\.5 s$/)
    print.finish(operation([{ topic: 'orders', partition: 0, step: 'done', state: 'STOPPED' }, { topic: 'orders', partition: 1, step: 'done', state: 'STOPPED' }], 'succeeded'))
    expect(text()).toMatch(/\r\u001b\[2KOperation op-1 succeeded/)
  })
})

describe('following a planned switchover: its phases before the STOPPING steps', () => {
  const T = 1_764_400_000_000
  type Switchover = NonNullable<Operation['switchover']>
  const base: Switchover = {
    phase: 'fenceSource',
    fenceMethod: 'broker',
    drainTimeoutMs: 120_000,
    transactionGraceMs: 30_000,
    fencedAt: null,
    drainStartedAt: null,
    drainedAt: null,
    stoppedAt: null,
    rolledBackAt: null,
    reason: null,
    transactionsAbortedAtSource: 0,
    groupsActiveOnSource: [],
    drain: null,
    recordsLost: null,
  }
  const planned = (switchover: Partial<Switchover>, step: Entry['step'] = 'removeFetcher', status: Operation['status'] = 'running'): Operation => ({
    ...operation([{ topic: 'orders', partition: 0, step, state: step === 'done' ? 'STOPPED' : 'MIRRORING' }], status),
    kind: 'switchover',
    type: 'planned',
    switchover: { ...base, ...switchover },
  })
  const drain = (partitionsBehind: number, recordsBehind: number) => ({ partitions: 1, partitionsBehind, recordsBehind, openTransactions: 0, at: T })

  it('prints fencing, the fence, each change of the drain, drained, stopping, then the records lost, each once', () => {
    const { print, text } = printer()
    print.update(planned({}))
    print.update(planned({ fencedAt: T - 1_400 }))
    print.update(planned({ phase: 'drain', fencedAt: T - 1_400, drainStartedAt: T - 1_300, drain: drain(1, 3) }))
    print.update(planned({ phase: 'drain', fencedAt: T - 1_400, drainStartedAt: T - 1_300, drain: drain(1, 3) }))
    print.update(planned({ phase: 'drain', fencedAt: T - 1_400, drainStartedAt: T - 1_300, drain: drain(0, 0) }))
    const stopped = { phase: 'done' as const, fencedAt: T - 1_400, drainStartedAt: T - 1_300, drainedAt: T - 1_000, stoppedAt: T, drain: drain(0, 0), recordsLost: { total: 0, partitions: [] } }
    print.update(planned({ ...stopped, phase: 'stopping', recordsLost: null, stoppedAt: null }, 'bumpEpoch'))
    print.update(planned(stopped, 'done', 'succeeded'))
    print.finish(planned(stopped, 'done', 'succeeded'))
    const lines = text().split('\n')
    expect(lines.filter((line) => line.includes('switchover')).map((line) => line.slice(10))).toEqual([
      'switchover  ◔ Fencing the source (the broker refuses writes (TOPIC_WRITE_FENCED))',
      'switchover  source fenced ✓',
      'switchover  ◔ Draining',
      'switchover  drain: 1 partition behind by 3 records (rolls back after 2 min)',
      "switchover  drain: destination caught up; checking once more (rolls back after 2 min)",
      "switchover  drained ✓ in 300 ms: every destination log end equals the source's",
      'switchover  ◔ Stopping',
      'switchover  ✓ Switched over',
      'switchover  records lost: 0 (measured at STOPPED)',
    ])
    expect(text()).toContain('07:06:40  orders-0  STOPPED')
    expect(lines.at(-2)).toBe('Operation op-1 succeeded: 1/1 partitions STOPPED in 1.5 s; records lost: 0, writes refused on the source for 1.4 s')
  })

  it('says every phase, in order, when the first read finds the switchover already done', () => {
    const { print, text } = printer()
    const stopped = { phase: 'done' as const, fencedAt: T - 1_400, drainStartedAt: T - 1_300, drainedAt: T - 1_000, stoppedAt: T, drain: drain(0, 0), recordsLost: { total: 0, partitions: [] } }
    print.update(planned(stopped, 'done', 'succeeded'))
    expect(text().split('\n').map((line) => line.slice(10).replace(/ \(.*$|:.*$/, ''))).toEqual([
      'switchover  ◔ Fencing the source',
      'switchover  source fenced ✓',
      'switchover  ◔ Draining',
      'switchover  drained ✓ in 300 ms',
      'switchover  ◔ Stopping',
      'orders-0  removeFetcher ✓',
      'orders-0  persistPosition ✓',
      'orders-0  bumpEpoch ✓',
      'orders-0  abortTransactions ✓',
      'orders-0  pidReset ✓',
      'orders-0  STOPPED',
      'switchover  ✓ Switched over',
      'switchover  records lost',
      '',
    ])
  })

  it('prints a rollback with its reason, and the outcome as rolled back, nothing lost', () => {
    const { print, text } = printer()
    print.update(planned({ phase: 'drain', fencedAt: T - 1_400, drainStartedAt: T - 1_300, drain: drain(1, 3) }))
    const reason = 'cancelled by operator'
    print.update(planned({ phase: 'rollingBack', reason, fencedAt: T - 1_400, drainStartedAt: T - 1_300, drain: drain(1, 3) }))
    const rolledBack = planned({ phase: 'rolledBack', reason, fencedAt: T - 1_400, drainStartedAt: T - 1_300, rolledBackAt: T, drain: drain(1, 3) }, 'removeFetcher', 'failed')
    print.update(rolledBack)
    print.finish(rolledBack)
    expect(text()).toContain(`switchover  ↶ Rolling back: ${reason}\n`)
    expect(text()).toContain(`switchover  ↶ Rolled back: ${reason}; the source takes writes again and the mirror mirrors on, nothing lost\n`)
    expect(text()).toContain(`Operation op-1 rolled back after 1.5 s: rolled back (${reason}); nothing lost, writes refused on the source for 1.4 s\n`)
    expect(text()).not.toContain('failed')
  })
})
