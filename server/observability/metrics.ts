import 'server-only'

/**
 * Prometheus exposition (text format 0.0.4). Parts of the app contribute families through collectors: the
 * cluster registry its cluster gauges, the mirroring engine its `mirrorboard_partitions{mirror,state}`,
 * lag and throughput families. Families of the same name from several collectors are merged.
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

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return String(value)
}

export function renderPrometheus(families: readonly MetricFamily[]): string {
  const merged = new Map<string, MetricFamily>()
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`)
    const existing = merged.get(family.name)
    if (existing === undefined) merged.set(family.name, { ...family, samples: [...family.samples] })
    else existing.samples.push(...family.samples)
  }
  const lines: string[] = []
  for (const family of merged.values()) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`)
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels ?? {})
      for (const [label] of labels) if (!LABEL_NAME.test(label)) throw new Error(`invalid label name ${JSON.stringify(label)}`)
      const labelText = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabelValue(String(v))}"`).join(',')}}`
      lines.push(`${family.name}${labelText} ${formatValue(sample.value)}`)
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

export class MetricsRegistry {
  private readonly collectors = new Map<string, MetricsCollector>()

  constructor(private readonly onCollectorError?: (collector: string, error: unknown) => void) {}

  /** Adds (or replaces) the collector registered under `id`; returns its removal. */
  register(id: string, collector: MetricsCollector): () => void {
    this.collectors.set(id, collector)
    return () => {
      if (this.collectors.get(id) === collector) this.collectors.delete(id)
    }
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

  async render(): Promise<string> {
    return renderPrometheus(await this.collect())
  }
}
