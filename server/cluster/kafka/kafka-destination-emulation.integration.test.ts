/**
 * What the Kafka destination emulation does where a native mirror would not need to (DESIGN.md §5), on the
 * real test brokers (`npx tsx scripts/kafka/clusters.ts start`): offsets translated when the source cannot be
 * mirrored from offset 0, group offsets synced through the table, a restarted server resuming from the
 * destination's own state topic, and a write to a read-only mirror topic by a super user detected (cluster b's
 * authorizer refuses other clients by the topic's DENY WRITE ACL; super users bypass it).
 */
import 'server-only'
import { Kafka, logLevel, type Admin } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { decodeBatchRecords, splitBatches } from '@/lib/log/record-batch'
import { errorOf, summarizeBatches } from '../contract/contract'
import type { FetchPartitionResult, TopicPartition } from '../ports'
import { KafkaCluster } from './kafka-cluster'
import { partitionKey, type PartitionEmulation } from './kafka-mirror-state'
import { STATE_TOPIC } from './kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

const RUN = Date.now().toString(36)
const TOPIC = `ke-shifted-${RUN}`
const MIB = 1 << 20

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let source: KafkaCluster
let destination: KafkaCluster
let destinationAdmin: Admin
const tp: TopicPartition = { topic: TOPIC, partition: 0 }

async function fetchFrom(offset: number): Promise<Extract<FetchPartitionResult, { ok: true }>> {
  const [result] = await source.source.fetch([{ ...tp, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
  if (!result?.ok) throw new Error(`fetch failed: ${JSON.stringify(result)}`)
  return result
}

/** The latest record under `key` on the destination's state topic (what a restarted server reads). */
async function stateRecord(key: string): Promise<PartitionEmulation> {
  let latest: PartitionEmulation | null = null
  for (let offset = 0; ; ) {
    const page = await destination.readRecords(STATE_TOPIC, 0, { fromOffset: offset, limit: 500, isolation: 'read_committed' })
    for (const record of page.records) if (record.type === 'DATA' && record.key === key && record.value !== null) latest = JSON.parse(record.value) as PartitionEmulation
    const last = page.records.at(-1)
    if (!last || last.offset + 1 >= page.highWatermark) break
    offset = last.offset + 1
  }
  if (!latest) throw new Error(`no state record ${key}`)
  return latest
}

describe('Kafka destination emulation', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-emulation-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-emulation-b')
    await sourceClient.forget(['ke-'])
    await destinationClient.forget(['ke-', STATE_TOPIC])
    source = await KafkaCluster.open('kafka-a', { bootstrapServers: [brokers.a.bootstrap] })
    destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [brokers.b.bootstrap] })
    destinationAdmin = new Kafka({ clientId: 'kafka-emulation-admin', brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await destinationAdmin.connect()
  })
  afterAll(async () => {
    await destinationAdmin?.disconnect()
    await source?.close()
    await destination?.close()
    await sourceClient?.close()
    await destinationClient?.close()
  })

  it('translates offsets when the source log starts above 0, shows the table, and syncs group offsets through it', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: 1 })
    for (const value of ['a', 'b', 'c']) await sourceClient.produce(tp, [{ value }])
    await sourceClient.deleteRecords(tp, 2)
    await sourceClient.produce(tp, [{ key: 'd', value: 'd' }, { key: 'e', value: 'e' }])
    const [described] = await source.source.describeTopics([TOPIC])
    const { host } = destination
    await host.createMirrorTopic({ name: TOPIC, topicId: described!.topicId, partitions: 1, mirror: 'shifted' })
    expect(await host.truncateFullyAndStartAt(tp, 2)).toEqual({ removedRecords: 0 })
    expect(await host.appendMirroredBatches(tp, (await fetchFrom(2)).records)).toMatchObject({ logEndOffset: 5, highWatermark: 5 })
    expect(await host.describePartition(tp)).toMatchObject({ logStartOffset: 2, highWatermark: 5, logEndOffset: 5 })
    // The broker holds source 2–4 at its 0–2.
    const broker = await destination.source.describePartition(tp)
    expect(broker).toMatchObject({ logStartOffset: 0, highWatermark: 3 })
    const notes = host.emulationNotes(tp)!
    expect(notes.notes.map((n) => n.code)).toContain('OFFSETS_TRANSLATED')
    expect(notes.offsetTranslation).toEqual([{ sourceOffset: 2, destinationOffset: 0 }])

    expect(await host.commitSyncedGroupOffset(`ke-group-${RUN}`, tp, 4)).toBe(true)
    const [committed] = await destinationAdmin.fetchOffsets({ groupId: `ke-group-${RUN}`, topics: [TOPIC] })
    expect(committed!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '2' })])
    expect((await host.listGroupOffsets()).find((g) => g.groupId === `ke-group-${RUN}`)?.offsets).toEqual([expect.objectContaining({ ...tp, offset: 4 })])
    // A client cannot truncate a Kafka log: the engine is told so, with the reason.
    expect(await errorOf(() => host.truncateTo(tp, 3))).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('rebuild') })
  })

  it('resumes after a server restart from the state topic on the destination cluster', async () => {
    await destination.close()
    destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [brokers.b.bootstrap] })
    const { host } = destination
    expect(await host.describePartition(tp)).toMatchObject({ logStartOffset: 2, logEndOffset: 5 })
    expect((await host.describeTopics([TOPIC]))[0]).toMatchObject({ readOnly: true, mirror: { name: 'shifted' } })
    await sourceClient.produce(tp, [{ value: 'f' }])
    expect(await host.appendMirroredBatches(tp, (await fetchFrom(5)).records)).toMatchObject({ logEndOffset: 6 })
    expect(await destination.source.describePartition(tp)).toMatchObject({ highWatermark: 4 })
    expect(destination.host.emulationNotes(tp)!.offsetTranslation).toEqual([{ sourceOffset: 2, destinationOffset: 0 }])
  })

  it('after a restart, aborts the destination transaction the stopped server left open, carries its records into a new one, and the source COMMIT commits them all, also after a crash in the middle of that carry', async () => {
    const orphan: TopicPartition = { topic: `ke-orphan-${RUN}`, partition: 0 }
    await sourceClient.createTopic(orphan.topic, { partitions: 1 })
    const transaction = await sourceClient.transactionalProducer(`ke-orphan-${RUN}`)
    await transaction.send(orphan, [{ value: 'before the restart' }])
    const [described] = await source.source.describeTopics([orphan.topic])
    await destination.host.createMirrorTopic({ name: orphan.topic, topicId: described!.topicId, partitions: 1, mirror: 'orphans' })
    const fetch = async (offset: number) => {
      const [result] = await source.source.fetch([{ ...orphan, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
      if (!result?.ok) throw new Error(`fetch failed: ${JSON.stringify(result)}`)
      return result.records
    }
    const brokerRecords = async () => {
      const [result] = await destination.source.fetch([{ ...orphan, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
      if (!result?.ok) throw new Error('destination fetch failed')
      return result.records
    }
    const onBroker = async () => summarizeBatches(await brokerRecords())
    await destination.host.appendMirroredBatches(orphan, await fetch(0))
    expect((await destination.host.openTransactions(orphan)).map((t) => t.producerId)).toEqual([transaction.producerId])

    // The server stops with the source transaction open: the restarted one aborts the destination transaction and
    // produces its record again into a new one, after the ABORT marker.
    await destination.close()
    destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [brokers.b.bootstrap] })
    expect((await destination.host.describePartition(orphan)).logEndOffset).toBe(1)
    expect((await onBroker()).map((b) => [b.baseOffset, b.type, b.transactional])).toEqual([
      [0, 'DATA', true],
      [1, 'ABORT', true],
      [2, 'DATA', true],
    ])
    expect(destination.host.emulationNotes(orphan)!.notes.map((n) => n.message).join(' ')).toContain('produced its 1 records again into a new destination transaction (destination offsets 2–2')

    // A crash in the middle of that carry: the carried copy was produced (offset 2), the state still says what the
    // recovery persisted before producing it. The next server aborts that copy and carries the record again.
    const original = splitBatches(await brokerRecords())[0]!.header
    const stateKey = partitionKey(orphan.topic, 0)
    const latest = await stateRecord(stateKey)
    const interrupted = {
      ...latest,
      destinationLogEndOffset: 2,
      translation: [{ sourceOffset: 1, destinationOffset: 2 }],
      openTransactions: [{ producerId: transaction.producerId, producerEpoch: latest.openTransactions[0]!.producerEpoch, firstOffset: 0, carrying: { from: 0, to: 1, producerId: original.producerId, producerEpoch: original.producerEpoch } }],
    }
    await destination.close()
    await destinationClient.produce({ topic: STATE_TOPIC, partition: 0 }, [{ key: stateKey, value: JSON.stringify(interrupted) }])
    destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [brokers.b.bootstrap] })
    expect((await destination.host.describePartition(orphan)).logEndOffset).toBe(1)
    expect((await onBroker()).map((b) => [b.baseOffset, b.type])).toEqual([
      [0, 'DATA'],
      [1, 'ABORT'],
      [2, 'DATA'],
      [3, 'ABORT'],
      [4, 'DATA'],
    ])

    // The source goes on and commits: the destination commits every record of the transaction, each once.
    await transaction.send(orphan, [{ value: 'after the restart' }])
    await transaction.commit()
    expect(await destination.host.appendMirroredBatches(orphan, await fetch(1))).toMatchObject({ logEndOffset: 3 })
    expect(await destination.host.openTransactions(orphan)).toEqual([])
    expect((await onBroker()).map((b) => [b.baseOffset, b.type]).slice(5)).toEqual([
      [5, 'DATA'],
      [6, 'COMMIT'],
    ])
    const committed = await destination.readRecords(orphan.topic, 0, { fromOffset: 0, limit: 100, isolation: 'read_committed' })
    expect(committed.records.filter((r) => r.type === 'DATA').map((r) => r.value)).toEqual(['before the restart', 'after the restart'])
    const notes = destination.host.emulationNotes(orphan)!
    expect(notes.offsetTranslation).toEqual([{ sourceOffset: 1, destinationOffset: 5 }])
  })

  it('leaves alone an open destination transaction written under another host\'s transactional ids: a host of another name looking at the cluster carries nothing of it', async () => {
    const foreign: TopicPartition = { topic: `ke-foreign-${RUN}`, partition: 0 }
    await sourceClient.createTopic(foreign.topic, { partitions: 1 })
    const transaction = await sourceClient.transactionalProducer(`ke-foreign-${RUN}`)
    await transaction.send(foreign, [{ value: 'held' }])
    const [described] = await source.source.describeTopics([foreign.topic])
    await destination.host.createMirrorTopic({ name: foreign.topic, topicId: described!.topicId, partitions: 1, mirror: 'foreign' })
    const fetch = async (offset: number) => {
      const [result] = await source.source.fetch([{ ...foreign, fetchOffset: offset, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
      if (!result?.ok) throw new Error(`fetch failed: ${JSON.stringify(result)}`)
      return result.records
    }
    await destination.host.appendMirroredBatches(foreign, await fetch(0))
    // Another name, so other transactional ids: its claim at load does not end this host's transaction.
    const observer = await KafkaCluster.open('kafka-b-observer', { bootstrapServers: [brokers.b.bootstrap] })
    try {
      expect((await observer.host.describePartition(foreign)).logEndOffset).toBe(1)
    } finally {
      await observer.close()
    }
    const [onBroker] = await destination.source.fetch([{ ...foreign, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
    if (!onBroker?.ok) throw new Error('destination fetch failed')
    expect(summarizeBatches(onBroker.records).map((b) => [b.baseOffset, b.type])).toEqual([[0, 'DATA']])
    // The writer goes on: the source COMMIT commits its own transaction, the record once.
    await transaction.commit()
    expect(await destination.host.appendMirroredBatches(foreign, await fetch(1))).toMatchObject({ logEndOffset: 2 })
    const committed = await destination.readRecords(foreign.topic, 0, { fromOffset: 0, limit: 100, isolation: 'read_committed' })
    expect(committed.records.filter((r) => r.type === 'DATA').map((r) => r.value)).toEqual(['held'])
  })

  it('keeps a batch the broker wrote whose answer was lost, instead of producing it twice', async () => {
    await sourceClient.produce(tp, [{ key: 'g', value: 'g' }, { key: 'h', value: 'h' }])
    const fetched = await fetchFrom(6)
    // What the dead server's produce left on the broker: the same records, timestamps included, unacknowledged.
    const decoded = decodeBatchRecords(fetched.records)
    const producer = new Kafka({ clientId: `ke-lost-${RUN}`, brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).producer({ allowAutoTopicCreation: false })
    await producer.connect()
    await producer.send({ topic: TOPIC, acks: -1, messages: decoded.map((r) => ({ partition: 0, key: Buffer.from(r.key!), value: Buffer.from(r.value!), timestamp: String(r.timestamp) })) })
    await producer.disconnect()
    expect(await destination.host.appendMirroredBatches(tp, fetched.records)).toMatchObject({ logEndOffset: 8 })
    expect(await destination.source.describePartition(tp)).toMatchObject({ highWatermark: 6 })
    expect(destination.host.emulationNotes(tp)!.notes.map((n) => n.message).join(' ')).toContain('source batches 6–7 were already on the broker')
  })

  it("detects a super user's write to the read-only mirror topic and refuses to mirror on top of it", async () => {
    await destinationClient.produce(tp, [{ value: 'written by someone else' }])
    await sourceClient.produce(tp, [{ value: 'i' }])
    const fetched = await fetchFrom(8)
    const refused = await errorOf(() => destination.host.appendMirroredBatches(tp, fetched.records))
    expect(refused).toMatchObject({ code: 'TOPIC_READ_ONLY', message: expect.stringContaining('a super user bypasses it') })
    expect((await destination.host.describePartition(tp)).logEndOffset).toBe(8)
    expect(destination.host.emulationNotes(tp)!.notes.map((n) => n.code)).toEqual(expect.arrayContaining(['READ_ONLY_ENFORCED', 'READ_ONLY_VIOLATED']))
    expect(destination.host.emulationNotes()!.notes.find((n) => n.code === 'READ_ONLY_ENFORCED')?.message).toContain('refused by ACL')
  })
})
