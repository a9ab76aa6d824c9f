import type { Admin, Kafka } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import type { PartitionDescription, TopicDescription } from '../ports'
import { KafkaTopicAdmin } from './kafka-topic-admin'

/**
 * A create whose leader wait kafkajs gave up on: the broker's metadata cache lagged the controller (seen on a
 * loaded CI machine), so kafkajs reported UNKNOWN_TOPIC_OR_PARTITION for the topic it had just created. The admin
 * below is a fake of kafkajs's Admin port; the describe answers as the broker would once it caught up.
 */
function lagging(describes: Array<TopicDescription | null>, createError: unknown) {
  const admin = { createTopics: () => Promise.reject(createError) } as unknown as Admin
  let calls = 0
  const describe = async (topic: string): Promise<TopicDescription> => {
    const next = describes[Math.min(calls++, describes.length - 1)]
    if (next === null || next === undefined) throw new Error(`no topic ${topic} yet`)
    return next
  }
  return { topicAdmin: new KafkaTopicAdmin(admin, (() => ({})) as unknown as (suffix: string) => Kafka, describe), calls: () => calls }
}

const partition = (leader: number) => ({ partition: 0, leader, leaderEpoch: 0, replicas: [1], isr: [1] }) as unknown as PartitionDescription
const topic = (leader: number): TopicDescription => ({ name: 't', topicId: 'id', replicationFactor: 1, configs: {}, partitions: [partition(leader)], readOnly: false, mirror: null })
const unknownTopic = Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' })

describe('KafkaTopicAdmin.createTopic when the broker lags the controller', () => {
  it('waits for the leaders of the topic the create made, wrapped or not, and answers it', async () => {
    for (const thrown of [unknownTopic, Object.assign(new Error('retrier gave up'), { cause: unknownTopic })]) {
      const { topicAdmin } = lagging([null, topic(-1), topic(1)], thrown)
      await expect(topicAdmin.createTopic({ name: 't', partitions: 1 })).resolves.toMatchObject({ name: 't', partitions: [{ leader: 1 }] })
    }
  })

  it('any other failure of the create is reported at once', async () => {
    const { topicAdmin, calls } = lagging([topic(1)], Object.assign(new Error('not allowed'), { type: 'TOPIC_AUTHORIZATION_FAILED' }))
    await expect(topicAdmin.createTopic({ name: 't', partitions: 1 })).rejects.toMatchObject({ message: /create topic t/ })
    expect(calls()).toBe(0)
  })
})
