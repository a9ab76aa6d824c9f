/**
 * Issue #40's atomic appends: a mirror partition's batches and the emulation record of how far they reached commit in
 * one transaction of the partition's transactional id (kafka-mirror-append.ts). An instance paused (here: its EndTxn
 * held, as a stopped process holds it) after it produced an append's batches and its state record, but before it
 * committed them, is taken over by another instance: the new owner's claim aborts that transaction, so a
 * read_committed reader sees neither the batches nor the record, the state the new owner reads matches the data
 * exactly, the paused instance's commit is refused once it runs again and it writes nothing more, and the new owner
 * mirrors the same source batches once. Without atomic appends the paused instance's data (and its unfenced state
 * record) land after the takeover. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeBatch } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import type { BrokerChannel, KafkaConnection } from './connection'
import { KafkaCluster } from './kafka-cluster'
import { OffsetTranslation } from './offset-translation'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

const RUN = Date.now().toString(36)
const opened: KafkaCluster[] = []
let client: KafkajsContractClient

/** An instance's client of cluster b as the runtime opens it with several instances: fenced writes, atomic appends by default. */
async function instance(opts: { fencedWrites?: boolean } = { fencedWrites: true }): Promise<KafkaCluster> {
  const cluster = await KafkaCluster.open('b', { bootstrapServers: [getTestClusters().b.bootstrap] }, opts)
  opened.push(cluster)
  return cluster
}

/**
 * The records' CreateTime: recent, as a live mirror's are. Batches stamped in 2023 (as this test had them) are past the
 * destination topic's retention (7 days): the first append's COMMIT marker, stamped now, rolls a new segment (its
 * timestamp is more than segment.ms past the segment's first batch), and the broker's next retention check (every
 * 5 min) deleted the segment of offsets 0–29, so reading from offset 0 failed "offset 0 is outside [30, 62]".
 */
const CREATE_TIME = Date.now()

/** `count` source batches of 10 records from source offset `from` (CreateTime, leader epoch 0), as a fetch hands them over. */
function sourceBatches(from: number, count: number): Uint8Array {
  const batches = Array.from({ length: count }, (_, i) => {
    const base = from + i * 10
    return encodeBatch({ baseOffset: base, partitionLeaderEpoch: 0, timestamp: CREATE_TIME + base, records: Array.from({ length: 10 }, (_, r) => ({ key: `k${base + r}`, value: `v${base + r}` })) }, crc32c)
  })
  return Buffer.concat(batches)
}

/** Holds the instance's EndTxn requests while `hold.on`, as a process paused right before it commits. */
function holdCommits(cluster: KafkaCluster) {
  const hold = { on: false, reached: () => {}, release: () => {} }
  const reached = new Promise<void>((resolve) => (hold.reached = resolve))
  const released = new Promise<void>((resolve) => (hold.release = resolve))
  const connection = (cluster as unknown as { connection: KafkaConnection }).connection
  const channel = connection.channel.bind(connection)
  connection.channel = async (suffix: string): Promise<BrokerChannel> => {
    const own = await channel(suffix)
    return {
      send: async (nodeId, request) => {
        if (hold.on && request.request.apiName === 'EndTxn') {
          hold.reached()
          await released
        }
        return own.send(nodeId, request)
      },
      transactionCoordinator: (transactionalId) => own.transactionCoordinator(transactionalId),
      close: () => own.close(),
    }
  }
  return { hold, reached }
}

describe('atomic appends: a mirror partition’s data and its state record in one transaction (issue #40)', () => {
  beforeAll(async () => {
    const { bootstrap } = getTestClusters().b
    client = await kafkajsContractClient(bootstrap, 'atomic-test')
    await client.forget(['atomic-'])
  })
  afterAll(async () => {
    for (const cluster of opened) await cluster.close().catch(() => undefined)
    await client?.forget(['atomic-']).catch(() => undefined)
    await client?.close()
  })

  /** The keys a read_committed reader gets from the destination partition. */
  async function committedKeys(reader: KafkaCluster, topic: string): Promise<string[]> {
    const page = await reader.readRecords(topic, 0, { fromOffset: 0, limit: 1000, isolation: 'read_committed' })
    return page.records.filter((r) => r.type === 'DATA').map((r) => r.key ?? '')
  }
  const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `k${from + i}`)
  /** The broker's own high watermark (read_uncommitted: past records of open transactions). */
  const brokerEnd = async (cluster: KafkaCluster, topic: string) => (await cluster.source.describePartition({ topic, partition: 0 })).highWatermark

  it('is on by default wherever writes are fenced, off with MIRRORBOARD_KAFKA_ATOMIC_APPENDS=0 and without fencing', async () => {
    const markersAfterOneAppend = async (name: string, opts: { fencedWrites?: boolean }) => {
      const topic = `atomic-${name}-${RUN}`
      const cluster = await instance(opts)
      await cluster.host.createMirrorTopic({ name: topic, topicId: `AtomicDefault${name}`.padEnd(22, '0').slice(0, 22), partitions: 1, mirror: `atomic-m-${name}-${RUN}` })
      expect(await cluster.host.appendMirroredBatches({ topic, partition: 0 }, sourceBatches(0, 3))).toMatchObject({ logEndOffset: 30 })
      // Where source offset 30 goes on the destination: after the append's COMMIT marker (atomic), or at 30.
      const translation = new OffsetTranslation(cluster.host.emulationNotes({ topic, partition: 0 })?.offsetTranslation ?? [])
      return translation.toDestination(30) - 30
    }
    expect(await markersAfterOneAppend('fenced', { fencedWrites: true })).toBe(1)
    expect(await markersAfterOneAppend('unfenced', { fencedWrites: false })).toBe(0)
    process.env.MIRRORBOARD_KAFKA_ATOMIC_APPENDS = '0'
    try {
      expect(await markersAfterOneAppend('optout', { fencedWrites: true })).toBe(0)
    } finally {
      delete process.env.MIRRORBOARD_KAFKA_ATOMIC_APPENDS
    }
  })

  it('a writer paused before its commit leaves neither data without state nor state without data, and is refused after the takeover', async () => {
    const topic = `atomic-${RUN}`
    const tp = { topic, partition: 0 }
    const owner = await instance()
    // Its channels are made at its first produce: wrapped from the start.
    const { hold, reached } = holdCommits(owner)
    await owner.host.createMirrorTopic({ name: topic, topicId: 'AtomicAppendsTopicId00', partitions: 1, mirror: `atomic-m-${RUN}` })
    expect(await owner.host.appendMirroredBatches(tp, sourceBatches(0, 3))).toMatchObject({ logEndOffset: 30 })
    const committedEnd = await brokerEnd(owner, topic)

    // The owner's next append stops right before its commit: its batches and its state record are produced, uncommitted.
    hold.on = true
    const paused = owner.host.appendMirroredBatches(tp, sourceBatches(30, 3)).then(
      () => 'written',
      (error: { code?: string }) => error.code ?? 'failed',
    )
    await Promise.race([reached, paused])
    expect(await brokerEnd(owner, topic)).toBeGreaterThan(committedEnd)

    // Another instance takes the mirror's partitions over (kafka-mirror-host.ts reloadMirrorTopics: claimed at once).
    const taker = await instance()
    await taker.host.reloadMirrorTopics([topic])
    hold.on = false
    hold.release()
    expect(await paused).toBe('INVALID_PRODUCER_EPOCH')

    // What any reader sees: the data and the state record of the first append only, matching each other.
    const reader = await instance()
    expect(await committedKeys(reader, topic)).toEqual(keys(0, 30))
    expect((await reader.host.describePartition(tp)).logEndOffset).toBe(30)

    // The paused owner writes nothing more (it never initialises the id again by itself).
    await expect(owner.host.appendMirroredBatches(tp, sourceBatches(30, 3))).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })

    // The new owner mirrors the same source batches once, after the aborted ones.
    expect(await taker.host.appendMirroredBatches(tp, sourceBatches(30, 3))).toMatchObject({ logEndOffset: 60 })
    expect(await committedKeys(reader, topic)).toEqual(keys(0, 60))
    const fresh = await instance()
    expect((await fresh.host.describePartition(tp)).logEndOffset).toBe(60)
    expect(await taker.host.appendMirroredBatches(tp, sourceBatches(60, 1))).toMatchObject({ logEndOffset: 70 })
    expect(await committedKeys(reader, topic)).toEqual(keys(0, 70))
  })

  it('a writer woken after the takeover, its next transaction opened ahead and refused, never claims the partition back', async () => {
    // The SIGSTOP case of ha-takeover.integration.test.ts, 1 run in 8: the woken instance's next append opened its
    // transaction ahead (AddPartitionsToTxn, refused: fenced), aborted it (refused too) and dropped its producer without
    // noting the fence; it then took the new owner's copies of the same source batches for its own late answers, found
    // the log end one past them (the new owner's COMMIT marker), judged the topic written by another client and
    // persisted that verdict through a new producer, whose InitProducerId took the partition back from its owner. The
    // owner was fenced, and whoever adopted the mirror next read the verdict and refused every append (TOPIC_READ_ONLY).
    const topic = `atomic-woken-${RUN}`
    const tp = { topic, partition: 0 }
    const owner = await instance()
    await owner.host.createMirrorTopic({ name: topic, topicId: 'AtomicWokenTopicId0000', partitions: 1, mirror: `atomic-m-woken-${RUN}` })
    expect(await owner.host.appendMirroredBatches(tp, sourceBatches(0, 3))).toMatchObject({ logEndOffset: 30 })

    const taker = await instance()
    await taker.host.reloadMirrorTopics([topic])
    expect(await taker.host.appendMirroredBatches(tp, sourceBatches(30, 3))).toMatchObject({ logEndOffset: 60 })

    // The old owner wakes with the same source batches in hand: refused as fenced, writing nothing.
    await expect(owner.host.appendMirroredBatches(tp, sourceBatches(30, 3))).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })
    // The new owner is not fenced back, and what every reader gets of the partition carries no verdict of the zombie.
    expect(await taker.host.appendMirroredBatches(tp, sourceBatches(60, 1))).toMatchObject({ logEndOffset: 70 })
    const reader = await instance()
    expect(await committedKeys(reader, topic)).toEqual(keys(0, 70))
    expect((await reader.host.describePartition(tp)).logEndOffset).toBe(70)
    expect(reader.host.emulationNotes(tp)?.notes.map((note) => note.code)).not.toContain('READ_ONLY_VIOLATED')
  })
})
