import 'server-only'
import type { Admin } from 'kafkajs'

/** How long a created topic's leaders are waited for after the broker's metadata said it did not know the topic. */
const LEADER_WAIT_MS = 30_000

/** Whether kafkajs's error is (or wraps, as its retrier does) the broker's UNKNOWN_TOPIC_OR_PARTITION. */
function isUnknownTopic(error: unknown): boolean {
  const { type, cause } = (error ?? {}) as { type?: string; cause?: { type?: string } }
  return type === 'UNKNOWN_TOPIC_OR_PARTITION' || cause?.type === 'UNKNOWN_TOPIC_OR_PARTITION'
}

/**
 * `admin.createTopics` with `waitForLeaders`, except that kafkajs's wait retries LEADER_NOT_AVAILABLE only: a broker
 * whose metadata cache has not caught up with the controller yet (a loaded machine, or a topic of that name deleted a
 * moment before) answers UNKNOWN_TOPIC_OR_PARTITION for a topic the create just made, and the create would be
 * reported failed. The topics exist then; their leaders are waited for here. Resolves as `createTopics` does (false:
 * some already existed); its other errors, TOPIC_ALREADY_EXISTS included, are the caller's.
 */
export async function createTopicsAwaitingLeaders(
  admin: Pick<Admin, 'createTopics' | 'fetchTopicMetadata'>,
  options: Parameters<Admin['createTopics']>[0],
  {
    waitMs = LEADER_WAIT_MS,
    pollMs = 250,
    led = (topics) => leadersByMetadata(admin, topics),
  }: { waitMs?: number; pollMs?: number; /** Whether every partition of the topics has a leader (a failed read: not yet). */ led?: (topics: string[]) => Promise<boolean> } = {},
): Promise<boolean> {
  try {
    return await admin.createTopics({ ...options, waitForLeaders: true })
  } catch (error) {
    if (!isUnknownTopic(error)) throw error
    const topics = options.topics.map(({ topic }) => topic)
    const deadline = Date.now() + waitMs
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, pollMs))
      if (await led(topics).catch(() => false)) return true
      if (Date.now() > deadline) throw error
    }
  }
}

async function leadersByMetadata(admin: Pick<Admin, 'fetchTopicMetadata'>, topics: string[]): Promise<boolean> {
  const metadata = await admin.fetchTopicMetadata({ topics })
  return topics.every((topic) => {
    const described = metadata.topics.find(({ name }) => name === topic)
    return described !== undefined && described.partitions.length > 0 && described.partitions.every(({ leader }) => leader >= 0)
  })
}
