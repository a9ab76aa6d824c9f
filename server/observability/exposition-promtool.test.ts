import { describe, expect, it } from 'vitest'
import { MetricsRegistry, PartitionLabels, SampleColumns, type ColumnFamily, type MetricFamily } from './metrics'
import { PROM_CLIENT_LINT_PROBLEMS, promtoolCheckMetrics } from './testing/promtool'

const PARTITIONS = 10_000
const TOPICS = 10

/**
 * A scrape shaped as the server's at 10,000 partitions: the cluster registry's five per-partition gauges for
 * two clusters, the engine's three per-partition mirror families, per-mirror families, prom-client's default
 * metrics and a histogram. The real scrape is checked the same way by `npm run bench -- metrics`.
 */
function wideRegistry(): MetricsRegistry {
  const registry = new MetricsRegistry(undefined, { defaultMetrics: true })
  registry.histogram('mirrorboard_http_request_duration_seconds', 'API requests.', ['method', 'route', 'status'], [0.01, 0.1, 1]).observe({ method: 'GET', route: '/api/v1/mirrors', status: '200' }, 0.02)
  const clusterLabels = new PartitionLabels('cluster')
  const mirrorLabels = new PartitionLabels('mirror')
  registry.register('clusters', () => {
    const names = ['log_end_offset', 'high_watermark', 'log_start_offset', 'in_sync_replicas', 'replicas']
    const families: ColumnFamily[] = names.map((name) => ({ name: `mirrorboard_partition_${name}`, help: `The partition's ${name}.`, type: 'gauge', samples: new SampleColumns() }))
    for (const cluster of ['a', 'b']) {
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const labels = clusterLabels.of(cluster, `wide-${partition % TOPICS}`, Math.floor(partition / TOPICS))
        for (const family of families) family.samples.push(labels, partition * 7)
      }
    }
    clusterLabels.sweep()
    return families
  })
  registry.register('engine', () => {
    const lag: ColumnFamily = { name: 'mirrorboard_partition_offset_lag', help: 'Offset lag.', type: 'gauge', samples: new SampleColumns() }
    const timeLag: ColumnFamily = { name: 'mirrorboard_partition_time_lag_seconds', help: 'Time lag.', type: 'gauge', samples: new SampleColumns() }
    const fetchAge: MetricFamily = { name: 'mirrorboard_partition_last_fetch_age_seconds', help: 'Fetch age.', type: 'gauge', samples: [] }
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const labels = mirrorLabels.of('wide', `wide-${partition % TOPICS}`, Math.floor(partition / TOPICS))
      lag.samples.push(labels, partition % 3)
      timeLag.samples.push(labels, partition / 1000)
      fetchAge.samples.push({ labels, value: 0.25 })
    }
    mirrorLabels.sweep()
    const records: MetricFamily = { name: 'mirrorboard_mirrored_records_total', help: 'Records.', type: 'counter', samples: [{ labels: { mirror: 'wide' }, value: 123 }] }
    return [lag, timeLag, fetchAge, records]
  })
  return registry
}

describe('the exposition at 10,000 partitions', () => {
  it('passes promtool check metrics, scrape after scrape', async () => {
    const registry = wideRegistry()
    for (let scrape = 0; scrape < 2; scrape++) {
      const text = await registry.render()
      expect(text.split('\n').filter((line) => line.startsWith('mirrorboard_partition_')).length).toBe(13 * PARTITIONS)
      const verdict = promtoolCheckMetrics(text)
      // Parsed; the linter's only remarks are on prom-client's own names (status 3 is "lint problems", 1 a parse error).
      expect(verdict).toEqual({ valid: true, status: 3, output: [...PROM_CLIENT_LINT_PROBLEMS] })
    }
  })

  it('a text promtool refuses is refused (the check can fail)', async () => {
    const text = await wideRegistry().render()
    const broken = text.replace('mirrorboard_partition_offset_lag{mirror="wide",topic="wide-0",partition="0"} 0', 'mirrorboard_partition_offset_lag{mirror="wide",topic="wide-0",partition="0"} zero')
    expect(promtoolCheckMetrics(broken)).toMatchObject({ valid: false, status: 1, output: [expect.stringContaining('expected float as value, got "zero"')] })
    const duplicated = `${text}# HELP mirrorboard_partition_replicas Again.\n# TYPE mirrorboard_partition_replicas gauge\n`
    expect(promtoolCheckMetrics(duplicated).valid).toBe(false)
  })
})
