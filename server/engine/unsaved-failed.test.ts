/**
 * The destination's `__mirror_state` does not answer (a Kafka destination's broker down, an embedded one's
 * storage failing: KAFKA_STORAGE_ERROR, the code the fake throws): a partition that fails meanwhile shows
 * FAILED with its reason and retries, marked not saved (`stateDurable: false`); commands on it are refused
 * with a code and change nothing; a restart resumes from the saved state; once the store answers, the FAILED
 * (or the recovery that supersedes it) is written, and nothing is lost or mirrored twice.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MirrorEngine } from './engine'
import { EngineError } from './errors'
import { createFakeEngine, type FakeEngine } from './testing/fake-engine'
import { createEngineHarness, type EngineHarness } from './testing/harness'
import type { EngineEvent } from './types'

const tp = { topic: 'orders', partition: 0 }

let fake: FakeEngine
let restarted: MirrorEngine | undefined
let harness: EngineHarness | undefined
afterEach(async () => {
  await restarted?.close()
  restarted = undefined
  await fake?.engine.close()
  await harness?.cleanup()
  harness = undefined
})

/** The partition record the destination's `__mirror_state` holds (what a restart resumes from). */
function storedPartition(): { state: string; stateEpoch: number; error: string | null; retryAttempt: number } {
  const [value] = [...fake.host('b').mirrorState].filter(([key]) => key.startsWith('partition/m/')).map(([, text]) => JSON.parse(text!) as never)
  return value!
}

/** What the engine logged, by message. */
const logged: string[] = []

async function mirroring(config: Record<string, number>): Promise<void> {
  logged.length = 0
  fake = await createFakeEngine(['a', 'b'], { log: (message) => logged.push(message) })
  fake.source('a').createTopic('orders', 1)
  fake.source('a').produce(tp, ['1', '2'])
  await fake.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config })
  await fake.engine.settle()
  for (let i = 0; i < 3; i++) await fake.step(1_000)
  expect(fake.engine.partitions('m')).toMatchObject([{ state: 'MIRRORING', destinationLogEndOffset: 2, stateDurable: true }])
}

async function refusal(action: Promise<unknown>): Promise<EngineError> {
  const error = await action.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(EngineError)
  return error as EngineError
}

describe('FAILED while the state store does not answer', () => {
  it('is shown with reason and retries, not saved; commands refused; a restart resumes the saved state; recovery is written', async () => {
    await mirroring({ 'mirror.failed.retry.initial.backoff.ms': 500, 'mirror.failed.retry.max.backoff.ms': 500, 'mirror.failed.retry.max.attempts': 1000 })
    const saved = storedPartition()
    expect(saved.state).toBe('MIRRORING')
    const events: EngineEvent[] = []
    fake.engine.subscribe((event) => events.push(event))

    fake.host('b').failUntilHealed('appendMirrorState')
    fake.source('a').failNextFetch(tp, 'LEADER_NOT_AVAILABLE')
    await fake.step(1_000)
    expect(fake.engine.partitions('m')).toMatchObject([{ state: 'FAILED', error: expect.stringMatching(/LEADER_NOT_AVAILABLE/), retryAttempt: 1, stateDurable: false }])
    expect(events).toContainEqual(expect.objectContaining({ type: 'partition', from: 'MIRRORING', to: 'FAILED', stateDurable: false }))
    expect(storedPartition()).toEqual(saved)

    // Each retry that cannot be recorded is one more failed attempt, shown with why; the record stays as it was.
    fake.source('a').produce(tp, ['3'])
    logged.length = 0
    for (let i = 0; i < 4; i++) await fake.step(1_000)
    // One pending write per partition, tried once a second, however many retries updated the failure meanwhile.
    expect(logged.filter((message) => message === 'state write failed; FAILED still not saved').length).toBeLessThanOrEqual(4)
    expect(logged).toContain('state write failed; retry not recorded')
    const [failed] = fake.engine.partitions('m')
    expect(failed).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/^state write: KAFKA_STORAGE_ERROR/), stateDurable: false, destinationLogEndOffset: 2 })
    expect(failed!.retryAttempt).toBeGreaterThan(1)
    expect(storedPartition()).toEqual(saved)

    // A stop (failover) or any other command is refused whole, with a code, and changes nothing.
    const stop = await refusal(fake.engine.failover('m', { confirm: 'm' }))
    expect(stop).toMatchObject({ code: 'INVALID_MIRROR_STATE', details: { command: 'stop', reason: 'stateNotDurable', partitions: [{ ...tp, state: 'FAILED', stateDurable: false }] } })
    expect((await refusal(fake.engine.pauseTopics('m'))).code).toBe('INVALID_MIRROR_STATE')
    expect(fake.engine.listOperations()).toEqual([])
    expect(fake.engine.partitions('m')).toMatchObject([{ state: 'FAILED', stateDurable: false }])

    // A restart meanwhile resumes from what was saved: nothing there depends on the FAILED.
    restarted = new MirrorEngine({
      clusters: { names: () => ['a', 'b'], get: (name) => ({ source: fake.source(name), host: fake.host(name) }) },
      now: () => fake.now(),
      random: () => 0.5,
    })
    await restarted.start()
    expect(restarted.partitions('m')).toMatchObject([{ state: 'MIRRORING', stateEpoch: saved.stateEpoch, stateDurable: true }])
    await restarted.close()
    restarted = undefined

    fake.host('b').heal('appendMirrorState')
    for (let i = 0; i < 3; i++) await fake.step(1_000)
    expect(fake.engine.partitions('m')).toMatchObject([{ state: 'MIRRORING', error: null, retryAttempt: 0, stateDurable: true, destinationLogEndOffset: 3 }])
    expect(storedPartition()).toMatchObject({ state: 'MIRRORING', error: null })
    expect(storedPartition().stateEpoch).toBeGreaterThan(saved.stateEpoch)
    // Nothing lost, nothing twice: the destination log is the source's, byte for byte.
    expect(fake.host('b').state.log(tp).logEndOffset).toBe(3)
    expect(fake.host('b').state.log(tp).read(0, 1 << 20)).toEqual(fake.source('a').state.log(tp).read(0, 1 << 20))
    await fake.engine.pauseTopics('m')
    await fake.step(1_000)
    expect(fake.engine.partitions('m')).toMatchObject([{ state: 'PAUSED', stateDurable: true }])
  })

  it('writes the FAILED itself once the store answers while its retry is still far off, and says it is saved', async () => {
    await mirroring({ 'mirror.failed.retry.initial.backoff.ms': 3_600_000, 'mirror.failed.retry.max.backoff.ms': 3_600_000 })
    const events: EngineEvent[] = []
    fake.engine.subscribe((event) => events.push(event))
    fake.host('b').failUntilHealed('appendMirrorState')
    fake.source('a').failNextFetch(tp, 'LEADER_NOT_AVAILABLE')
    await fake.step(1_000)
    await fake.step(1_000)
    expect(fake.engine.partitions('m')).toMatchObject([{ state: 'FAILED', retryAttempt: 1, stateDurable: false }])
    expect(storedPartition().state).toBe('MIRRORING')

    fake.host('b').heal('appendMirrorState')
    await fake.step(1_000)
    const [shown] = fake.engine.partitions('m')
    expect(shown).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/LEADER_NOT_AVAILABLE/), retryAttempt: 1, stateDurable: true })
    expect(storedPartition()).toMatchObject({ state: 'FAILED', stateEpoch: shown!.stateEpoch, error: shown!.error, retryAttempt: 1 })
    expect(events.filter((event) => event.type === 'partition').map((event) => event.type === 'partition' && [event.from, event.to, event.stateDurable])).toEqual([
      ['MIRRORING', 'FAILED', false],
      ['FAILED', 'FAILED', true],
    ])
    // Saved: the operator's recover is accepted again.
    await fake.engine.recoverTopics('m')
    await fake.step(1_000)
    expect(fake.engine.partitions('m')).toMatchObject([{ state: 'MIRRORING', stateDurable: true }])
  })

  it('holds for an embedded destination too: its __mirror_state unreachable (every broker stopped), then back', async () => {
    harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    const a = harness.cluster('a')
    const b = harness.cluster('b')
    await a.createTopic({ name: 'orders', partitions: 1, replicationFactor: 1 })
    await a.produce('orders', { partition: 0, records: [{ value: '1' }, { value: '2' }] })
    await harness.engine.createMirror({
      name: 'm',
      sourceCluster: 'a',
      destinationCluster: 'b',
      topics: ['orders'],
      config: { 'mirror.failed.retry.initial.backoff.ms': 500, 'mirror.failed.retry.max.backoff.ms': 500, 'mirror.failed.retry.max.attempts': 1000 },
    })
    await harness.run(5, 1_000)
    expect(harness.engine.partitions('m')).toMatchObject([{ state: 'MIRRORING', destinationLogEndOffset: 2, stateDurable: true }])

    await b.stopBroker(1)
    await a.produce('orders', { partition: 0, records: [{ value: '3' }] })
    await harness.run(5, 1_000)
    const [failed] = harness.engine.partitions('m')
    expect(failed).toMatchObject({ state: 'FAILED', error: expect.stringMatching(/stopped/), stateDurable: false })
    expect(failed!.retryAttempt).toBeGreaterThan(1)
    expect((await refusal(harness.engine.failover('m', { confirm: 'm' }))).code).toBe('INVALID_MIRROR_STATE')

    await b.startBroker(1)
    await harness.run(6, 1_000)
    expect(harness.engine.partitions('m')).toMatchObject([{ state: 'MIRRORING', stateDurable: true, destinationLogEndOffset: 3 }])
    const values = (await b.readRecords('orders', 0, { limit: 100 })).records.map((record) => [record.offset, record.value])
    expect(values).toEqual([
      [0, '1'],
      [1, '2'],
      [2, '3'],
    ])
  })
})
