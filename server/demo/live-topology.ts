import 'server-only'
import { describeTraffic, type TrafficProfile } from '@/lib/demo/traffic'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import type { ClusterRegistry } from '@/server/cluster/registry'
import { DEFAULT_MIRROR_CONFIG, type MirrorEngine } from '@/server/engine/engine'
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

/**
 * The live mirror's settings (KIP-1279.md §7.3). The link from us-east to eu-west is throttled to 20,000 bytes a
 * second (`mirror.replication.throttled.rate`), as an operator caps a WAN link's share: the workloads write about
 * 11 kB/s on average and up to 16 kB/s in the busy hours, so a mirror that keeps up most of the time falls behind
 * in every clickstream burst (about 38 kB/s, at night as at the peak) and drains in 10–35 s after it. Without a cap the lag the
 * engine measures after each round was 0 at every sample on a quiet machine: the engine outruns this traffic by
 * far, so only a limit in bytes gives lag that moves the same way on every machine. Fetches stay small (512
 * bytes a partition, 1 KiB a broker) so a round often leaves records behind even between bursts. Topic configs
 * and group offsets sync every 10 s instead of every minute, so the destination's consumer groups follow visibly.
 */
export const LIVE_MIRROR_CONFIG = {
  'fetch.max.bytes': 512,
  'fetch.response.max.bytes': 1024,
  'mirror.metadata.refresh.interval.ms': 10_000,
  'mirror.replication.throttled.rate': 20_000,
} as const

const LIVE_CONFIG_KEYS = Object.keys(LIVE_MIRROR_CONFIG) as Array<keyof typeof LIVE_MIRROR_CONFIG>

/** Returns what it created or set, for the log. */
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
  const mirror = engine.listMirrors().find((candidate) => candidate.name === LIVE.mirror)
  if (mirror) {
    // A data dir from before a setting has the engine's default for it and gets the demo's; a setting an
    // operator changed keeps theirs.
    const missing = LIVE_CONFIG_KEYS.filter((key) => mirror.config[key] === DEFAULT_MIRROR_CONFIG[key] && mirror.config[key] !== LIVE_MIRROR_CONFIG[key])
    if (missing.length > 0) {
      await engine.updateMirrorConfig(LIVE.mirror, Object.fromEntries(missing.map((key) => [key, LIVE_MIRROR_CONFIG[key]])))
      created.push(`${missing.join(', ')} of ${LIVE.mirror}`)
    }
  } else {
    await engine.createMirror({ name: LIVE.mirror, sourceCluster: LIVE.sourceCluster, destinationCluster: LIVE.destinationCluster, topics: LIVE_TOPICS, config: LIVE_MIRROR_CONFIG })
    // clickstream shows ULE handling after an unclean election; orders and payments show FAILED non-retryable.
    await clusters.embedded(LIVE.destinationCluster).alterTopicConfigs('clickstream', { [MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION]: 'true' })
    created.push(`mirror ${LIVE.mirror}`)
  }
  return created
}

const MINUTE = 60_000
/** A day in ten minutes: slow enough to read on the chart, quick enough that a visitor sees the evening come. */
const DAY_MS = 10 * MINUTE

/**
 * Each topic's traffic (lib/demo/traffic.ts), peaking at its own hour of the compressed day. Clickstream has a
 * campaign burst every minute, four times its set rate for 10 s whatever the hour: more than the throttled link carries and, in the
 * busy hours, more than its consumer group reads, so the mirror and the group fall behind and catch up. Every
 * minute, so a visitor sees one within the first minute whenever they open the page.
 */
export const LIVE_TRAFFIC = {
  orders: { dayMs: DAY_MS, swing: 0.5, peakAt: 0.3, burst: null },
  payments: { dayMs: DAY_MS, swing: 0.5, peakAt: 0.35, burst: null },
  clickstream: { dayMs: DAY_MS, swing: 0.4, peakAt: 0.25, burst: { everyMs: MINUTE, lastsMs: 10_000, factor: 4 } },
} as const satisfies Record<string, TrafficProfile>

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
      traffic: LIVE_TRAFFIC.orders,
      group: null,
      description: `Three transactional producers: most transactions commit, some abort, some stay open for 3–10 s before they commit. ${describeTraffic(LIVE_TRAFFIC.orders)}`,
      client: new TransactionalWriter(source, 'orders', { transactionalIds: ['orders-writer-1', 'orders-writer-2', 'orders-writer-3'] }),
    },
    {
      name: 'payments-idempotent',
      cluster,
      topic: 'payments',
      kind: 'idempotent',
      ratePerSecond: 10,
      traffic: LIVE_TRAFFIC.payments,
      group: null,
      description: `An idempotent producer (producer id and sequence numbers, acks=all) writing payments keyed by account. ${describeTraffic(LIVE_TRAFFIC.payments)}`,
      client: new IdempotentWriter(source, 'payments'),
    },
    {
      name: 'clickstream-plain',
      cluster,
      topic: 'clickstream',
      kind: 'plain',
      ratePerSecond: 120,
      traffic: LIVE_TRAFFIC.clickstream,
      group: null,
      description: `High-volume click events written without a producer id, acks=1. ${describeTraffic(LIVE_TRAFFIC.clickstream)}`,
      client: new PlainWriter(source, 'clickstream'),
    },
    {
      name: 'billing-consumer',
      cluster,
      topic: 'orders',
      kind: 'consumer',
      ratePerSecond: 40,
      traffic: null,
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
      traffic: null,
      group: 'fraud-check',
      description: 'Consumer group fraud-check reads payments and commits its position every second.',
      client: new GroupConsumer(source, 'payments', 'fraud-check'),
    },
    {
      name: 'analytics-consumer',
      cluster,
      topic: 'clickstream',
      kind: 'consumer',
      ratePerSecond: 300,
      traffic: null,
      group: 'analytics',
      description: 'Consumer group analytics reads click events and commits its position every second: it keeps up with the day, not with a burst in the busy hours.',
      client: new GroupConsumer(source, 'clickstream', 'analytics'),
    },
  ]
}
