import 'server-only'
import path from 'node:path'
import type { Drill } from '@/lib/api/drills'
import { objectivesOf } from '@/lib/failover/objectives'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { MirrorEngine } from '@/server/engine/engine'
import type { Logger } from '@/server/observability/logger'
import type { MetricsRegistry } from '@/server/observability/metrics'
import { drillMetrics } from './drill-metrics'
import { Drills, type DrillsOptions } from './drills'

/**
 * Builds the drills over the server's engine and clusters (called once by the composition root): an embedded
 * destination is copied from its files, a Kafka one from its broker's log; the cadence objective is the
 * mirror's `config.objectives.drillIntervalDays`; each mirror's cadence goes to the metrics registry
 * (`mirrorboard_drill_*`, what the shipped DrillOverdue rule reads).
 */
export async function createDrills(deps: {
  clusters: ClusterRegistry
  engine: MirrorEngine
  metrics: MetricsRegistry
  dataDir: string
  log: Logger
  /** A drill changed (the live stream's `drill` event carries it). */
  publish: (drill: Drill) => void
  options?: DrillsOptions
}): Promise<Drills> {
  const { clusters, engine, log } = deps
  const drills = await Drills.open(
    path.join(deps.dataDir, 'drills'),
    {
      now: () => Date.now(),
      log: (message, fields) => log.info(message, fields),
      engine,
      destination: (name) => {
        if (clusters.kind(name) === 'kafka') return { kind: 'kafka', reader: clusters.ports(name).source }
        const cluster = clusters.embedded(name)
        return { kind: 'embedded', cluster, reader: cluster }
      },
      source: (name) => clusters.ports(name).source,
      emit: deps.publish,
      intervalDays: (mirror) => objectivesOf(engine.getMirror(mirror).config)?.drillIntervalDays ?? null,
      runningOperation: (mirror, topics) => engine.runningOperation(mirror, topics),
    },
    deps.options,
  )
  deps.metrics.register('drills', () =>
    drillMetrics(
      drills,
      engine.listMirrors().map((mirror) => mirror.name),
    ),
  )
  return drills
}
