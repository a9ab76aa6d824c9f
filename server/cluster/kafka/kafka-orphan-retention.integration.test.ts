/**
 * An orphaned destination transaction (its writer stopped with the source transaction open) part of which retention
 * removed from the destination before the recovery could read it back (kafka-mirror-host.ts recoverOrphans): the
 * records not carried into the new transaction are never committed on the destination though the source commits
 * them. They are counted (`recordsLostSince`), so a switchover's loss measure includes them
 * (server/engine/switchover/switchover-phases.ts); before, only the partition's note said so. Real brokers
 * (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import type { TopicPartition } from '../ports'
import { KafkaCluster } from './kafka-cluster'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

const RUN = Date.now().toString(36)
const MIB = 1 << 20

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
const opened: KafkaCluster[] = []

async function open(name: string, bootstrap: string): Promise<KafkaCluster> {
  const cluster = await KafkaCluster.open(name, { bootstrapServers: [bootstrap] })
  opened.push(cluster)
  return cluster
}

describe('an orphaned transaction partly removed by retention before its carry', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-retention-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-retention-b')
    await sourceClient.forget(['kr-'])
    await destinationClient.forget(['kr-'])
  })
  afterAll(async () => {
    for (const cluster of opened) await cluster.close().catch(() => undefined)
    await sourceClient?.forget(['kr-']).catch(() => undefined)
    await destinationClient?.forget(['kr-']).catch(() => undefined)
    await sourceClient?.close()
    await destinationClient?.close()
  })

  it('counts the records retention took as lost, and only those', async () => {
    const tp: TopicPartition = { topic: `kr-orphan-${RUN}`, partition: 0 }
    await sourceClient.createTopic(tp.topic, { partitions: 1 })
    const transaction = await sourceClient.transactionalProducer(`kr-orphan-${RUN}`)
    for (const value of ['first', 'second', 'third']) await transaction.send(tp, [{ value }])
    const source = await open('kafka-a', brokers.a.bootstrap)
    let destination = await open('kafka-b', brokers.b.bootstrap)
    const [described] = await source.source.describeTopics([tp.topic])
    await destination.host.createMirrorTopic({ name: tp.topic, topicId: described!.topicId, partitions: 1, mirror: 'kr-mirror' })
    const [fetched] = await source.source.fetch([{ ...tp, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
    if (!fetched?.ok) throw new Error('source fetch failed')
    await destination.host.appendMirroredBatches(tp, fetched.records)
    expect((await destination.host.openTransactions(tp)).map((t) => t.producerId)).toEqual([transaction.producerId])
    const since = Date.now()
    expect(await destination.host.recordsLostSince(tp, since)).toBe(0)

    // The server stops with the source transaction open; retention removes its first two records on the destination.
    await destination.close()
    await destinationClient.deleteRecords(tp, 2)
    destination = await open('kafka-b', brokers.b.bootstrap)
    // The restarted server aborted the orphan and carried what was left of it (the third record) into a new transaction.
    expect(await destination.host.recordsLostSince(tp, since)).toBe(2)
    expect(destination.host.emulationNotes(tp)!.notes.map((n) => n.message).join(' ')).toContain('produced its 1 records again into a new destination transaction')

    // The source commits: the destination commits the carried record, and the two lost ones stay counted.
    await transaction.send(tp, [{ value: 'fourth' }])
    await transaction.commit()
    const [rest] = await source.source.fetch([{ ...tp, fetchOffset: 3, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
    if (!rest?.ok) throw new Error('source fetch failed')
    await destination.host.appendMirroredBatches(tp, rest.records)
    const committed = await destination.readRecords(tp.topic, 0, { limit: 100, isolation: 'read_committed' })
    expect(committed.records.filter((r) => r.type === 'DATA').map((r) => r.value)).toEqual(['third', 'fourth'])
    expect(await destination.host.recordsLostSince(tp, since)).toBe(2)
    // A switchover that started after the recovery counts none of it.
    expect(await destination.host.recordsLostSince(tp, Date.now() + 1)).toBe(0)
  })
})
