import 'server-only'
import { kipStateGauge } from '@/lib/mirror/kip-metric-names'
import { STATE_METADATA } from '@/lib/mirror/state-metadata'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'
import { PartitionLabels, SampleColumns, type CollectedFamily, type ColumnFamily, type MetricFamily } from '@/server/observability/metrics'
import type { MirrorEngine } from './engine'
import { failedOperations } from './mirror-alert-figures'
import type { PartitionFigures } from './queries/mirror-figures'
import type { SyncErrorKind } from './state/engine-mirror'

/** Each kind of failed sync, and the prototype's meter for it (KIP-1279.md §8) where it has one. */
const SYNC_ERROR_KINDS: ReadonlyArray<readonly [SyncErrorKind, string | null]> = [
  ['sourceUnreachable', 'TopicMetadataRefreshError'],
  ['topicConfigSync', 'TopicConfigSyncError'],
  ['groupOffsetSync', 'ConsumerGroupOffsetSyncError'],
  ['topicStart', null],
  ['other', null],
]

/** The per-state gauges of the prototype, in state order, as our help text names them. */
const KIP_STATE_GAUGES = MIRROR_PARTITION_STATES.flatMap((state) => {
  const gauge = kipStateGauge(state)
  return gauge === null ? [] : [STATE_METADATA[state].kipName === state ? gauge : `${gauge} (${state})`]
}).join(', ')

function family(name: string, help: string, type: MetricFamily['type'] = 'gauge'): MetricFamily {
  return { name, help, type, samples: [] }
}

/** A per-partition family: 10,000 samples and more, kept in columns (exposition.ts says why). */
function partitionFamily(name: string, help: string): ColumnFamily {
  return { name, help, type: 'gauge', samples: new SampleColumns() }
}

/**
 * The engine's metric families, from the figures the alert rules read too (engine.mirrorFigures), so a
 * scrape and a built-in rule never disagree. Per-partition lag series only for MIRRORING partitions with a
 * figure: exact, or a lower bound while the source is silent (`mirrorboard_mirror_lag_known` 0); an absent
 * series is "not known", never 0. `labels` keeps the partitions' label text between scrapes (mirrorMetricsCollector).
 */
export function mirrorMetrics(engine: MirrorEngine, labels = new PartitionLabels('mirror')): CollectedFamily[] {
  const states = family('mirrorboard_partitions', `Mirror partitions per state, by our state names; KIP-1279's gauges: ${KIP_STATE_GAUGES}.`)
  const failedPartitions = family('mirrorboard_failed_partitions', "FAILED mirror partitions, retrying or not (KIP-1279: the MirrorReplica fetcher manager's FailedPartitionsCount).")
  const maxLag = family(
    'mirrorboard_mirror_max_offset_lag',
    "Largest offset lag over the mirror's MIRRORING partitions, the last known figure while a source is silent (KIP-1279: the MirrorReplica fetcher manager's MaxLag); absent when none is known.",
  )
  const offsetLag = partitionFamily('mirrorboard_partition_offset_lag', 'Source high watermark minus destination high watermark (MIRRORING partitions; the last known figure while the source is silent).')
  const timeLag = partitionFamily('mirrorboard_partition_time_lag_seconds', 'Age of the oldest source record not yet mirrored (MIRRORING partitions; a lower bound that keeps growing while the source is silent).')
  const fetchAge = partitionFamily('mirrorboard_partition_last_fetch_age_seconds', 'Seconds since the MIRRORING partition last fetched from its source (or entered MIRRORING).')
  const records = family('mirrorboard_mirrored_records_total', 'Records appended to destinations since the server started.', 'counter')
  const bytes = family('mirrorboard_mirrored_bytes_total', 'Bytes appended to destinations since the server started.', 'counter')
  const rpoSeconds = family('mirrorboard_mirror_rpo_seconds', 'Recovery point now: age of the oldest record not yet mirrored, over the partitions the mirror protects (a lower bound while rpo_known is 0).')
  const rpoRecords = family('mirrorboard_mirror_rpo_records', 'Recovery point now: records a failover would lose, over the partitions the mirror protects (a lower bound while rpo_known is 0).')
  const lagKnown = family('mirrorboard_mirror_lag_known', 'Whether every MIRRORING partition of the mirror has a current lag (1), or its source went silent and the lag series are lower bounds (0).')
  const rpoObjectiveRecords = family('mirrorboard_mirror_rpo_objective_records', "The mirror's recovery-point objective in records (config.objectives.rpoRecords); absent when it sets none.")
  const rpoObjectiveSeconds = family('mirrorboard_mirror_rpo_objective_seconds', "The mirror's recovery-point objective in seconds (config.objectives.rpoSeconds); absent when it sets none.")
  const rpoKnown = family('mirrorboard_mirror_rpo_known', 'Whether every partition the mirror protects is MIRRORING with a source that answered (1), or the RPO figures are lower bounds (0).')
  const syncErrors = family(
    'mirrorboard_sync_errors_total',
    `Failed periodic syncs of the mirror since the server started, by kind (KIP-1279's meters: ${SYNC_ERROR_KINDS.flatMap(([kind, meter]) => (meter === null ? [] : [`${kind} = ${meter}`])).join(', ')}; share group offsets and ACLs are not synced).`,
    'counter',
  )
  const operationFailed = family('mirrorboard_operation_failed', "1 for a mirror whose newest finished operation failed (labelled with the operation); absent otherwise.")
  const failed = failedOperations(engine)
  for (const definition of engine.listMirrors()) {
    const mirror = definition.name
    const partitions: PartitionFigures[] = []
    const figures = engine.mirrorFigures(mirror, partitions)
    for (const state of MIRROR_PARTITION_STATES) states.samples.push({ labels: { mirror, state }, value: figures.partitionsByState[state] ?? 0 })
    failedPartitions.samples.push({ labels: { mirror }, value: figures.partitionsByState.FAILED ?? 0 })
    if (figures.maxOffsetLag !== null) maxLag.samples.push({ labels: { mirror }, value: figures.maxOffsetLag })
    for (const partition of partitions) {
      const series = labels.of(mirror, partition.topic, partition.partition)
      if (partition.offsetLag !== null) offsetLag.samples.push(series, partition.offsetLag)
      if (partition.timeLagMs !== null) timeLag.samples.push(series, partition.timeLagMs / 1000)
      fetchAge.samples.push(series, partition.fetchAgeMs / 1000)
    }
    records.samples.push({ labels: { mirror }, value: figures.mirroredRecords })
    bytes.samples.push({ labels: { mirror }, value: figures.mirroredBytes })
    if (figures.rpo.records !== null) rpoRecords.samples.push({ labels: { mirror }, value: figures.rpo.records })
    if (figures.rpo.seconds !== null) rpoSeconds.samples.push({ labels: { mirror }, value: figures.rpo.seconds })
    rpoKnown.samples.push({ labels: { mirror }, value: figures.rpo.known ? 1 : 0 })
    if (figures.rpoObjective?.records != null) rpoObjectiveRecords.samples.push({ labels: { mirror }, value: figures.rpoObjective.records })
    if (figures.rpoObjective?.seconds != null) rpoObjectiveSeconds.samples.push({ labels: { mirror }, value: figures.rpoObjective.seconds })
    lagKnown.samples.push({ labels: { mirror }, value: figures.lagKnown ? 1 : 0 })
    const errors = engine.syncErrors(mirror)
    for (const [kind] of SYNC_ERROR_KINDS) syncErrors.samples.push({ labels: { mirror, kind }, value: errors.get(kind) ?? 0 })
    const operation = failed.get(mirror)
    if (operation) operationFailed.samples.push({ labels: { mirror, kind: operation.kind, operation: operation.id }, value: 1 })
  }
  labels.sweep()
  return [states, failedPartitions, offsetLag, maxLag, timeLag, fetchAge, lagKnown, records, bytes, rpoSeconds, rpoRecords, rpoKnown, rpoObjectiveRecords, rpoObjectiveSeconds, syncErrors, operationFailed]
}

/** The engine's collector for the metrics registry: its partitions' label text is written once, not at every scrape. */
export function mirrorMetricsCollector(engine: MirrorEngine): () => CollectedFamily[] {
  const labels = new PartitionLabels('mirror')
  return () => mirrorMetrics(engine, labels)
}
