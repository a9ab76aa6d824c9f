import { afterEach, describe, expect, it, vi } from 'vitest'
import { encodeKey } from '@/lib/mirror/mirror-state-records'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * #3 state fencing (KIP-1279.md §5.3) through the engine: another writer of a partition's `__mirror_state`
 * record got there first; the engine's next write is refused, it re-reads the stored state and the
 * destination's leader epoch, decides again and writes once more. Without fencing in the state log the
 * stale write lands and the partition's stateEpoch repeats (the check on the log's records below).
 */

const TP = { topic: 't', partition: 0 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function mirroring(): Promise<{ h: EngineHarness; b: EmbeddedCluster; key: string }> {
  const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
  const a = h.cluster('a')
  await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
  await a.produce('t', { partition: 0, records: [{ value: '1' }, { value: '2' }] })
  await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
  await h.run(3)
  const b = h.cluster('b')
  expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 2 })
  const { topicId } = await b.describeTopic('t')
  return { h, b, key: encodeKey({ kind: 'partition', mirror: 'm', topicId, partition: 0 }) }
}

/** The partition's records in the log, in order: state, stateEpoch and the writer's leader epoch. */
async function records(b: EmbeddedCluster, key: string) {
  return (await b.readMirrorState())
    .filter((entry) => entry.key === key && entry.value !== null)
    .map((entry) => JSON.parse(entry.value!) as { state: string; stateEpoch: number; leaderEpoch: number })
}

/** Every accepted write of a partition names a stateEpoch above the last one, or repeats it for an in-state update of the same state. */
function expectFencedHistory(history: Array<{ state: string; stateEpoch: number }>) {
  for (let i = 1; i < history.length; i++) {
    const [previous, next] = [history[i - 1]!, history[i]!]
    if (next.stateEpoch === previous.stateEpoch) expect(next.state, `record ${i} repeats stateEpoch ${next.stateEpoch} with another state`).toBe(previous.state)
    else expect(next.stateEpoch, `record ${i}`).toBeGreaterThan(previous.stateEpoch)
  }
}

describe('#3 __mirror_state fencing through the engine', () => {
  it('a stale engine write is fenced with FENCED_STATE_EPOCH; the engine re-reads the stored state and its pause then succeeds', async () => {
    const { h, b, key } = await mirroring()
    const [last] = (await records(b, key)).slice(-1)
    // Another writer moved the partition on (a write this engine never saw): same state, one stateEpoch on.
    const stored = JSON.parse((await b.readMirrorState()).filter((entry) => entry.key === key).at(-1)!.value!) as Record<string, unknown>
    await b.appendMirrorState([
      { key, value: JSON.stringify({ ...stored, stateEpoch: last!.stateEpoch + 1, error: 'written by the other writer' }), fence: { expectedStateEpoch: last!.stateEpoch, leaderEpoch: last!.leaderEpoch } },
    ])

    await h.engine.pauseTopics('m')
    await h.run(2)
    const history = await records(b, key)
    expectFencedHistory(history)
    // Decided again from the stored stateEpoch: PAUSING at +2, PAUSED at +3 (not +1 and +2 over the other's record).
    expect(history.slice(-2).map((record) => [record.state, record.stateEpoch])).toEqual([
      ['PAUSING', last!.stateEpoch + 2],
      ['PAUSED', last!.stateEpoch + 3],
    ])
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'PAUSED', stateEpoch: last!.stateEpoch + 3 })
    // And it goes on from there: resume mirrors what the source has since.
    await h.cluster('a').produce('t', { partition: 0, records: [{ value: '3' }] })
    await h.engine.resumeTopics('m')
    await h.run(3)
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3 })
    expectFencedHistory(await records(b, key))
  })

  it('a stored record in another state is adopted as a named transition: in the history and on the stream, not a silent jump', async () => {
    const { h, b, key } = await mirroring()
    const [last] = (await records(b, key)).slice(-1)
    const stored = JSON.parse((await b.readMirrorState()).filter((entry) => entry.key === key).at(-1)!.value!) as Record<string, unknown>
    // Another writer paused the partition (PAUSING, then PAUSED) while this engine saw neither write.
    await b.appendMirrorState([
      { key, value: JSON.stringify({ ...stored, state: 'PAUSED', previousState: 'PAUSING', stateEpoch: last!.stateEpoch + 2 }), fence: { expectedStateEpoch: last!.stateEpoch, leaderEpoch: last!.leaderEpoch } },
    ])
    const events: Array<{ from: string; to: string; reason: string }> = []
    const unsubscribe = h.engine.subscribe((event) => {
      if (event.type === 'partition') events.push({ from: event.from, to: event.to, reason: event.reason })
    })

    await h.engine.pauseTopics('m')
    await h.run(2)
    unsubscribe()
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'PAUSED', stateEpoch: last!.stateEpoch + 2 })
    const adopted = h.engine.partitionHistory('m', 't', 0).at(-1)
    expect(adopted).toMatchObject({ from: 'MIRRORING', to: 'PAUSED' })
    expect(adopted!.reason).toMatch(/^storedStateAdopted: another writer's record at stateEpoch \d+ \(this engine held MIRRORING/)
    expect(events).toContainEqual(expect.objectContaining({ from: 'MIRRORING', to: 'PAUSED', reason: adopted!.reason }))
    // Nothing of this engine's own was written over the other writer's record.
    expect((await records(b, key)).at(-1)).toMatchObject({ state: 'PAUSED', stateEpoch: last!.stateEpoch + 2 })
  })

  it('a write under an older leader epoch is fenced with FENCED_LEADER_EPOCH; the engine reads the new epoch from metadata and writes under it', async () => {
    const { h, b, key } = await mirroring()
    const before = await b.describePartition(TP)
    // The destination partition moves to another replica: a new leadership, whose writer records the new epoch.
    const other = before.isr.find((broker) => broker !== before.leader)!
    const elected = await b.electLeader(TP, other)
    expect(elected.leaderEpoch).toBeGreaterThan(before.leaderEpoch)
    const [last] = (await records(b, key)).slice(-1)
    const stored = JSON.parse((await b.readMirrorState()).filter((entry) => entry.key === key).at(-1)!.value!) as Record<string, unknown>
    await b.appendMirrorState([{ key, value: JSON.stringify({ ...stored, leaderEpoch: elected.leaderEpoch }), fence: { expectedStateEpoch: last!.stateEpoch, leaderEpoch: elected.leaderEpoch } }])

    // No fetch round in between: the engine still holds the old epoch when it writes PAUSING.
    await h.engine.pauseTopics('m')
    await h.run(2)
    const history = await records(b, key)
    expectFencedHistory(history)
    for (const record of history.slice(-2)) expect(record.leaderEpoch).toBeGreaterThanOrEqual(elected.leaderEpoch)
    expect(history.slice(-2).map((record) => record.state)).toEqual(['PAUSING', 'PAUSED'])
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'PAUSED' })
  })

  it('a restarted engine writes under the epoch it last wrote with, and is not fenced by its own records', async () => {
    const { h, b, key } = await mirroring()
    const before = await b.describePartition(TP)
    await b.electLeader(TP, before.isr.find((broker) => broker !== before.leader)!)
    // A pause and a resume write the partition's record under the new epoch (the fetch round reads it).
    await h.run(1)
    await h.engine.pauseTopics('m')
    await h.engine.resumeTopics('m')
    await h.run(2)
    const [last] = (await records(b, key)).slice(-1)
    expect(last).toMatchObject({ state: 'MIRRORING', leaderEpoch: before.leaderEpoch + 1 })
    await h.restart()
    // A fenced write re-reads the log: after its own replay on start, the engine reads it no more.
    const reads = vi.spyOn(h.cluster('b'), 'readMirrorState')
    await h.engine.pauseTopics('m')
    await h.run(2)
    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'PAUSED' })
    expect(reads).not.toHaveBeenCalled()
    reads.mockRestore()
    expectFencedHistory(await records(h.cluster('b'), key))
  })
})
