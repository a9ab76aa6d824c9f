import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { expectErrorCode, openTestCluster, type TestCluster } from './testing'

let t: TestCluster

afterEach(async () => {
  await t?.cleanup()
})

const tp = { topic: 'orders', partition: 0 }
const LAG = 10_000

async function partitionState() {
  const [p] = (await t.cluster.describeTopic('orders')).partitions
  return p!
}

/** Yields to the event loop so that anything not blocked on the cluster would have settled. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function segmentOf(brokerId: number, topic = 'orders', partition = 0): Promise<Buffer> {
  return readFile(path.join(t.dir, `broker-${brokerId}`, `${topic}-${partition}`, '00000000000000000000.log'))
}

describe('replication', () => {
  it('copies every batch to the followers byte for byte and sets HW = min LEO of the ISR', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] })
    await t.cluster.produce('orders', { records: [{ key: 'c', value: '3' }] })
    const state = await partitionState()
    expect(state).toMatchObject({ isr: state.replicas, highWatermark: 3, logEndOffset: 3 })
    const leaderBytes = await segmentOf(state.leader)
    for (const replica of state.replicas) {
      expect(t.cluster.replicaLog(tp, replica)!.highWatermark).toBe(3)
      expect((await segmentOf(replica)).equals(leaderBytes)).toBe(true)
    }
  })

  it('keeps a stopped follower in the ISR until replica.lag.time.max.ms, holding back acks=all appends', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'committed' }] })
    const { leader, replicas } = await partitionState()
    const follower = replicas.find((r) => r !== leader)!
    await t.cluster.stopBroker(follower)

    let committed = false
    const pending = t.cluster.produce('orders', { records: [{ value: 'waits' }] }).then((r) => {
      committed = true
      return r
    })
    await settle()
    expect(committed).toBe(false)
    expect(await partitionState()).toMatchObject({ highWatermark: 1, logEndOffset: 2, isr: replicas })

    t.clock.advance(LAG)
    await t.cluster.tick()
    await settle()
    expect(committed).toBe(false)
    expect((await partitionState()).isr).toContain(follower)

    t.clock.advance(1)
    await t.cluster.tick()
    expect(await pending).toEqual({ records: [{ partition: 0, offset: 1 }] })
    const after = await partitionState()
    expect(after.isr).not.toContain(follower)
    expect(after.isr).toHaveLength(2)
    expect(after.highWatermark).toBe(2)
  })

  it('fails an acks=all append after request.timeout.ms while the ISR cannot grow the high watermark', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: 60_000, requestTimeoutMs: 5000 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const { leader, replicas } = await partitionState()
    await t.cluster.stopBroker(replicas.find((r) => r !== leader)!)
    const pending = t.cluster.produce('orders', { records: [{ value: 'x' }] })
    const outcome = pending.then(
      () => 'resolved',
      (e: { code?: string }) => e.code,
    )
    t.clock.advance(5000)
    await t.cluster.tick()
    expect(await outcome).toBe('REQUEST_TIMED_OUT')
  })

  it('a restarted follower catches up and rejoins the ISR', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const { leader, replicas } = await partitionState()
    const follower = replicas.find((r) => r !== leader)!
    await t.cluster.stopBroker(follower)
    t.clock.advance(LAG + 1)
    await t.cluster.tick()
    expect((await partitionState()).isr).not.toContain(follower)
    for (let i = 0; i < 5; i++) await t.cluster.produce('orders', { records: [{ value: `v${i}` }] })
    expect(await partitionState()).toMatchObject({ highWatermark: 5 })

    await t.cluster.startBroker(follower)
    const after = await partitionState()
    expect(after.isr).toEqual(replicas)
    expect(t.cluster.replicaLog(tp, follower)!.logEndOffset).toBe(5)
    expect((await segmentOf(follower)).equals(await segmentOf(leader))).toBe(true)
  })

  it('elects a new leader from the ISR when the leader stops, with the next leader epoch', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'before' }] })
    const before = await partitionState()
    await t.cluster.stopBroker(before.leader)
    const after = await partitionState()
    expect(after.leader).not.toBe(before.leader)
    expect(before.replicas).toContain(after.leader)
    expect(after.leaderEpoch).toBe(before.leaderEpoch + 1)
    expect(after.isr).not.toContain(before.leader)
    // The new epoch starts at the new leader's end (Kafka's makeLeader), before any batch of it exists.
    expect(await t.cluster.endOffsetForEpoch(tp, 0)).toEqual({ leaderEpoch: 0, endOffset: 1 })
    expect(await t.cluster.endOffsetForEpoch(tp, 1)).toEqual({ leaderEpoch: 1, endOffset: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'after' }] })
    const page = await t.cluster.readRecords('orders', 0)
    expect(page.records.map((r) => [r.value, r.leaderEpoch])).toEqual([
      ['before', 0],
      ['after', 1],
    ])
    expect(page.highWatermark).toBe(2)
  })

  it('goes offline without an ISR replica and comes back with the last ISR member', async () => {
    t = await openTestCluster({ brokers: 2, config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 2 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    const { leader, replicas } = await partitionState()
    const follower = replicas.find((r) => r !== leader)!
    await t.cluster.stopBroker(follower)
    t.clock.advance(LAG + 1)
    await t.cluster.tick()
    await t.cluster.stopBroker(leader)
    // With every broker stopped the cluster cannot be reached at all.
    await expectErrorCode(t.cluster.describeTopics(), 'SOURCE_UNAVAILABLE')
    // The out-of-sync replica returns: without unclean election it may not lead.
    await t.cluster.startBroker(follower)
    await t.cluster.tick()
    expect(await partitionState()).toMatchObject({ leader: -1, isr: [leader] })
    await expectErrorCode(t.cluster.produce('orders', { records: [{ value: 'b' }] }), 'LEADER_NOT_AVAILABLE')
    await t.cluster.startBroker(leader)
    const back = await partitionState()
    expect(back.leader).toBe(leader)
    expect(back.isr).toEqual(replicas)
    expect(t.cluster.replicaLog(tp, follower)!.logEndOffset).toBe(1)
  })

  it('an unclean election creates divergent history that endOffsetForEpoch and fetch expose, and the old leader truncates on return', async () => {
    t = await openTestCluster({ brokers: 2, config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 2 })
    await t.cluster.produce('orders', { records: [{ value: 'common' }] })
    const { leader: oldLeader, replicas } = await partitionState()
    const other = replicas.find((r) => r !== oldLeader)!
    await t.cluster.stopBroker(other)
    t.clock.advance(LAG + 1)
    await t.cluster.tick()
    // Only the old leader holds offsets 1-2 (epoch 0).
    await t.cluster.produce('orders', { records: [{ value: 'lost-1' }, { value: 'lost-2' }] })
    await t.cluster.stopBroker(oldLeader)
    await t.cluster.startBroker(other)
    expect((await partitionState()).leader).toBe(-1)

    const elected = await t.cluster.electLeader(tp, other, { unclean: true })
    expect(elected).toMatchObject({ leader: other, isr: [other], leaderEpoch: 2, logEndOffset: 1 })
    // Epoch 0 ends at 1 here, where the old leader had written up to 3: that is the divergence.
    expect(await t.cluster.endOffsetForEpoch(tp, 0)).toEqual({ leaderEpoch: 0, endOffset: 1 })
    const [diverged] = await t.cluster.fetch([{ ...tp, fetchOffset: 3, lastFetchedEpoch: 0, maxBytes: 1 << 20 }], { maxBytes: 1 << 20 })
    expect(diverged).toMatchObject({ ok: true, divergingEpoch: { leaderEpoch: 0, endOffset: 1 } })
    if (diverged?.ok) expect(diverged.records.byteLength).toBe(0)

    await t.cluster.produce('orders', { records: [{ value: 'new-history' }] })
    await t.cluster.startBroker(oldLeader)
    const healed = await partitionState()
    expect(healed.isr.sort()).toEqual([...replicas].sort())
    const returned = t.cluster.replicaLog(tp, oldLeader)!
    expect(returned.logEndOffset).toBe(2)
    expect(returned.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 1 },
    ])
    expect((await segmentOf(oldLeader)).equals(await segmentOf(other))).toBe(true)
    const page = await t.cluster.readRecords('orders', 0)
    expect(page.records.map((r) => [r.offset, r.value, r.leaderEpoch])).toEqual([
      [0, 'common', 0],
      [1, 'new-history', 2],
    ])
  })

  it('elects an out-of-sync replica automatically when unclean.leader.election.enable is true', async () => {
    t = await openTestCluster({ brokers: 2, config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1, replicationFactor: 2, configs: { 'unclean.leader.election.enable': 'true' } })
    const { leader, replicas } = await partitionState()
    const other = replicas.find((r) => r !== leader)!
    await t.cluster.stopBroker(other)
    t.clock.advance(LAG + 1)
    await t.cluster.tick()
    await t.cluster.produce('orders', { records: [{ value: 'only-on-leader' }] })
    await t.cluster.stopBroker(leader)
    await t.cluster.startBroker(other)
    expect(await partitionState()).toMatchObject({ leader: other, isr: [other], logEndOffset: 0 })
  })

  it('refuses a clean election of a replica outside the ISR and changes nothing', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    const { leader, replicas } = await partitionState()
    const follower = replicas.find((r) => r !== leader)!
    await t.cluster.stopBroker(follower)
    await expectErrorCode(t.cluster.electLeader(tp, follower), 'VALIDATION_FAILED')
    t.clock.advance(LAG + 1)
    await t.cluster.tick()
    await t.cluster.startBroker(follower)
    const other = replicas.find((r) => r !== leader && r !== follower)!
    const moved = await t.cluster.electLeader(tp, other)
    expect(moved).toMatchObject({ leader: other, leaderEpoch: 1 })
    await expectErrorCode(t.cluster.electLeader(tp, 99), 'NOT_FOUND')
    expect(await partitionState()).toMatchObject({ leader: other, leaderEpoch: 1 })
  })

  it('keeps partition state and data across a restart of the whole cluster', async () => {
    t = await openTestCluster({ config: { replicaLagTimeMaxMs: LAG } })
    await t.cluster.createTopic({ name: 'orders', partitions: 1 })
    await t.cluster.produce('orders', { records: [{ value: 'a' }] })
    const before = await partitionState()
    await t.cluster.stopBroker(before.leader)
    const moved = await partitionState()
    await t.reopen()
    const after = await partitionState()
    expect(after).toMatchObject({ leader: moved.leader, leaderEpoch: moved.leaderEpoch, highWatermark: 1, logEndOffset: 1 })
    // Every broker starts with the cluster; the old leader rejoins the ISR after catching up.
    expect(after.isr.sort()).toEqual([...before.replicas].sort())
    expect(t.cluster.brokers().every((b) => b.alive)).toBe(true)
  })
})
