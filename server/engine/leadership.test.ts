import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ClusterError } from '@/server/cluster/errors'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * #35 a source cluster id change, caught before anything of the other cluster is fetched, and destination
 * leadership changes (KIP-1279.md §5.4): a new leader of a mirror partition re-evaluates it and drops an
 * epoch bump its epoch already satisfies.
 */

const TP = { topic: 't', partition: 0 }

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

async function values(cluster: EmbeddedCluster) {
  return (await cluster.readRecords('t', 0, { limit: 1_000 })).records.map((record) => record.value)
}

describe('#35 source cluster id', () => {
  it('another cluster behind the source fails every partition with both ids, before one of its records is appended', async () => {
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    await h.cluster('a').createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await h.cluster('a').produce('t', { partition: 0, records: [{ value: '1' }] })
    // The default refresh interval (60 s): the periodic sync is far away when the source changes.
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await h.run(3)
    expect(await values(h.cluster('b'))).toEqual(['1'])
    const expected = h.engine.getMirror('m').sourceClusterId

    await h.cluster('a').close()
    const replacement = await EmbeddedCluster.open(path.join(h.root, 'a-replacement'), { name: 'a', brokers: 3, clock: h.clock })
    h.clusters.set('a', replacement)
    await replacement.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
    await replacement.produce('t', { partition: 0, records: [{ value: 'other-1' }, { value: 'other-2' }] })
    await h.run(3)

    const actual = await replacement.clusterId()
    expect(h.engine.partitions('m').map((partition) => [partition.state, partition.retryAttempt])).toEqual([
      ['FAILED', -1],
      ['FAILED', -1],
    ])
    for (const partition of h.engine.partitions('m')) expect(partition.error).toBe(`Source cluster ID changed for mirror. Expected ${expected}, found ${actual}.`)
    // Nothing of the other cluster reached the destination (its offset 1 would have been appended at once).
    expect(await values(h.cluster('b'))).toEqual(['1'])
  })
})

describe('destination leadership changes', () => {
  it('a new leader whose epoch already satisfies a pending bump resumes mirroring at once, without asking for the bump', async () => {
    const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
    const a = h.cluster('a')
    const b = h.cluster('b')
    // Three replicas on the destination too (a mirror topic takes the source's replication factor).
    await a.createTopic({ name: 't', partitions: 1, replicationFactor: 3 })
    await a.produce('t', { partition: 0, records: [{ value: '1' }] })
    // A long first backoff: the failed bump's retry is a minute away.
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'mirror.failed.retry.initial.backoff.ms': 120_000 } })
    await h.run(3)
    const destinationEpoch = (await b.describePartition(TP)).leaderEpoch

    // The source's leader epoch jumps past ours; its next batch needs a bump, which the destination refuses.
    await a.bumpLeaderEpoch(TP, destinationEpoch + 20)
    await a.produce('t', { partition: 0, records: [{ value: '2' }] })
    const bump = vi.spyOn(b, 'bumpLeaderEpoch').mockRejectedValueOnce(new ClusterError('NOT_LEADER_OR_FOLLOWER', 'the leader is moving'))
    await h.run(2)
    const [fenced] = h.engine.partitions('m')
    expect(fenced).toMatchObject({ state: 'FAILED', previousState: 'EPOCH_FENCING', retryAttempt: 1 })
    // Nothing was raised: the bump the partition waits for is source epoch + 10.
    expect((await b.describePartition(TP)).leaderEpoch).toBe(destinationEpoch)

    // The controller did raise the epoch (the answer was lost), and the leadership moved to another replica.
    bump.mockRestore()
    await b.bumpLeaderEpoch(TP, destinationEpoch + 30)
    const before = await b.describePartition(TP)
    const elected = await b.electLeader(TP, before.isr.find((broker) => broker !== before.leader)!)
    const asked = vi.spyOn(b, 'bumpLeaderEpoch')
    // Leadership is looked at once a second; the retry is still two minutes away.
    await h.run(3, 1_000)

    expect(h.engine.partitions('m')[0]).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 2, destinationLeaderEpoch: elected.leaderEpoch })
    expect(asked).not.toHaveBeenCalled()
    expect((await b.describePartition(TP)).leaderEpoch).toBe(elected.leaderEpoch)
    expect(await values(b)).toEqual(['1', '2'])
  })
})
