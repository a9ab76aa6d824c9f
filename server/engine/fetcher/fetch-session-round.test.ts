import { afterEach, describe, expect, it } from 'vitest'
import type { FetchSession } from '@/server/cluster/ports'
import { createEngineHarness, type EngineHarness } from '../testing/harness'

/**
 * The fetch round over KIP-227 fetch sessions (fetch-session-round.ts), seen from the source: what each
 * round names and what the source answers, on the embedded cluster's real sessions.
 */

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

interface Call {
  named: number[]
  forgotten: number[]
  answered: number[]
}

/** A mirror of four partitions whose source sessions report every call. */
async function mirrorWithSessionLog(): Promise<{ h: EngineHarness; calls: Call[] }> {
  const h = (harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, fetchMaxWaitMs: 20 }))
  const source = h.cluster('a')
  await source.createTopic({ name: 't', partitions: 4, replicationFactor: 1 })
  await source.produce('t', { partition: 1, records: [{ value: 'before the mirror' }] })
  const calls: Call[] = []
  const open = source.openFetchSession.bind(source)
  source.openFetchSession = (): FetchSession => {
    const session = open()
    return {
      get isOpen() {
        return session.isOpen
      },
      close: () => session.close(),
      async fetch(changes, options) {
        const results = await session.fetch(changes, options)
        calls.push({ named: changes.partitions.map((p) => p.partition), forgotten: changes.forget.map((p) => p.partition), answered: results.map((r) => r.partition) })
        return results
      },
    }
  }
  await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
  for (let i = 0; i < 20 && !h.engine.partitions('m').every((partition) => partition.state === 'MIRRORING'); i++) await h.run(1)
  await h.run(3)
  return { h, calls }
}

describe('fetch rounds over fetch sessions', () => {
  it('names every partition once, then nothing while the mirror is quiet, and only what moved after an append', async () => {
    const { h, calls } = await mirrorWithSessionLog()
    expect(calls[0]).toMatchObject({ named: [0, 1, 2, 3], answered: [0, 1, 2, 3] })
    expect(h.engine.partitions('m').map((partition) => partition.offsetLag)).toEqual([0, 0, 0, 0])
    const quiet = calls.length
    await h.run(3)
    expect(calls.slice(quiet).every((call) => call.named.length === 0 && call.answered.length === 0)).toBe(true)

    await h.cluster('a').produce('t', { partition: 2, records: [{ value: 'a' }, { value: 'b' }] })
    const busy = calls.length
    await h.run(3)
    // The append is answered for partition 2 alone; the next round names it at its new position, then quiet again.
    expect(calls.slice(busy, busy + 3)).toEqual([
      { named: [], forgotten: [], answered: [2] },
      { named: [2], forgotten: [], answered: [2] },
      { named: [], forgotten: [], answered: [] },
    ])
    expect((await h.cluster('b').describePartition({ topic: 't', partition: 2 })).logEndOffset).toBe(2)
    expect(h.engine.partitions('m').every((partition) => partition.lastFetchAt === h.clock.now())).toBe(true)
  })

  it('forgets the partitions that leave the round and names them again when they come back', async () => {
    const { h, calls } = await mirrorWithSessionLog()
    await h.engine.pauseTopics('m', ['t'])
    for (let i = 0; i < 10 && !h.engine.partitions('m').every((partition) => partition.state === 'PAUSED'); i++) await h.run(1)
    await h.cluster('a').produce('t', { partition: 3, records: [{ value: 'while paused' }] })
    await h.engine.resumeTopics('m', ['t'])
    const resumed = calls.length
    for (let i = 0; i < 10 && (await h.cluster('b').describePartition({ topic: 't', partition: 3 })).logEndOffset < 1; i++) await h.run(1)
    expect((await h.cluster('b').describePartition({ topic: 't', partition: 3 })).logEndOffset).toBe(1)
    expect(calls.slice(resumed).some((call) => call.named.length === 4)).toBe(true)
  })
})

describe('a config change during a held fetch', () => {
  it('ends the held fetch, so what arrives next is fetched under the new throttle', async () => {
    const h = (harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, fetchMaxWaitMs: 5_000 }))
    await h.cluster('a').createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    for (let i = 0; i < 20 && h.engine.partitions('m')[0]?.state !== 'MIRRORING'; i++) await h.run(1)
    await h.run(2)
    // A round whose session fetch waits for data, as a running server's rounds do.
    const held = h.engine.tick()
    await new Promise((resolve) => setTimeout(resolve, 50))
    await h.engine.updateMirrorConfig('m', { 'mirror.replication.throttled.rate': 100 })
    await h.cluster('a').produce('t', { partition: 0, records: Array.from({ length: 200 }, (_, index) => ({ value: `value ${index}` })) })
    await held
    await h.engine.settle()
    await h.run(3)
    // The throttle counted the batch (far over 100 bytes), so it now holds the partition back.
    expect(h.engine.mirrorSummary('m')).toMatchObject({ throttled: true, throttledRate: 100 })
  })
})
