import 'server-only'
import { PartitionLabels, SampleColumns, type CollectedFamily, type ColumnFamily, type MetricFamily } from '@/server/observability/metrics'
import { TimeSlice } from '@/server/util/cooperative'
import type { EmbeddedCluster } from './embedded/embedded-cluster'
import type { TopicDescription } from './ports'

/** A cluster of the registry as its gauges see it: embedded (`cluster`), or Kafka (connected or not). */
export interface MeasuredCluster {
  name: string
  cluster: EmbeddedCluster | null
  kafka?: unknown
}

export interface ClusterMetricsOptions {
  /** The per-partition gauges of embedded clusters (MIRRORBOARD_METRICS_CLUSTER_PARTITIONS); on unless false. */
  partitions?: boolean
}

/**
 * The cluster registry's gauges for GET /api/metrics; the engine adds the mirror families of API.md through
 * its own collector. An embedded cluster's partitions are described a topic at a time, the event loop given
 * back between topics when the slice is used up: describing 10,000 partitions at once froze it for tens of
 * ms per cluster (`npm run bench -- metrics`). Their label text is kept between scrapes (PartitionLabels).
 */
export class ClusterMetrics {
  private readonly labels = new PartitionLabels('cluster')

  async collect(clusters: Iterable<MeasuredCluster>, options: ClusterMetricsOptions = {}): Promise<CollectedFamily[]> {
    const family = (name: string, help: string): MetricFamily => ({ name, help, type: 'gauge', samples: [] })
    const count = family('mirrorboard_clusters', 'Clusters the app manages.')
    const up = family('mirrorboard_cluster_up', 'Whether the cluster is open (1) or could not be opened (0).')
    const brokers = family('mirrorboard_cluster_brokers', 'Brokers of the cluster by state.')
    const topics = family('mirrorboard_cluster_topics', 'Topics of the cluster (internal topics excluded).')
    const partitionFamily = (name: string, help: string): ColumnFamily => ({ name, help, type: 'gauge', samples: new SampleColumns() })
    const partitionFamilies = [
      partitionFamily('mirrorboard_partition_log_end_offset', 'Log end offset of the partition leader.'),
      partitionFamily('mirrorboard_partition_high_watermark', 'High watermark of the partition.'),
      partitionFamily('mirrorboard_partition_log_start_offset', 'Log start offset of the partition.'),
      partitionFamily('mirrorboard_partition_in_sync_replicas', 'Replicas in the ISR of the partition.'),
      partitionFamily('mirrorboard_partition_replicas', 'Replicas assigned to the partition.'),
    ]
    const slice = new TimeSlice(4)
    let total = 0
    for (const { name, cluster, kafka } of clusters) {
      total += 1
      up.samples.push({ labels: { cluster: name }, value: cluster === null && !kafka ? 0 : 1 })
      // A Kafka cluster's own metrics are its brokers' (JMX); only its reachability is ours to report.
      if (cluster === null) continue
      const states = cluster.brokers()
      brokers.samples.push(
        { labels: { cluster: name, state: 'alive' }, value: states.filter((b) => b.alive).length },
        { labels: { cluster: name, state: 'stopped' }, value: states.filter((b) => !b.alive).length },
      )
      let names: string[]
      try {
        names = await cluster.topicNames()
      } catch {
        continue
      }
      topics.samples.push({ labels: { cluster: name }, value: names.length })
      if (options.partitions === false) continue
      const samples = await this.partitionSamples(name, cluster, names, slice)
      samples?.forEach((part, index) => partitionFamilies[index]!.samples.append(part))
    }
    count.samples.push({ value: total })
    this.labels.sweep()
    return options.partitions === false ? [count, up, brokers, topics] : [count, up, brokers, topics, ...partitionFamilies]
  }

  /**
   * The five per-partition gauges of one embedded cluster, in partitionFamilies' order; undefined when the
   * cluster stopped answering meanwhile (its partial figures are dropped, as a failed describe dropped them).
   */
  private async partitionSamples(name: string, cluster: EmbeddedCluster, topicNames: readonly string[], slice: TimeSlice): Promise<SampleColumns[] | undefined> {
    const [logEnd, highWatermark, logStart, inSync, replicas] = [new SampleColumns(), new SampleColumns(), new SampleColumns(), new SampleColumns(), new SampleColumns()]
    for (const topicName of topicNames) {
      const turn = slice.maybeYield()
      if (turn) await turn
      let described: TopicDescription[]
      try {
        described = await cluster.describeTopics([topicName])
      } catch {
        return undefined
      }
      // None when the topic was deleted since the names were read.
      for (const topic of described) {
        for (const p of topic.partitions) {
          const labels = this.labels.of(name, topic.name, p.partition)
          logEnd.push(labels, p.logEndOffset)
          highWatermark.push(labels, p.highWatermark)
          logStart.push(labels, p.logStartOffset)
          inSync.push(labels, p.isr.length)
          replicas.push(labels, p.replicas.length)
        }
      }
    }
    return [logEnd, highWatermark, logStart, inSync, replicas]
  }
}
