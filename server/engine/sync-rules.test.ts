import { afterEach, describe, expect, it, vi } from 'vitest'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * What the periodic sync (server/engine/syncs/) leaves alone, and when it runs: the parts of #30, #31 and
 * the refresh interval that the engine-behaviour tests do not reach (found by mutation testing).
 */

const FAST_SYNC = { 'mirror.metadata.refresh.interval.ms': 1_000 }
const TP = { topic: 't', partition: 0 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function mirroring(config: Record<string, unknown> = FAST_SYNC): Promise<EngineHarness> {
  const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
  harness = h
  const a = h.cluster('a')
  await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1, configs: { 'retention.ms': '1000000' } })
  await a.produce('t', { partition: 0, records: ['1', '2', '3'].map((value) => ({ value })) })
  await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config })
  await h.run(3, 1_000)
  expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3 })
  return h
}

async function groupOffset(cluster: EmbeddedCluster, groupId: string): Promise<number | undefined> {
  return (await cluster.listGroupOffsets()).find((group) => group.groupId === groupId)?.offsets.find((o) => o.topic === TP.topic && o.partition === TP.partition)?.offset
}

describe('the periodic sync', () => {
  it('#30 once STOPPED, no later sync copies a source config or a group offset to the topic', async () => {
    const h = await mirroring()
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.commitOffsets('before', [{ ...TP, offset: 2 }])
    await h.run(2, 1_000)
    expect(await groupOffset(b, 'before')).toBe(2)

    expect((await h.engine.awaitOperation((await h.engine.failover('m', { confirm: 'm' })).operation.id)).status).toBe('succeeded')
    // The new owners of the topic set their own config and commit their own offsets.
    await b.alterTopicConfigs('t', { 'retention.ms': '5000000' })
    await b.commitOffsets('before', [{ ...TP, offset: 4 }])
    await a.alterTopicConfigs('t', { 'retention.ms': '2000000' })
    await a.commitOffsets('before', [{ ...TP, offset: 3 }])
    await a.commitOffsets('after', [{ ...TP, offset: 1 }])
    await h.run(4, 1_000)

    expect(h.engine.partitions('m')[0]!.state).toBe('STOPPED')
    expect((await b.describeTopic('t')).configs['retention.ms']).toBe('5000000')
    expect(await groupOffset(b, 'before')).toBe(4)
    expect(await groupOffset(b, 'after')).toBeUndefined()
  })

  it('#31 syncs the offsets of the groups groups.include names and groups.exclude does not', async () => {
    const h = await mirroring({ ...FAST_SYNC, 'groups.include': ['billing.*'], 'groups.exclude': ['billing-test'] })
    const a = h.cluster('a')
    const b = h.cluster('b')
    for (const groupId of ['billing', 'billing-eu', 'billing-test', 'shipping']) await a.commitOffsets(groupId, [{ ...TP, offset: 2 }])
    await h.run(2, 1_000)
    expect(await groupOffset(b, 'billing')).toBe(2)
    expect(await groupOffset(b, 'billing-eu')).toBe(2)
    expect(await groupOffset(b, 'billing-test')).toBeUndefined()
    expect(await groupOffset(b, 'shipping')).toBeUndefined()
  })

  it('#31 clamps each offset to its own partition of its own topic on the destination', async () => {
    const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    harness = h
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await a.createTopic({ name: 'u', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { partition: 0, records: ['1', '2', '3', '4', '5'].map((value) => ({ value })) })
    await a.produce('t', { partition: 1, records: [{ value: '1' }] })
    await a.produce('u', { partition: 0, records: ['1', '2'].map((value) => ({ value })) })
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t', 'u'], config: FAST_SYNC })
    await h.run(3, 1_000)
    await h.engine.pauseTopics('m')
    await h.run(1)
    await a.produce('t', { partition: 1, records: ['2', '3', '4'].map((value) => ({ value })) })
    await a.produce('u', { partition: 0, records: ['3', '4', '5', '6'].map((value) => ({ value })) })
    await a.commitOffsets('g', [
      { topic: 't', partition: 1, offset: 4 },
      { topic: 'u', partition: 0, offset: 6 },
    ])
    await h.engine.resumeTopics('m')
    // The sync runs before the fetch in a tick: t-1 still ends at 1 and u-0 at 2 on the destination (t-0 at 5).
    await h.run(1, 1_000)
    const offsets = (await b.listGroupOffsets()).find((group) => group.groupId === 'g')?.offsets.map((o) => [o.topic, o.partition, o.offset])
    expect(offsets?.sort()).toEqual([
      ['t', 1, 1],
      ['u', 0, 2],
    ])
  })

  it('#31 commits an offset once: a sync that finds it already on the destination writes nothing', async () => {
    const h = await mirroring()
    const a = h.cluster('a')
    const b = h.cluster('b')
    const commits = vi.spyOn(b, 'commitSyncedGroupOffset')
    await a.commitOffsets('billing', [{ ...TP, offset: 2 }])
    await h.run(1, 1_000)
    expect(commits.mock.calls.map(([group, tp, offset]) => [group, tp.topic, tp.partition, offset])).toEqual([['billing', 't', 0, 2]])
    // Three more syncs with nothing new: each offset write of a group is a record on __consumer_offsets.
    await h.run(3, 1_000)
    expect(commits).toHaveBeenCalledTimes(1)
    await a.commitOffsets('billing', [{ ...TP, offset: 3 }])
    await h.run(1, 1_000)
    expect(commits.mock.calls.map(([, , offset]) => offset)).toEqual([2, 3])
    expect(await groupOffset(b, 'billing')).toBe(3)
  })

  it("#31 compares each partition's offset with that partition's own on the destination, not another's", async () => {
    const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    harness = h
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    for (const partition of [0, 1]) await a.produce('t', { partition, records: ['1', '2', '3'].map((value) => ({ value })) })
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    await h.run(3, 1_000)
    await a.commitOffsets('g', [{ topic: 't', partition: 0, offset: 2 }])
    await h.run(1, 1_000)
    // Partition 1 gets the offset partition 0 already has on the destination: it is new for partition 1.
    await a.commitOffsets('g', [{ topic: 't', partition: 1, offset: 2 }])
    await h.run(1, 1_000)
    const offsets = (await b.listGroupOffsets()).find((group) => group.groupId === 'g')?.offsets.map((o) => [o.partition, o.offset])
    expect(offsets?.sort()).toEqual([
      [0, 2],
      [1, 2],
    ])
    // So is the same partition number of another topic.
    await a.createTopic({ name: 'u', partitions: 1, replicationFactor: 1 })
    await a.produce('u', { partition: 0, records: ['1', '2', '3'].map((value) => ({ value })) })
    await h.engine.startTopics('m', { topics: ['u'] })
    await h.run(3, 1_000)
    await a.commitOffsets('g', [{ topic: 'u', partition: 0, offset: 2 }])
    await h.run(1, 1_000)
    const byTopic = (await b.listGroupOffsets()).find((group) => group.groupId === 'g')?.offsets.map((o) => [o.topic, o.partition, o.offset])
    expect(byTopic?.sort()).toEqual([
      ['t', 0, 2],
      ['t', 1, 2],
      ['u', 0, 2],
    ])
  })

  it('#31 does not even ask to commit for a group with members on the destination', async () => {
    const h = await mirroring()
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.commitOffsets('busy', [{ ...TP, offset: 2 }])
    await a.commitOffsets('idle', [{ ...TP, offset: 1 }])
    await b.joinGroup('busy', { sessionTimeoutMs: 600_000 })
    const commits = vi.spyOn(b, 'commitSyncedGroupOffset')
    await h.run(2, 1_000)
    expect(commits.mock.calls.map(([group]) => group)).toEqual(['idle'])
    expect(await groupOffset(b, 'busy')).toBeUndefined()
  })

  it('#31 skips an offset clamped to where the destination has no epoch, instead of committing it without one', async () => {
    const h = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } } })
    harness = h
    const a = h.cluster('a')
    const b = h.cluster('b')
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
    await a.produce('t', { partition: 0, records: ['1', '2', '3'].map((value) => ({ value })) })
    await a.deleteRecords(TP, 3)
    await a.produce('t', { partition: 0, records: [{ value: '4' }] })
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: FAST_SYNC })
    // The mirror starts at the source's log start (3) with nothing fetched yet; the group's offset 1 is below it.
    await h.engine.pauseTopics('m')
    await h.run(1)
    await a.commitOffsets('early', [{ ...TP, offset: 1 }])
    expect(await b.epochForOffset(TP, 3)).toBe(-1)
    await h.engine.resumeTopics('m')
    const commits = vi.spyOn(b, 'commitSyncedGroupOffset')
    await h.run(1, 1_000)
    expect(commits).not.toHaveBeenCalledWith('early', expect.anything(), 3, -1)
    expect(commits.mock.calls.filter(([group]) => group === 'early').every(([, , , epoch]) => epoch !== -1)).toBe(true)
  })

  it('#32 waits mirror.metadata.refresh.interval.ms between syncs: a source config change is copied at the next one, not before', async () => {
    const h = await mirroring({ 'mirror.metadata.refresh.interval.ms': 10_000 })
    const a = h.cluster('a')
    const b = h.cluster('b')
    /** Seconds (ticks of 1 s) until the destination has the source's retention.ms, at most 15. */
    const secondsUntilCopied = async (retention: string): Promise<number> => {
      for (let seconds = 1; seconds <= 15; seconds++) {
        await h.run(1, 1_000)
        if ((await b.describeTopic('t')).configs['retention.ms'] === retention) return seconds
      }
      return Number.POSITIVE_INFINITY
    }
    await a.alterTopicConfigs('t', { 'retention.ms': '2000000' })
    expect(await secondsUntilCopied('2000000')).toBeLessThanOrEqual(11)
    // Changed right after a sync copied the last change: the next sync is one interval later.
    await a.alterTopicConfigs('t', { 'retention.ms': '3000000' })
    const seconds = await secondsUntilCopied('3000000')
    expect(seconds).toBeGreaterThanOrEqual(9)
    expect(seconds).toBeLessThanOrEqual(11)
  })
})
