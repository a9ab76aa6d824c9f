/**
 * Issue #40's zombie fencing on the destination write path: two instances' producers of one mirror partition
 * (EmulatedProducers with fenced writes, as each instance's Kafka host holds them). Once the instance that took the
 * partition over has written, the old owner's next batch is refused by the partition's leader (its producer epoch
 * was bumped by the new owner's InitProducerId for the same transactional id) and lands nowhere; the old owner
 * never initialises again by itself, so it cannot fence the new owner back. Without fenced writes (one instance,
 * as before issue #40) the old owner's batch would land: the contrast case. Real brokers
 * (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { Kafka, logLevel, type Admin } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeBatch, splitBatches } from '@/lib/log/record-batch'
import { crc32c } from '@/server/storage/crc32c'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import { KafkaConnection, type BrokerChannel } from './connection'
import { EmulatedProducers } from './emulated-producer'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

const RUN = Date.now().toString(36)
let admin: Admin
let client: KafkajsContractClient
const connections: KafkaConnection[] = []
const producers: EmulatedProducers[] = []

/** A source batch of one record as the fetcher hands it over (offset `offset`, CreateTime). */
function sourceBatch(offset: number) {
  const bytes = encodeBatch({ baseOffset: offset, partitionLeaderEpoch: 0, timestamp: 1_700_000_000_000 + offset, records: [{ key: `k${offset}`, value: `v${offset}` }] }, crc32c)
  return { bytes, header: splitBatches(bytes)[0]!.header }
}

async function writer(bootstrap: string, topic: string, fencedWrites: boolean): Promise<(offset: number) => Promise<{ ok: boolean; code?: string }>> {
  const connection = await KafkaConnection.open({ bootstrapServers: [bootstrap] }, `fence-${RUN}-${connections.length}`)
  connections.push(connection)
  const highWatermark = async () => Number((await admin.fetchTopicOffsets(topic))[0]!.high)
  // Both instances name the partition alike: the id prefix is the destination cluster's name, shared by every instance.
  const emulated = new EmulatedProducers((suffix) => connection.client(suffix), (suffix) => connection.channel(suffix), `mirrorboard-fence-${RUN}`, highWatermark, fencedWrites)
  producers.push(emulated)
  const tp = { topic, partition: 0 }
  const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics
  const leader = metadata!.partitions[0]!.leader
  return async (offset) => {
    const { bytes, header } = sourceBatch(offset)
    const outcome = await emulated.startProduce(tp, leader, bytes, header)
    if (outcome.ok) return { ok: true }
    await emulated.recover(tp, outcome)
    return { ok: false, code: outcome.error.code }
  }
}

describe('fenced writes of a mirror partition (issue #40)', () => {
  let bootstrap: string
  beforeAll(async () => {
    bootstrap = getTestClusters().b.bootstrap
    client = await kafkajsContractClient(bootstrap, 'fence-test')
    await client.forget(['fence-'])
    admin = new Kafka({ clientId: `fence-admin-${RUN}`, brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
  })
  afterAll(async () => {
    for (const emulated of producers) await emulated.close()
    for (const connection of connections) await connection.close()
    await client?.forget(['fence-']).catch(() => undefined)
    await admin?.disconnect()
    await client?.close()
  })

  const end = async (topic: string) => Number((await admin.fetchTopicOffsets(topic))[0]!.high)

  it('refuses the old owner’s writes once the new owner has written, and the old owner never fences the new one back', async () => {
    const topic = `fence-on-${RUN}`
    await client.createTopic(topic, { partitions: 1 })
    const oldOwner = await writer(bootstrap, topic, true)
    expect(await oldOwner(0)).toEqual({ ok: true })
    const newOwner = await writer(bootstrap, topic, true)
    expect(await newOwner(1)).toEqual({ ok: true })
    expect(await end(topic)).toBe(2)

    // The zombie wakes up and writes the batch it had in hand.
    expect(await oldOwner(2)).toEqual({ ok: false, code: 'INVALID_PRODUCER_EPOCH' })
    expect(await oldOwner(2)).toEqual({ ok: false, code: 'INVALID_PRODUCER_EPOCH' })
    expect(await end(topic)).toBe(2)
    // The new owner was not fenced back.
    expect(await newOwner(2)).toEqual({ ok: true })
    expect(await end(topic)).toBe(3)
  })

  it('a zombie’s write still in flight when the partition is re-adopted does not leave it fenced for its returning owner', async () => {
    const topic = `fence-readopt-${RUN}`
    await client.createTopic(topic, { partitions: 1 })
    const tp = { topic, partition: 0 }
    const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics
    const leader = metadata!.partitions[0]!.leader
    // The zombie's produce answers are held (as a paused process holds them) until `release`; `answered` says the broker has answered.
    let holding = false
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    let answered: () => void = () => {}
    const brokerAnswered = new Promise<void>((resolve) => (answered = resolve))
    const connection = await KafkaConnection.open({ bootstrapServers: [bootstrap] }, `fence-${RUN}-held`)
    connections.push(connection)
    const held = async (suffix: string): Promise<BrokerChannel> => {
      const channel = await connection.channel(suffix)
      return {
        send: async (nodeId, request) => {
          const hold = holding
          const answer = channel.send(nodeId, request)
          if (!hold) return answer
          await answer.catch(() => undefined)
          answered()
          await released
          return answer
        },
        transactionCoordinator: (transactionalId) => channel.transactionCoordinator(transactionalId),
        close: () => channel.close(),
      }
    }
    const highWatermark = async () => end(topic)
    const returning = new EmulatedProducers((suffix) => connection.client(suffix), held, `mirrorboard-fence-${RUN}`, highWatermark, true)
    producers.push(returning)
    const produce = (emulated: EmulatedProducers, offset: number) => {
      const { bytes, header } = sourceBatch(offset)
      return emulated.startProduce(tp, leader, bytes, header)
    }
    expect((await produce(returning, 0)).ok).toBe(true)
    const other = await writer(bootstrap, topic, true)
    expect(await other(1)).toEqual({ ok: true })

    // The zombie's batch is refused by the broker, its answer still on the way when the group hands the partition
    // back and the host re-adopts it (kafka-mirror-host.ts reloadMirrorTopics: producers dropped, unfenced).
    holding = true
    const zombieWrite = produce(returning, 2)
    await brokerAnswered
    holding = false
    await returning.forget(tp, { idempotent: true })
    returning.unfence(tp)
    release()
    const refused = await zombieWrite
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_PRODUCER_EPOCH' } })
    if (!refused.ok) await returning.recover(tp, refused)
    expect(await end(topic)).toBe(2)

    // Re-adopted, the partition is writable by its returning owner (its new producer fences the other one).
    const again = await produce(returning, 2)
    expect(again.ok ? 'written' : again.error.message).toBe('written')
    expect(await end(topic)).toBe(3)
    expect(await other(3)).toEqual({ ok: false, code: 'INVALID_PRODUCER_EPOCH' })
  })

  it('without fenced writes (one instance, as before), the old writer’s batch lands beside the new one’s', async () => {
    const topic = `fence-off-${RUN}`
    await client.createTopic(topic, { partitions: 1 })
    const oldOwner = await writer(bootstrap, topic, false)
    expect(await oldOwner(0)).toEqual({ ok: true })
    const newOwner = await writer(bootstrap, topic, false)
    expect(await newOwner(1)).toEqual({ ok: true })
    expect(await oldOwner(1)).toEqual({ ok: true })
    expect(await end(topic)).toBe(3)
  })
})
