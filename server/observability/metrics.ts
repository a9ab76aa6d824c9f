import 'server-only'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricType, type MetricValue } from 'prom-client'

/**
 * The metrics behind GET /api/metrics, on prom-client: its registry writes the exposition (text format
 * 0.0.4), the process and Node.js default metrics come from it, and histograms (HTTP requests, fetches,
 * operations) are its own. Parts of the app that hold state rather than count events contribute families
 * through collectors, asked once per scrape: the cluster registry its cluster gauges, the engine its
 * mirror families (server/engine/queries/mirror-metrics.ts). Families of the same name from several
 * collectors are merged.
 */

export interface MetricSample {
  labels?: Record<string, string | number>
  value: number
}

export interface MetricFamily {
  name: string
  help: string
  type: 'gauge' | 'counter'
  samples: MetricSample[]
}

export type MetricsCollector = () => MetricFamily[] | Promise<MetricFamily[]>

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

function checkFamily(family: MetricFamily): void {
  if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`)
  for (const sample of family.samples) {
    for (const label in sample.labels) if (!LABEL_NAME.test(label)) throw new Error(`invalid label name ${JSON.stringify(label)}`)
  }
}

/**
 * A collector's family as a prom-client metric. Its values are the samples of the last collection, handed
 * to the registry as they are: setting 100,000 partition samples one by one on a Gauge (a label hash each)
 * cost more than the rest of the scrape (`npm run bench -- metrics`).
 */
class CollectedFamily extends Gauge {
  samples: MetricSample[] = []

  constructor(
    private readonly family: Pick<MetricFamily, 'name' | 'help' | 'type'>,
  ) {
    super({ name: family.name, help: family.help, registers: [] })
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    return {
      name: this.family.name,
      help: this.family.help,
      // prom-client's typings declare a numeric enum here; its registry writes the string it is given.
      type: this.family.type as unknown as MetricType,
      aggregator: 'sum',
      collect: () => undefined,
      values: this.samples.map((sample) => ({ labels: sample.labels ?? {}, value: sample.value })),
    }
  }
}

export interface MetricsRegistryOptions {
  /** The process and Node.js metrics of prom-client (the server's registry has them; tests' need not). */
  defaultMetrics?: boolean
}

export class MetricsRegistry {
  readonly registry = new Registry()
  private readonly collectors = new Map<string, MetricsCollector>()
  private readonly collected = new Map<string, CollectedFamily>()
  private rendering: Promise<string> | null = null

  constructor(
    private readonly onCollectorError?: (collector: string, error: unknown) => void,
    options: MetricsRegistryOptions = {},
  ) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry })
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
    return new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] })
  }

  /** A counter of this registry. Asked twice, the same one. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    const existing = this.registry.getSingleMetric(name)
    if (existing instanceof Counter) return existing as Counter<L>
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] })
  }

  /**
   * Every collector's families. A failing collector costs only its own families (for one scrape), and
   * `mirrorboard_scrape_collector_success{collector}` says which one failed.
   */
  async collect(): Promise<MetricFamily[]> {
    const entries = [...this.collectors.entries()]
    const results = await Promise.allSettled(entries.map(async ([, collect]) => collect()))
    const families: MetricFamily[] = []
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
    const merged = new Map<string, MetricFamily>()
    for (const family of families) {
      checkFamily(family)
      const existing = merged.get(family.name)
      if (existing === undefined) merged.set(family.name, { ...family, samples: [...family.samples] })
      else existing.samples.push(...family.samples)
    }
    // A family a collector stopped sending (a failed collector, the last mirror deleted) keeps its HELP and TYPE, without samples.
    for (const metric of this.collected.values()) metric.samples = []
    for (const family of merged.values()) {
      let metric = this.collected.get(family.name)
      if (metric === undefined) {
        metric = new CollectedFamily(family)
        this.registry.registerMetric(metric)
        this.collected.set(family.name, metric)
      }
      metric.samples = family.samples
    }
    return this.registry.metrics()
  }
}

/** Prometheus text of these families alone (tests of a collector). */
export async function renderPrometheus(families: readonly MetricFamily[]): Promise<string> {
  const registry = new MetricsRegistry()
  registry.register('families', () => [...families])
  return registry.render()
}
