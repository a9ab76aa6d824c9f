import 'server-only'
import { readdir } from 'node:fs/promises'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { TimeSlice } from '@/server/util/cooperative'
import { checkMetricName, writeFamilies, type CollectedFamily, type FamilyToWrite, type MetricFamily } from './exposition'

export { LabelText, SampleColumns, type CollectedFamily, type ColumnFamily, type Labels, type MetricFamily, type MetricSample } from './exposition'
export { PartitionLabels } from './partition-labels'

/**
 * The metrics behind GET /api/metrics. prom-client owns what it counts and observes: the process and Node.js
 * default metrics, histograms (HTTP requests, fetches, operations) and counters, written by its registry.
 * Parts of the app that hold state rather than count events contribute families through collectors, asked
 * once per scrape: the cluster registry its cluster gauges, the engine its mirror families
 * (server/engine/mirror-metrics.ts). Those are the high-cardinality ones (130,000 series at 10,000
 * partitions), so their text is written by exposition.ts in time slices rather than by prom-client in one
 * go; families of the same name from several collectors are merged.
 */

export type MetricsCollector = () => CollectedFamily[] | Promise<CollectedFamily[]>

/** Synchronous work between two turns of the event loop while a scrape writes its text. */
const SCRAPE_SLICE_MS = 4

export interface MetricsRegistryOptions {
  /** The process and Node.js metrics of prom-client (the server's registry has them; tests' need not). */
  defaultMetrics?: boolean
}

export class MetricsRegistry {
  readonly registry = new Registry()
  private readonly collectors = new Map<string, MetricsCollector>()
  /** Every family a collector ever sent, in the order first sent: one a collector stops sending keeps its HELP and TYPE. */
  private readonly declared = new Map<string, Pick<MetricFamily, 'name' | 'help' | 'type'>>()
  private rendering: Promise<string> | null = null

  constructor(
    private readonly onCollectorError?: (collector: string, error: unknown) => void,
    options: MetricsRegistryOptions = {},
  ) {
    if (options.defaultMetrics) {
      collectDefaultMetrics({ register: this.registry })
      this.readOpenFdsWithoutBlocking()
    }
  }

  /**
   * prom-client counts open file descriptors with readdirSync('/proc/self/fd'): with embedded clusters open
   * (a file per segment and index of every replica, 20,000 and more at 10,000 partitions) that froze the event
   * loop for 7-35 ms per scrape. The same gauge, read with the asynchronous readdir (the listing happens off the
   * event loop). Minus 1: the descriptor the listing itself used is closed again.
   */
  private readOpenFdsWithoutBlocking(): void {
    const blocking = this.registry.getSingleMetric('process_open_fds')
    if (blocking === undefined) return
    this.registry.removeSingleMetric('process_open_fds')
    new Gauge({
      name: 'process_open_fds',
      help: 'Number of open file descriptors.',
      registers: [this.registry],
      async collect() {
        try {
          this.set((await readdir('/proc/self/fd')).length - 1)
        } catch {
          // Not answered this time: the last count stays, as prom-client's own gauge does.
        }
      },
    })
  }

  get contentType(): string {
    return this.registry.contentType
  }

  /** Adds (or replaces) the collector registered under `id`; returns its removal. */
  register(id: string, collector: MetricsCollector): () => void {
    this.collectors.set(id, collector)
    return () => {
      if (this.collectors.get(id) === collector) this.collectors.delete(id)
    }
  }

  /** A histogram of this registry (observed as things happen, not collected). Asked twice, the same one. */
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
    const existing = this.registry.getSingleMetric(name)
    if (existing instanceof Histogram) return existing as Histogram<L>
    this.refuseCollected(name)
    return new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] })
  }

  /** A counter of this registry. Asked twice, the same one. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    const existing = this.registry.getSingleMetric(name)
    if (existing instanceof Counter) return existing as Counter<L>
    this.refuseCollected(name)
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] })
  }

  /**
   * Every collector's families. A failing collector costs only its own families (for one scrape), and
   * `mirrorboard_scrape_collector_success{collector}` says which one failed.
   */
  async collect(): Promise<CollectedFamily[]> {
    const entries = [...this.collectors.entries()]
    const results = await Promise.allSettled(entries.map(async ([, collect]) => collect()))
    const families: CollectedFamily[] = []
    const success: MetricFamily = {
      name: 'mirrorboard_scrape_collector_success',
      help: 'Whether a metrics collector succeeded in this scrape (1) or failed (0).',
      type: 'gauge',
      samples: [],
    }
    results.forEach((result, index) => {
      const id = entries[index]?.[0] ?? 'unknown'
      success.samples.push({ labels: { collector: id }, value: result.status === 'fulfilled' ? 1 : 0 })
      if (result.status === 'fulfilled') families.push(...result.value)
      else this.onCollectorError?.(id, result.reason)
    })
    return [...families, success]
  }

  /** The exposition of one scrape. Scrapes at the same time share it: the collected samples are one set. */
  render(): Promise<string> {
    this.rendering ??= this.renderOnce().finally(() => {
      this.rendering = null
    })
    return this.rendering
  }

  private async renderOnce(): Promise<string> {
    const families = await this.collect()
    const merged = new Map<string, FamilyToWrite & { parts: CollectedFamily['samples'][] }>()
    for (const family of families) {
      checkMetricName(family.name)
      if (this.registry.getSingleMetric(family.name) !== undefined) throw new Error(`metric ${family.name} is both collected and prom-client's`)
      const existing = merged.get(family.name)
      if (existing === undefined) merged.set(family.name, { name: family.name, help: family.help, type: family.type, parts: [family.samples] })
      else existing.parts.push(family.samples)
      this.declared.set(family.name, { name: family.name, help: family.help, type: family.type })
    }
    const own = await this.registry.metrics()
    const collected = await writeFamilies(
      [...this.declared.values()].map((family) => merged.get(family.name) ?? { ...family, parts: [] }),
      new TimeSlice(SCRAPE_SLICE_MS),
    )
    // prom-client answers a lone newline when it has nothing (a registry without default metrics).
    if (own.trim() === '') return collected
    return collected === '' ? own : `${own}\n${collected}`
  }

  private refuseCollected(name: string): void {
    if (this.declared.has(name)) throw new Error(`metric ${name} is already a collected family`)
  }
}

/** Prometheus text of these families alone (tests of a collector). */
export async function renderPrometheus(families: readonly CollectedFamily[]): Promise<string> {
  const registry = new MetricsRegistry()
  registry.register('families', () => [...families])
  return registry.render()
}
