import 'server-only'
import path from 'node:path'
import type { ClusterLinks } from '@/server/cluster/links'
import type { SourceCluster } from '@/server/cluster/ports'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { EventHub } from '@/server/http/events'
import { OperationEventPayloads } from '@/server/http/events-operation-delta'
import type { Logger } from '@/server/http/logger'
import type { MetricFamily, MetricsRegistry } from '@/server/http/metrics'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'
import { toOperation } from './api-adapter'
import { MirrorEngine } from './engine'
import { LagArchive } from './lag/lag-archive'
import { OperationStore } from './operations/operation-store'
import { startSplitBrainWatch } from './failover/split-brain-watch'

/** How often the server's engine runs a tick (retries, syncs, one fetch round per mirror). */
const TICK_INTERVAL_MS = 100
/** Kafka's replica.fetch.wait.max.ms default: a caught-up mirror asks its source twice a second, not ten times. */
const FETCH_MAX_WAIT_MS = 500

/**
 * Builds the engine over the registry's clusters and connects it to the rest of the server: every
 * cluster answers mirror lookups from the engine, engine events go to the SSE hub, mirror metrics to
 * the metrics registry. Called once, from the composition root.
 */
export async function createEngine(deps: {
  clusters: ClusterRegistry
  events: EventHub
  metrics: MetricsRegistry
  log: Logger
  dataDir: string
  /** The links between clusters, when they can be cut (the demo's fault injection); without, always up. */
  links?: ClusterLinks
}): Promise<MirrorEngine> {
  const { clusters, events, metrics, log, links } = deps
  // Clusters that mirror from `source`: their fetchers cross the link a cut at either end breaks.
  const destinationsOf = (source: string) =>
    engine
      .listMirrors()
      .filter((mirror) => mirror.sourceCluster === source)
      .map((mirror) => mirror.destinationCluster)
  const remoteSources = new WeakMap<object, SourceCluster>()
  const remoteSource = (name: string, cluster: SourceCluster): SourceCluster => {
    if (!links) return cluster
    let remote = remoteSources.get(cluster)
    if (!remote) remoteSources.set(cluster, (remote = links.remoteSource(cluster, () => destinationsOf(name))))
    return remote
  }
  const operationStore = await OperationStore.open(path.join(deps.dataDir, 'operations'), {
    onDamagedFile: (info) => log.warn('skipped a damaged operation record', info),
  })
  const engine: MirrorEngine = new MirrorEngine({
    lagArchive: new LagArchive(path.join(deps.dataDir, 'lag')),
    operationStore,
    clusters: {
      names: () => clusters.names(),
      get: (name) => {
        try {
          const cluster = clusters.embedded(name)
          return { source: remoteSource(name, cluster), host: cluster }
        } catch {
          return undefined
        }
      },
    },
    log: (message, fields) => log.info(message, fields),
    fetchMaxWaitMs: FETCH_MAX_WAIT_MS,
  })
  // Operations change as they run: the hub keeps a copy in the API's shape, never the live object; progress
  // events carry only the partitions that changed (server/http/events-operation-delta.ts).
  const operationPayloads = new OperationEventPayloads()
  engine.subscribe((event) => {
    if (event.type === 'mirror') return
    events.publish(event.type, event.type === 'operation' ? operationPayloads.payload(toOperation(event.operation), event.change) : event)
  })
  metrics.register('engine', () => mirrorMetrics(engine))
  await engine.start()
  engine.startBackground(TICK_INTERVAL_MS)
  const splitBrain = startSplitBrainWatch(engine, {
    source: (name) => {
      try {
        return clusters.embedded(name)
      } catch {
        return undefined
      }
    },
  })
  metrics.register('split-brain', () => splitBrain.metrics())
  return engine
}

function mirrorMetrics(engine: MirrorEngine): MetricFamily[] {
  const states: MetricFamily = { name: 'mirrorboard_partitions', help: 'Mirror partitions per state.', type: 'gauge', samples: [] }
  const offsetLag: MetricFamily = { name: 'mirrorboard_partition_offset_lag', help: 'Source high watermark minus destination high watermark.', type: 'gauge', samples: [] }
  const timeLag: MetricFamily = { name: 'mirrorboard_partition_time_lag_seconds', help: 'Age of the oldest source record not yet mirrored.', type: 'gauge', samples: [] }
  const records: MetricFamily = { name: 'mirrorboard_mirrored_records_total', help: 'Records appended to destinations since the server started.', type: 'counter', samples: [] }
  const bytes: MetricFamily = { name: 'mirrorboard_mirrored_bytes_total', help: 'Bytes appended to destinations since the server started.', type: 'counter', samples: [] }
  for (const definition of engine.listMirrors()) {
    const mirror = definition.name
    const summary = engine.mirrorSummary(mirror)
    for (const state of MIRROR_PARTITION_STATES) states.samples.push({ labels: { mirror, state }, value: summary.partitionsByState[state] ?? 0 })
    for (const partition of engine.partitions(mirror)) {
      const labels = { mirror, topic: partition.topic, partition: String(partition.partition) }
      if (partition.offsetLag !== null) offsetLag.samples.push({ labels, value: partition.offsetLag })
      if (partition.timeLagMs !== null) timeLag.samples.push({ labels, value: partition.timeLagMs / 1000 })
    }
    records.samples.push({ labels: { mirror }, value: summary.mirroredRecords })
    bytes.samples.push({ labels: { mirror }, value: summary.mirroredBytes })
  }
  return [states, offsetLag, timeLag, records, bytes]
}
