import { afterEach, describe, expect, it, vi } from 'vitest'
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine'

/**
 * What the STOPPING sequence (stopping-sequence.ts) reads from and writes to the destination, counted at the port
 * fakes: the batching and the observation reuse that let a failover of 10,000 partitions write three records per
 * partition instead of seven, and read each log once instead of six times (KIP-1279.md §4.1, issue #18's scale
 * work). A failover that resumes at pidReset searches for its reset record; one that did not, never does. And at the
 * source: the removeFetcher step ends a fetch held there (a long poll) instead of leaving the round to wait it out.
 */
let fake: FakeEngine
afterEach(async () => fake?.engine.close())

const TP = { topic: 'orders', partition: 0 }
/** Event-loop turns to wait for a state that takes a few: the engine yields on a real-time budget, so more under load. */
const TURNS = 500

async function mirroring(): Promise<FakeEngine> {
  fake = await createFakeEngine(['a', 'b'])
  fake.source('a').createTopic('orders', 1)
  fake.source('a').produce(TP, ['1', '2'])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
  for (let i = 0; i < 3; i++) await fake.step()
  expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', offsetLag: 0 })
  return fake
}

/** The destination calls made while the partition is STOPPING, by method; its __mirror_state records, by step. */
function countWhileStopping(): { reads: Record<string, number>; records: string[] } {
  const host = fake.host('b')
  const reads: Record<string, number> = {}
  const records: string[] = []
  const stopping = () => fake.engine.partitions('m')[0]?.state === 'STOPPING'
  for (const method of ['describePartition', 'latestEpoch', 'openTransactions', 'findControlRecord'] as const) {
    const original = host[method].bind(host) as (...args: unknown[]) => Promise<unknown>
    vi.spyOn(host, method).mockImplementation((async (...args: unknown[]) => {
      if (stopping()) reads[method] = (reads[method] ?? 0) + 1
      return original(...args)
    }) as never)
  }
  const append = host.appendMirrorState.bind(host)
  vi.spyOn(host, 'appendMirrorState').mockImplementation(async (entries) => {
    for (const entry of entries) {
      if (!entry.key.startsWith('partition/m/') || entry.value === null) continue
      const value = JSON.parse(entry.value) as { state: string; stopping?: { step: string } | null }
      records.push(value.state === 'STOPPING' ? `STOPPING at ${value.stopping?.step}` : value.state)
    }
    return append(entries)
  })
  return { reads, records }
}

describe('the STOPPING sequence at the destination (#24)', () => {
  it('a usual partition: three records (STOPPING, the steps before the reset, STOPPED) and one observation of the log', async () => {
    await mirroring()
    const counted = countWhileStopping()
    const { operation } = await fake.engine.failover('m', { confirm: 'm' })
    expect((await fake.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    expect(counted.records).toEqual(['STOPPING at removeFetcher', 'STOPPING at pidReset', 'STOPPED'])
    // One observation (describe, latest epoch, open transactions) serves the steps up to pidReset; done describes once more.
    expect(counted.reads).toEqual({ describePartition: 2, latestEpoch: 1, openTransactions: 1 })
  })

  it('resumed at pidReset after a failure there: one search for its reset record, from the last mirrored offset, and no second reset', async () => {
    let failAfterReset = true
    fake = await createFakeEngine(['a', 'b'], {
      onStoppingAction: (phase, step) => {
        if (phase === 'afterAction' && step === 'pidReset' && failAfterReset) {
          failAfterReset = false
          throw new Error('injected failure after the reset record')
        }
      },
    })
    fake.source('a').createTopic('orders', 1)
    fake.source('a').produce(TP, ['1', '2'])
    await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    for (let i = 0; i < 3; i++) await fake.step()
    const searches = vi.spyOn(fake.host('b'), 'findControlRecord')
    const { operation } = await fake.engine.failover('m', { confirm: 'm' })
    await fake.engine.settle()
    expect(fake.engine.partitions('m')[0]).toMatchObject({ state: 'FAILED', previousState: 'STOPPING' })
    expect(searches).not.toHaveBeenCalled()
    for (let i = 0; i < 5 && fake.engine.partitions('m')[0]!.state !== 'STOPPED'; i++) await fake.step(1_000)
    expect((await fake.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    expect(searches.mock.calls).toEqual([[TP, 'MIRROR_PID_RESET', 2]])
    const log = fake.host('b').state.log(TP)
    expect(await fake.host('b').findControlRecord(TP, 'MIRROR_PID_RESET', 3)).toBeNull()
    expect(log.logEndOffset).toBe(3)
  })
  it('lets go of a fetch the source holds (a long poll) at its removeFetcher step: the round ends with the failover, not at the wait bound', async () => {
    await mirroring()
    // The source holds every fetch until the engine lets go of it (the signal), as a broker holds one for fetch.max.wait.ms.
    const fetch = fake.source('a').fetch.bind(fake.source('a'))
    let holds = 0
    const timeUp = new AbortController()
    vi.spyOn(fake.source('a'), 'fetch').mockImplementation(async (partitions, options) => {
      holds++
      await new Promise<void>((resolve) => {
        for (const signal of [options.signal, timeUp.signal]) signal?.addEventListener('abort', () => resolve(), { once: true })
      })
      return fetch(partitions, { ...options, signal: undefined })
    })
    let roundEnded = false
    const round = fake.engine.tick().then(() => (roundEnded = true))
    for (let i = 0; i < TURNS && holds === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1))
    expect(holds).toBe(1)

    const { operation } = await fake.engine.failover('m', { confirm: 'm' })
    expect((await fake.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    for (let i = 0; i < TURNS && !roundEnded; i++) await new Promise((resolve) => setTimeout(resolve, 1))
    const endedWithTheFailover = roundEnded
    timeUp.abort()
    await round
    expect(endedWithTheFailover).toBe(true)
  })
})
