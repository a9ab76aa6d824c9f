import 'server-only'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { MirrorEngine } from '@/server/engine/engine'
import { GroupConsumer, IdempotentWriter, PlainWriter, TransactionalWriter } from './workload-clients'
import type { WorkloadSpec } from './workloads'

/**
 * The live demo (DESIGN.md §8): `us-east` mirrored to `eu-west` over three topics, each written the way its
 * kind of application writes, and read at the source by a consumer group. `ensureLiveTopology` creates
 * what is missing and leaves what exists alone, so a restart on the same data dir resumes without
 * duplicates, and a crash halfway through the first start is completed by the next one.
 */

export const LIVE = {
  sourceCluster: 'us-east',
  destinationCluster: 'eu-west',
  mirror: 'us-east-to-eu-west',
  topics: [
    { name: 'orders', partitions: 6 },
    { name: 'payments', partitions: 3 },
    { name: 'clickstream', partitions: 12 },
  ],
} as const

export const LIVE_TOPICS = LIVE.topics.map((topic) => topic.name)

/** Returns what it created, for the log. */
export async function ensureLiveTopology(clusters: ClusterRegistry, engine: MirrorEngine): Promise<string[]> {
  const created: string[] = []
  const existing = new Set(clusters.names())
  for (const name of [LIVE.sourceCluster, LIVE.destinationCluster]) {
    if (existing.has(name)) continue
    await clusters.create({ name, kind: 'embedded', brokers: 3 })
    created.push(`cluster ${name}`)
  }
  const source = clusters.embedded(LIVE.sourceCluster)
  const topics = new Set((await source.describeTopics()).map((topic) => topic.name))
  for (const topic of LIVE.topics) {
    if (topics.has(topic.name)) continue
    await source.createTopic({ name: topic.name, partitions: topic.partitions, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } })
    created.push(`topic ${topic.name}`)
  }
  if (!engine.listMirrors().some((mirror) => mirror.name === LIVE.mirror)) {
    await engine.createMirror({ name: LIVE.mirror, sourceCluster: LIVE.sourceCluster, destinationCluster: LIVE.destinationCluster, topics: LIVE_TOPICS })
    // clickstream shows ULE handling after an unclean election; orders and payments show FAILED non-retryable.
    await clusters.embedded(LIVE.destinationCluster).alterTopicConfigs('clickstream', { [MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION]: 'true' })
    created.push(`mirror ${LIVE.mirror}`)
  }
  return created
}

/** The live workloads, at rates that keep lag visibly moving without taking over a shared machine. */
export function liveWorkloads(clusters: ClusterRegistry): WorkloadSpec[] {
  const source = () => clusters.embedded(LIVE.sourceCluster)
  const cluster = LIVE.sourceCluster
  return [
    {
      name: 'orders-transactions',
      cluster,
      topic: 'orders',
      kind: 'transactional',
      ratePerSecond: 20,
      group: null,
      description: 'Three transactional producers: most transactions commit, some abort, some stay open for 3–10 s before they commit.',
      client: new TransactionalWriter(source, 'orders', { transactionalIds: ['orders-writer-1', 'orders-writer-2', 'orders-writer-3'] }),
    },
    {
      name: 'payments-idempotent',
      cluster,
      topic: 'payments',
      kind: 'idempotent',
      ratePerSecond: 10,
      group: null,
      description: 'An idempotent producer (producer id and sequence numbers, acks=all) writing payments keyed by account.',
      client: new IdempotentWriter(source, 'payments'),
    },
    {
      name: 'clickstream-plain',
      cluster,
      topic: 'clickstream',
      kind: 'plain',
      ratePerSecond: 120,
      group: null,
      description: 'High-volume click events written without a producer id, acks=1.',
      client: new PlainWriter(source, 'clickstream'),
    },
    {
      name: 'billing-consumer',
      cluster,
      topic: 'orders',
      kind: 'consumer',
      ratePerSecond: 40,
      group: 'billing',
      description: 'Consumer group billing reads orders (read_committed) and commits its position every second.',
      client: new GroupConsumer(source, 'orders', 'billing'),
    },
    {
      name: 'fraud-check-consumer',
      cluster,
      topic: 'payments',
      kind: 'consumer',
      ratePerSecond: 20,
      group: 'fraud-check',
      description: 'Consumer group fraud-check reads payments and commits its position every second.',
      client: new GroupConsumer(source, 'payments', 'fraud-check'),
    },
    {
      name: 'analytics-consumer',
      cluster,
      topic: 'clickstream',
      kind: 'consumer',
      ratePerSecond: 240,
      group: 'analytics',
      description: 'Consumer group analytics reads click events and commits its position every second.',
      client: new GroupConsumer(source, 'clickstream', 'analytics'),
    },
  ]
}
