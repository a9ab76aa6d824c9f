import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs'
import { RawFetcher } from '@/scripts/kafka/raw-fetch'
import type { ContractClient, ContractTransaction } from '../../contract/contract'
import type { TopicPartition } from '../../ports'

/**
 * The contract suites' client side on a real Kafka cluster, through plain kafkajs (admin, idempotent and
 * transactional producers, a group consumer) and, to learn what a client cannot be told by kafkajs (its
 * producer id) or to wait for what a broker does after answering (transaction markers), the raw fetch of
 * scripts/kafka/raw-fetch.ts — an implementation independent of the adapter under test.
 */

const MARKER_WAIT_MS = 10_000

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = MARKER_WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface KafkajsContractClient extends ContractClient {
  /** Deletes the topics and groups of earlier runs whose names start with one of `prefixes` (the brokers outlive a run). */
  forget(prefixes: string[]): Promise<void>
  close(): Promise<void>
}

export async function kafkajsContractClient(bootstrap: string, clientId: string): Promise<KafkajsContractClient> {
  const kafka = new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  const raw = await RawFetcher.connect({ brokers: [bootstrap], clientId: `${clientId}-raw` })
  const producers: Producer[] = []
  const consumers: Consumer[] = []
  let idempotent: Producer | undefined

  /** The producer id of the batch at `offset`, read back from the log. */
  async function producerIdAt(tp: TopicPartition, offset: number): Promise<number> {
    const page = await raw.fetch({ ...tp, fetchOffset: BigInt(offset), isolationLevel: 'read_uncommitted' })
    const batch = page.batches.find((b) => b.baseOffset <= BigInt(offset) && b.lastOffset >= BigInt(offset))
    if (!batch) throw new Error(`no batch holds ${tp.topic}-${tp.partition}@${offset}`)
    return Number(batch.producerId)
  }

  /** Waits until the end-transaction marker of `producerId` follows `afterOffset` (EndTxn answers before markers land). */
  async function awaitMarker(tp: TopicPartition, producerId: number, afterOffset: number): Promise<void> {
    await until(`the transaction marker of producer ${producerId} on ${tp.topic}-${tp.partition}`, async () => {
      const page = await raw.fetch({ ...tp, fetchOffset: BigInt(afterOffset + 1), isolationLevel: 'read_uncommitted', maxWaitTimeMs: 0 })
      return page.batches.some((b) => b.isControl && Number(b.producerId) === producerId && b.baseOffset > BigInt(afterOffset)) ? true : undefined
    })
  }

  const client: KafkajsContractClient = {
    async createTopic(name, options) {
      await until(`topic ${name} to be created`, async () => {
        try {
          await admin.createTopics({
            waitForLeaders: true,
            topics: [{ topic: name, numPartitions: options.partitions, replicationFactor: 1, configEntries: Object.entries(options.configs ?? {}).map(([key, value]) => ({ name: key, value })) }],
          })
          return true
        } catch (error) {
          // A topic of an earlier run may still be being deleted.
          if ((error as { type?: string }).type === 'TOPIC_ALREADY_EXISTS') return undefined
          throw error
        }
      })
    },
    async produce(tp, records) {
      if (!idempotent) {
        idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
        await idempotent.connect()
        producers.push(idempotent)
      }
      await idempotent.send({ topic: tp.topic, acks: -1, messages: records.map((r) => ({ partition: tp.partition, key: r.key ?? null, value: r.value })) })
    },
    async transactionalProducer(transactionalId): Promise<ContractTransaction> {
      const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
      await producer.connect()
      producers.push(producer)
      let transaction: Awaited<ReturnType<Producer['transaction']>> | null = null
      let producerId: number | undefined
      const written = new TopicPartitionMap<{ tp: TopicPartition; lastOffset: number }>()
      const end = async (how: 'commit' | 'abort') => {
        if (!transaction) throw new Error('no open transaction')
        await transaction[how]()
        transaction = null
        for (const { tp, lastOffset } of written.values()) await awaitMarker(tp, producerId!, lastOffset)
        written.clear()
      }
      return {
        get producerId(): number {
          if (producerId === undefined) throw new Error('the producer id is learnt from its first batch: send first')
          return producerId
        },
        async send(tp, records) {
          transaction ??= await producer.transaction()
          const [meta] = await transaction.send({ topic: tp.topic, acks: -1, messages: records.map((r) => ({ partition: tp.partition, key: r.key ?? null, value: r.value })) })
          const baseOffset = Number(meta!.baseOffset ?? meta!.offset)
          producerId ??= await producerIdAt(tp, baseOffset)
          written.set(tp, { tp, lastOffset: baseOffset + records.length - 1 })
        },
        commit: () => end('commit'),
        abort: () => end('abort'),
      }
    },
    async deleteRecords(tp, beforeOffset) {
      // kafkajs's admin finds the leader in metadata it must have loaded for this topic first.
      await admin.fetchTopicMetadata({ topics: [tp.topic] })
      await admin.deleteTopicRecords({ topic: tp.topic, partitions: [{ partition: tp.partition, offset: String(beforeOffset) }] })
    },
    async commitGroupOffset(groupId, tp, offset) {
      await admin.setOffsets({ groupId, topic: tp.topic, partitions: [{ partition: tp.partition, offset: String(offset) }] })
    },
    async joinGroup(groupId) {
      const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000, maxWaitTimeInMs: 100, allowAutoTopicCreation: false })
      consumers.push(consumer)
      await consumer.connect()
      const topics = (await admin.listTopics()).filter((t) => !t.startsWith('__'))
      await consumer.subscribe({ topics: topics.slice(0, 1) })
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()))
      await consumer.run({ autoCommit: false, eachMessage: async () => undefined })
      await joined
      return {
        async leave() {
          await consumer.disconnect()
        },
      }
    },
    async forget(prefixes) {
      const matches = (name: string) => prefixes.some((prefix) => name.startsWith(prefix))
      const topics = (await admin.listTopics()).filter(matches)
      if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 })
      await until('old topics to be deleted', async () => ((await admin.listTopics()).some(matches) ? undefined : true))
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter(matches)
      if (groups.length > 0) await admin.deleteGroups(groups)
    },
    async close() {
      await Promise.allSettled([...consumers.map((c) => c.disconnect()), ...producers.map((p) => p.disconnect()), admin.disconnect(), raw.disconnect()])
    },
  }
  return client
}
