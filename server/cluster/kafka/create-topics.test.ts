import { describe, expect, it } from 'vitest'
import type { Admin } from 'kafkajs'
import { createTopicsAwaitingLeaders } from './create-topics'

type FakeAdmin = Pick<Admin, 'createTopics' | 'fetchTopicMetadata'>

/** A fake of the admin port: the create's own wait fails as kafkajs's does on a broker whose metadata lags. */
function laggingAdmin(error: unknown, metadataAnswers: Array<'unknown' | 'no-leader' | 'led'>): FakeAdmin & { metadataReads: number } {
  const fake = {
    metadataReads: 0,
    createTopics: async () => {
      throw error
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      const answer = metadataAnswers[Math.min(fake.metadataReads++, metadataAnswers.length - 1)]
      if (answer === 'unknown') throw Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' })
      return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: answer === 'led' ? 1 : -1, partitionErrorCode: 0, replicas: [1], isr: [1] }] })) }
    },
  }
  return fake as unknown as FakeAdmin & { metadataReads: number }
}

const options = { topics: [{ topic: 'mirrorboard-control-audit', numPartitions: 1 }] }
const unknownTopic = Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' })

describe('createTopicsAwaitingLeaders', () => {
  it('waits for the leaders of a created topic the broker did not know yet, instead of failing the create', async () => {
    const admin = laggingAdmin(unknownTopic, ['unknown', 'no-leader', 'led'])
    await expect(createTopicsAwaitingLeaders(admin, options, { pollMs: 1 })).resolves.toBe(true)
    expect(admin.metadataReads).toBe(3)
  })

  it('recognises the error wrapped by kafkajs retrier', async () => {
    const wrapped = Object.assign(new Error('retries exhausted'), { name: 'KafkaJSNonRetriableError', cause: unknownTopic })
    await expect(createTopicsAwaitingLeaders(laggingAdmin(wrapped, ['led']), options, { pollMs: 1 })).resolves.toBe(true)
  })

  it('gives the original error back when the leaders never come', async () => {
    await expect(createTopicsAwaitingLeaders(laggingAdmin(unknownTopic, ['no-leader']), options, { pollMs: 1, waitMs: 20 })).rejects.toBe(unknownTopic)
  })

  it('leaves every other error to the caller, without reading metadata', async () => {
    const exists = Object.assign(new Error('Topic with this name already exists'), { type: 'TOPIC_ALREADY_EXISTS' })
    const admin = laggingAdmin(exists, ['led'])
    await expect(createTopicsAwaitingLeaders(admin, options, { pollMs: 1 })).rejects.toBe(exists)
    expect(admin.metadataReads).toBe(0)
  })
})
