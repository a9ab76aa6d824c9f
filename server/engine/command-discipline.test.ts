/**
 * The engine keeps its own command discipline (commands/command-queue.ts, operations/operation-tracker.ts),
 * so every caller has it, not only the HTTP API: one command of a mirror at a time with its state-version
 * precondition checked first, one failover being started per mirror, one running operation per partition,
 * and the mirror's other commands held until an operation has run.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ClusterError } from '@/server/cluster/errors'
import { createFakeEngine, type FakeEngine } from './testing/fake-engine'

let fake: FakeEngine
afterEach(async () => {
  for (const method of ['appendMirrorPidReset'] as const) fake?.host('b').heal(method)
  await fake?.engine.close()
})

async function mirroring(topics: Record<string, number>): Promise<void> {
  fake = await createFakeEngine(['a', 'b'])
  for (const [topic, partitions] of Object.entries(topics)) {
    fake.source('a').createTopic(topic, partitions)
    for (let partition = 0; partition < partitions; partition++) fake.source('a').produce({ topic, partition }, ['1', '2'])
  }
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: Object.keys(topics) })
  await fake.engine.settle()
  for (let i = 0; i < 3; i++) await fake.step(1_000)
  expect(new Set(fake.engine.partitions('m').map((partition) => partition.state))).toEqual(new Set(['MIRRORING']))
}

const statesOf = (topic: string) => fake.engine.partitions('m', { topic }).map((partition) => partition.state)

describe('the engine’s command discipline, for every caller', () => {
  it('refuses a second failover of a mirror while the first is being started, without the HTTP layer', async () => {
    await mirroring({ orders: 2 })
    const first = fake.engine.failover('m', { confirm: 'm' })
    await expect(fake.engine.failover('m', { confirm: 'm' })).rejects.toMatchObject({ code: 'CONFLICT', message: 'a failover of mirror m is being started right now' })
    const { operation } = await first
    await fake.engine.awaitOperation(operation.id)
    expect(statesOf('orders')).toEqual(['STOPPED', 'STOPPED'])
  })

  it('refuses a failover over partitions a running operation holds, naming it; takes the mirror’s other commands in order', async () => {
    await mirroring({ orders: 2, payments: 1 })
    // The stop's last step fails (retryably) until healed: the operation stays running, its partitions retrying STOPPING.
    fake.host('b').failUntilHealed('appendMirrorPidReset', new ClusterError('NOT_LEADER_OR_FOLLOWER', 'the leader moved'))
    const { operation } = await fake.engine.failover('m', { topics: ['orders'], confirm: 'm' })
    await fake.engine.settle()
    expect(fake.engine.getOperation(operation.id).status).toBe('running')
    expect(fake.engine.runningOperation('m')?.id).toBe(operation.id)
    expect(fake.engine.runningOperation('m', ['payments'])).toBeNull()

    await expect(fake.engine.failover('m', { topics: ['orders'], confirm: 'm' })).rejects.toMatchObject({ code: 'CONFLICT', details: { operation: operation.id } })
    await expect(fake.engine.failover('m', { confirm: 'm' })).rejects.toMatchObject({ code: 'CONFLICT', details: { operation: operation.id } })

    // Another topic's failover is no conflict; a pause after it runs once its stops have all been sent, in arrival order.
    const settled: string[] = []
    const otherFailover = fake.engine.failover('m', { topics: ['payments'], confirm: 'm' }).then((result) => (settled.push('failover payments'), result))
    const pause = fake.engine.pauseTopics('m', ['payments']).then(
      () => settled.push('pause'),
      (error: { code: string }) => settled.push(`pause refused: ${error.code}`),
    )
    fake.host('b').heal('appendMirrorPidReset')
    const second = await otherFailover
    await fake.engine.awaitOperation(second.operation.id)
    await pause
    expect(settled).toEqual(['failover payments', 'pause refused: INVALID_MIRROR_STATE'])
    expect(statesOf('payments')).toEqual(['STOPPED'])

    expect(fake.engine.getOperation(operation.id).status).toBe('running')
    for (let i = 0; i < 10 && fake.engine.getOperation(operation.id).status === 'running'; i++) await fake.step(2_000)
    expect(fake.engine.getOperation(operation.id).status).toBe('succeeded')
    expect(fake.engine.runningOperation('m')).toBeNull()
    // Held no more: a failover of the same partitions is refused only by the stop's own preconditions now.
    await expect(fake.engine.failover('m', { topics: ['orders'], confirm: 'm' })).rejects.toMatchObject({ code: 'INVALID_MIRROR_STATE' })
  })

  it('takes the state-version precondition as a command argument, and a stale one changes nothing', async () => {
    await mirroring({ orders: 1 })
    const read = fake.engine.stateVersion('m')
    await fake.engine.pauseTopics('m', undefined, { stateVersion: { anyOf: [read], asSent: `"${read}"` } })
    expect(statesOf('orders')).toEqual(['PAUSED'])
    await expect(fake.engine.resumeTopics('m', undefined, { stateVersion: { anyOf: [read], asSent: `"${read}"` } })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      details: { stateVersion: fake.engine.stateVersion('m') },
    })
    await expect(fake.engine.failoverPlan('m', undefined, { stateVersion: { anyOf: [read], asSent: `"${read}"` } })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' })
    await expect(fake.engine.failover('m', { confirm: 'm' }, { stateVersion: { anyOf: [read], asSent: `"${read}"` } })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' })
    expect(statesOf('orders')).toEqual(['PAUSED'])
    expect(fake.engine.listOperations()).toEqual([])
  })
})
