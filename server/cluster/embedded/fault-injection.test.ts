import { afterEach, describe, expect, it } from 'vitest'
import { ClusterLinks } from '../links'
import { expectErrorCode, openTestCluster, type TestCluster } from './testing'

/** The fault-injection powers the demo uses: an unclean election that loses a tail, and cutting a cluster's link. */

let t: TestCluster
afterEach(async () => t?.cleanup())

const tp = { topic: 'orders', partition: 0 }

async function values() {
  return (await t.cluster.readRecords('orders', 0, { limit: 100 })).records.map((r) => [r.offset, r.value, r.leaderEpoch])
}

describe('electLaggingReplicaUncleanly', () => {
  it('elects a follower cut back by the lost records; the old leader truncates the same tail and the replicas converge', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 3 })
    for (let i = 0; i < 8; i++) await t.cluster.produce('orders', { partition: 0, records: [{ value: `v${i}` }] })
    const before = (await t.cluster.describeTopic('orders')).partitions[0]!
    const result = await t.cluster.electLaggingReplicaUncleanly(tp, 3)
    expect(result).toMatchObject({ previousLeader: before.leader, logEndOffset: 5, previousLogEndOffset: 8 })
    expect(result.leader).not.toBe(before.leader)
    const after = (await t.cluster.describeTopic('orders')).partitions[0]!
    expect(after).toMatchObject({ leader: result.leader, leaderEpoch: before.leaderEpoch + 1, logEndOffset: 5 })
    // The history of the old epoch now ends at 5: a reader that fetched up to 8 in it diverges.
    expect(await t.cluster.endOffsetForEpoch(tp, before.leaderEpoch)).toEqual({ leaderEpoch: before.leaderEpoch, endOffset: 5 })
    await t.cluster.produce('orders', { partition: 0, records: [{ value: 'new' }] })
    expect(await values()).toEqual([...[0, 1, 2, 3, 4].map((i) => [i, `v${i}`, before.leaderEpoch]), [5, 'new', before.leaderEpoch + 1]])
    for (const replica of after.replicas) expect(t.cluster.replicaLog(tp, replica)!.logEndOffset).toBe(6)
  })

  it('refuses without an alive follower or enough records to lose, and changes nothing', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 3 })
    await t.cluster.produce('orders', { partition: 0, records: [{ value: 'only' }] })
    await expectErrorCode(t.cluster.electLaggingReplicaUncleanly(tp, 2), 'CONFLICT')
    await expectErrorCode(t.cluster.electLaggingReplicaUncleanly(tp, 0), 'VALIDATION_FAILED')
    const { leader, replicas, leaderEpoch } = (await t.cluster.describeTopic('orders')).partitions[0]!
    for (const follower of replicas.filter((r) => r !== leader)) await t.cluster.stopBroker(follower)
    await expectErrorCode(t.cluster.electLaggingReplicaUncleanly(tp, 1), 'CONFLICT')
    expect((await t.cluster.describeTopic('orders')).partitions[0]).toMatchObject({ leader, leaderEpoch, logEndOffset: 1 })
  })
})

describe('ClusterLinks', () => {
  it('fails every call across a cut link, at the source or at a destination mirroring from it, until healed', async () => {
    t = await openTestCluster({ name: 'a' })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const links = new ClusterLinks()
    const remote = links.remoteSource(t.cluster, () => ['b'])
    expect((await remote.describeTopics()).map((topic) => topic.name)).toEqual(['orders'])
    links.cutOff('a')
    await expectErrorCode(remote.fetch([{ ...tp, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 1024 }], { maxBytes: 1024 }), 'SOURCE_UNAVAILABLE')
    await expectErrorCode(remote.clusterId(), 'SOURCE_UNAVAILABLE')
    expect(() => links.cutOff('a')).toThrow(/already cut/)
    links.heal('a')
    expect(() => links.heal('a')).toThrow(/not cut/)
    links.cutOff('b')
    await expectErrorCode(remote.endOffsetForEpoch(tp, 0), 'SOURCE_UNAVAILABLE')
    links.heal('b')
    expect(await remote.clusterId()).toBe(await t.cluster.clusterId())
    // The cluster itself, as its own region's clients see it, was never cut.
    expect(t.cluster.brokers().every((b) => b.alive)).toBe(true)
  })
})
