import { afterEach, describe, expect, it } from 'vitest'
import { STOPPING_STEPS, type StoppingStep } from '@/lib/mirror/stopping'
import { createEngineHarness, type EngineHarness } from './testing/harness'
import { mirrorOffsets0To2ThenPause, WORKED_EXAMPLE_CLUSTERS, WORKED_EXAMPLE_TOPIC } from './testing/worked-example'

/**
 * The engine's STOPPING sequence (server/engine/runner/partition-runner.ts) in one process: the order of its
 * steps as the fault-injection hook sees them, and a failure between a step's action and its record, which
 * the retry must resume at that step without writing a marker twice (KIP-1279.md §11 #24, #27). The SIGKILL
 * variants are in stopping-crash.test.ts; these run where mutation testing can switch the engine's code.
 */

const TP = { topic: WORKED_EXAMPLE_TOPIC, partition: 0 }
type Phase = 'beforeAction' | 'afterAction'

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

interface Injection {
  /** The mirror being stopped, whose persisted step each call records. */
  mirror: string
  /** Fails once right after this step's action (then clears itself); null: never. */
  failAfter: StoppingStep | null
  calls: Array<[Phase, StoppingStep, string | null]>
}

/** A harness whose STOPPING hook records every call and fails once after the action of `injection.failAfter`. */
async function harnessWith(injection: Injection): Promise<EngineHarness> {
  const h = await createEngineHarness({
    clusters: WORKED_EXAMPLE_CLUSTERS,
    onStoppingAction: (phase, step, topicPartition) => {
      // The persisted progress at this moment: the step the engine is on, seen from outside.
      const snapshot = h.engine.partitions(injection.mirror).find((p) => p.topic === topicPartition.topic && p.partition === topicPartition.partition)
      injection.calls.push([phase, step, snapshot?.stoppingStep ?? null])
      if (phase === 'afterAction' && step === injection.failAfter) {
        injection.failAfter = null
        throw new Error(`injected failure after ${step}`)
      }
    },
  })
  harness = h
  return h
}

async function destinationLog(h: EngineHarness, cluster = 'b') {
  return (await h.cluster(cluster).readRecords(WORKED_EXAMPLE_TOPIC, 0, { limit: 100 })).records.map((record) => [record.offset, record.type, record.producerId])
}

const EXCERPT_AFTER_FAILOVER = [
  [0, 'DATA', 4001],
  [1, 'DATA', 4001],
  [2, 'DATA', 4002],
  [3, 'ABORT', 4001],
  [4, 'ABORT', 4002],
  [5, 'MIRROR_PID_RESET', null],
]

describe('the STOPPING sequence in the engine (#24)', () => {
  it('#24 runs each step once, in the KIP order, announced before and after its action, at the persisted step', async () => {
    const injection: Injection = { mirror: 'dr', failAfter: null, calls: [] }
    const h = await harnessWith(injection)
    const { calls } = injection
    await mirrorOffsets0To2ThenPause(h)
    const finished = await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    expect(finished.status).toBe('succeeded')

    const steps = STOPPING_STEPS.filter((step) => step !== 'done')
    expect(calls.map(([phase, step]) => [phase, step])).toEqual(steps.flatMap((step) => [['beforeAction', step], ['afterAction', step]]))
    // A step's record follows its action: before and after the action the partition is still on that step.
    for (const [, step, persisted] of calls) expect(persisted).toBe(step)
    expect(await destinationLog(h)).toEqual(EXCERPT_AFTER_FAILOVER)

    // What the sequence observed last is what the partition shows: the log end after the reset record, the epoch it wrote at.
    const [partition] = h.engine.partitions('dr')
    const description = await h.cluster('b').describePartition(TP)
    expect(partition).toMatchObject({ state: 'STOPPED', stoppingStep: 'done', destinationLogEndOffset: 6, destinationLeaderEpoch: description.leaderEpoch })
  })

  it('#24 a stop that needs the epoch bump makes it in the bumpEpoch step, before any marker, each step once', async () => {
    // The failback mirror of kip-mistakes.test.ts #24, stopped before it fetched anything: its log ends at
    // its own leader epoch, so the bump is needed. abortTransactions and pidReset would make it too (their
    // corrective path), which hid a bumpEpoch step that always skipped: the epoch must rise in its own step.
    const injection: Injection = { mirror: 'dr', failAfter: null, calls: [] }
    const h = await harnessWith(injection)
    await mirrorOffsets0To2ThenPause(h)
    await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    const before = await h.cluster('a').describePartition(TP)
    Object.assign(injection, { mirror: 'back', calls: [] })
    const finished = await h.engine.awaitOperation((await h.engine.failover('back', { confirm: 'back' })).operation.id)
    expect(finished.status).toBe('succeeded')
    const steps = STOPPING_STEPS.filter((step) => step !== 'done')
    expect(injection.calls.map(([phase, step]) => [phase, step])).toEqual(steps.flatMap((step) => [['beforeAction', step], ['afterAction', step]]))
    // Had the step skipped, abortTransactions would have been announced twice: once for the bump, once for the markers.
    expect((await h.cluster('a').describePartition(TP)).leaderEpoch).toBeGreaterThan(before.leaderEpoch)
    expect(await destinationLog(h, 'a')).toEqual(EXCERPT_AFTER_FAILOVER)
  })

  it('#24 #29 the last mirror position is persisted in the partition state record before the destination log changes, and in no other record', async () => {
    // KIP-1279.md §4.1 step 2: the position is durable before the bump. It travels in the partition's own
    // state record (what replay, the failback lookup and DescribeClusterMirrors read), so the sequence writes
    // no separate position record that nothing would read. The record may wait for the first action that
    // changes the log (a bump, a marker, the reset): a crash before it recaptures the same position.
    const injection: Injection = { mirror: 'dr', failAfter: null, calls: [] }
    const h = await harnessWith(injection)
    await mirrorOffsets0To2ThenPause(h)
    const b = h.cluster('b')
    const happened: Array<{ kind: 'state'; keys: string[]; positions: unknown[] } | { kind: 'logChange'; action: string }> = []
    const appendMirrorState = b.appendMirrorState.bind(b)
    b.appendMirrorState = (entries) => {
      const values = entries.map((entry) => (entry.value === null ? null : (JSON.parse(entry.value) as { lastMirrorPosition?: unknown })))
      happened.push({ kind: 'state', keys: entries.map((entry) => entry.key), positions: values.map((value) => value?.lastMirrorPosition ?? null) })
      return appendMirrorState(entries)
    }
    for (const action of ['bumpLeaderEpoch', 'appendAbortMarkers', 'appendMirrorPidReset'] as const) {
      const original = (b[action] as (...args: unknown[]) => Promise<unknown>).bind(b)
      Object.assign(b, { [action]: (...args: unknown[]) => (happened.push({ kind: 'logChange', action }), original(...args)) })
    }
    const latestEpoch = await b.latestEpoch(TP)
    const finished = await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    expect(finished.status).toBe('succeeded')

    const states = happened.flatMap((event) => (event.kind === 'state' ? [event] : []))
    expect(states.flatMap((append) => append.keys).filter((key) => !key.startsWith('partition/'))).toEqual([])
    const firstWithPosition = happened.findIndex((event) => event.kind === 'state' && event.positions.some((position) => position !== null))
    const firstLogChange = happened.findIndex((event) => event.kind === 'logChange')
    expect(firstWithPosition).toBeGreaterThanOrEqual(0)
    expect(firstLogChange, JSON.stringify(happened)).toBeGreaterThan(firstWithPosition)
    expect((happened[firstWithPosition] as { positions: unknown[] }).positions).toEqual([{ epoch: latestEpoch, offset: 3 }])
  })

  for (const step of ['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset'] as const) {
    it(`#24 #27 a failure after the ${step} action resumes at ${step} on the retry and writes every marker once`, async () => {
      const injection: Injection = { mirror: 'dr', failAfter: step, calls: [] }
      const h = await harnessWith(injection)
      const { calls } = injection
      await mirrorOffsets0To2ThenPause(h)
      const { operation } = await h.engine.failover('dr', { confirm: 'dr' })
      await h.run(1)
      expect(h.engine.partitions('dr')[0]).toMatchObject({ state: 'FAILED', error: expect.stringContaining(`injected failure after ${step}`) })

      // The retry (full-jitter backoff, at most a few seconds for attempt 1) runs the sequence again from the step it reached.
      await h.run(10, 1_000)
      expect(h.engine.partitions('dr')[0]).toMatchObject({ state: 'STOPPED', stoppingStep: 'done', retryAttempt: 0, lastMirrorPosition: { offset: 3 } })
      expect((await h.engine.awaitOperation(operation.id)).status).toBe('succeeded')
      const resumedAt = calls.findIndex(([phase], index) => index > 0 && phase === 'beforeAction' && calls[index - 1]![1] === step && calls[index - 1]![0] === 'afterAction' && calls[index]![1] === step)
      expect(resumedAt, JSON.stringify(calls)).toBeGreaterThan(0)
      expect(await destinationLog(h)).toEqual(EXCERPT_AFTER_FAILOVER)
    })
  }

  it('#27 a failover of a failback resumed after its reset record was written does not take the reset mirrored earlier for it', async () => {
    // The failback mirror copies the first failover's MIRROR_PID_RESET (offset 5) into the old source's log.
    // Stopping it again must look for its own reset only at or after its last mirrored offset (6): the one
    // mirrored at 5 must neither count as written nor make it write a second one after a resume.
    const injection: Injection = { mirror: 'dr', failAfter: null, calls: [] }
    const h = await harnessWith(injection)
    await mirrorOffsets0To2ThenPause(h)
    await h.engine.awaitOperation((await h.engine.failover('dr', { confirm: 'dr' })).operation.id)
    await h.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    await h.run(8)
    expect(h.engine.partitions('back')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 6 })

    Object.assign(injection, { mirror: 'back', failAfter: 'pidReset', calls: [] })
    const { operation } = await h.engine.failover('back', { confirm: 'back' })
    await h.run(1)
    expect(h.engine.partitions('back')[0]).toMatchObject({ state: 'FAILED', error: expect.stringContaining('injected failure after pidReset') })
    await h.run(10, 1_000)
    expect(h.engine.partitions('back')[0]).toMatchObject({ state: 'STOPPED', lastMirrorPosition: { offset: 6 } })
    expect((await h.engine.awaitOperation(operation.id)).status).toBe('succeeded')
    expect(await destinationLog(h, 'a')).toEqual([...EXCERPT_AFTER_FAILOVER, [6, 'MIRROR_PID_RESET', null]])
  })
})
