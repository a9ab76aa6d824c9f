import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EngineError } from './errors'
import { StoredOperation } from './operations/operation-store'
import { createEngineHarness, type EngineHarness } from './testing/harness'
import type { EngineEvent } from './types'

/** Operations through the engine, in process: what is on disk when, and how they end (issue #17). */

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

const REQUESTER = { actor: 'session:1a2b3c4d', role: 'operator' as const }

async function mirrorOfTwoPartitions(onStoppingAction?: () => void, onEvent?: (event: EngineEvent) => void): Promise<void> {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, onStoppingAction, onEvent })
  await harness.cluster('a').createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
  await harness.cluster('a').produce('t', { partition: 0, records: [{ value: 'x' }] })
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
  await harness.run(3)
}

function storedRecord(id: string): StoredOperation {
  return StoredOperation.parse(JSON.parse(readFileSync(path.join(harness.root, 'operations', `${id}.json`), 'utf8')))
}

describe('operations', () => {
  it('are on disk with plan, partitions, requester and time when the failover is accepted, and read the same after a restart', async () => {
    await mirrorOfTwoPartitions()
    const { operation } = await harness.engine.failover('m', { confirm: 'm', requestedBy: REQUESTER })
    expect(storedRecord(operation.id)).toMatchObject({
      id: operation.id,
      mirror: 'm',
      requestedBy: REQUESTER,
      startedAt: harness.clock.now(),
      plan: { mirror: 'm', partitions: [{ partition: 0, mirroredOffset: 1 }, { partition: 1, mirroredOffset: 0 }] },
      partitions: [{ partition: 0, acceptedStateEpoch: expect.any(Number) }, { partition: 1 }],
    })
    const finished = structuredClone(await harness.engine.awaitOperation(operation.id))
    expect(finished).toMatchObject({ status: 'succeeded', finishedAt: harness.clock.now() })
    expect(storedRecord(operation.id)).toMatchObject({ status: 'succeeded', partitions: [{ state: 'STOPPED', step: 'done' }, { state: 'STOPPED', step: 'done' }] })
    await harness.restart()
    expect(harness.engine.getOperation(operation.id)).toEqual(finished)
    expect(harness.engine.listOperations({ mirror: 'm' })).toEqual([finished])
  })

  it('say succeeded only once the destination takes writes: the last STOPPED partition has lifted its topic’s read-only flag', async () => {
    // A producer started the moment the operation says it finished, as an operator's (or the demo's) would be.
    // One stop fails and is retried, so the operation settles on that partition's STOPPED transition, not at the
    // end of its drive.
    let failures = 1
    let produced: Promise<unknown> | null = null
    const failOnce = () => {
      if (failures > 0) {
        failures -= 1
        throw new Error('injected: broker unavailable')
      }
    }
    await mirrorOfTwoPartitions(failOnce, (event) => {
      if (event.type === 'operation' && event.change === 'finished' && produced === null) {
        produced = harness.cluster('b').produce('t', { partition: 0, records: [{ value: 'first write on the new primary' }] }).then(
          () => 'written',
          (error: unknown) => String(error),
        )
      }
    })
    const { operation } = await harness.engine.failover('m', { confirm: 'm' })
    expect((await harness.engine.awaitOperation(operation.id)).status).toBe('running')
    await harness.run(5, 1_000)
    expect((await harness.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    expect(produced).not.toBeNull()
    expect(await produced).toBe('written')
  })

  it('keep running while a failed stop retries, refuse to restart their topics meanwhile, and finish when the retry stops it', async () => {
    let failures = 1
    await mirrorOfTwoPartitions(() => {
      if (failures > 0) {
        failures -= 1
        throw new Error('injected: broker unavailable')
      }
    })
    const { operation } = await harness.engine.failover('m', { confirm: 'm' })
    const afterDrive = await harness.engine.awaitOperation(operation.id)
    expect(afterDrive.status).toBe('running')
    expect(afterDrive.partitions.map((p) => p.state).sort()).toEqual(['FAILED', 'STOPPED'])
    await expect(harness.engine.startTopics('m', { topics: ['t'] })).rejects.toSatisfy(
      (error: unknown) => error instanceof EngineError && error.code === 'INVALID_MIRROR_STATE' && error.message.includes(operation.id),
    )
    await harness.run(5, 1_000)
    const finished = await harness.engine.awaitOperation(operation.id)
    expect(finished).toMatchObject({ status: 'succeeded', partitions: [{ state: 'STOPPED', error: null }, { state: 'STOPPED', error: null }] })
    expect(storedRecord(operation.id).status).toBe('succeeded')
    expect(harness.engine.listOperations({ status: 'running' })).toEqual([])
    await harness.engine.startTopics('m', { topics: ['t'] })
    await harness.run(3)
    expect(harness.engine.getOperation(operation.id).partitions.map((p) => p.state)).toEqual(['STOPPED', 'STOPPED'])
  })

  it('resume after a restart, telling listeners, and finish there', async () => {
    let failures = 1
    const changes: string[] = []
    await mirrorOfTwoPartitions(
      () => {
        if (failures > 0) {
          failures -= 1
          throw new Error('injected: broker unavailable')
        }
      },
      (event) => {
        if (event.type === 'operation') changes.push(`${event.operation.id} ${event.change} ${event.operation.status}`)
      },
    )
    const { operation } = await harness.engine.failover('m', { confirm: 'm', requestedBy: REQUESTER })
    expect((await harness.engine.awaitOperation(operation.id)).status).toBe('running')
    changes.length = 0
    await harness.restart()
    expect(changes[0]).toBe(`${operation.id} resumed running`)
    expect(harness.engine.listOperations({ status: 'running' }).map((o) => [o.id, o.resumedAt])).toEqual([[operation.id, [harness.clock.now()]]])
    await harness.run(5, 1_000)
    expect(await harness.engine.awaitOperation(operation.id)).toMatchObject({ status: 'succeeded', requestedBy: REQUESTER, resumedAt: [expect.any(Number)] })
    expect(changes.at(-1)).toBe(`${operation.id} finished succeeded`)
  })
})
