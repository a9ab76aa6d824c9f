import { Gauge, Registry, type MetricObjectWithValues, type MetricType, type MetricValue } from 'prom-client'
import { LabelText, SampleColumns, type CollectedFamily, type Labels, type MetricFamily, type MetricSample } from '../exposition'

/**
 * Collected families written by prom-client's registry next to its own metrics, the way GET /api/metrics
 * wrote them before exposition.ts took over: the reference the exposition is compared with in tests, and the
 * baseline `npm run bench -- metrics` measures a scrape against in the same run.
 */
export async function promClientExposition(own: Registry, families: readonly CollectedFamily[]): Promise<string> {
  const merged = new Map<string, PromClientFamily>()
  for (const family of families) {
    const existing = merged.get(family.name)
    const samples = family.samples instanceof SampleColumns ? rowsOf(family.samples) : family.samples
    if (existing === undefined) merged.set(family.name, new PromClientFamily(family.name, family.help, family.type, [...samples]))
    else for (const sample of samples) existing.samples.push(sample)
  }
  const collected = new Registry()
  for (const metric of merged.values()) collected.registerMetric(metric)
  return Registry.merge([own, collected]).metrics()
}

/** The collected family as a prom-client metric, its samples handed to the registry as they are. */
class PromClientFamily extends Gauge {
  constructor(
    private readonly familyName: string,
    private readonly familyHelp: string,
    private readonly familyType: MetricFamily['type'],
    readonly samples: MetricSample[],
  ) {
    super({ name: familyName, help: familyHelp, registers: [] })
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    return {
      name: this.familyName,
      help: this.familyHelp,
      // prom-client's typings declare a numeric enum here; its registry writes the string it is given.
      type: this.familyType as unknown as MetricType,
      aggregator: 'sum',
      collect: () => undefined,
      values: this.samples.map((sample) => ({ labels: labelsOf(sample.labels), value: sample.value })),
    }
  }
}

function rowsOf(columns: SampleColumns): MetricSample[] {
  return columns.labels.map((labels, index) => ({ labels, value: columns.values[index]! }))
}

// Label text read back into the object prom-client wants, once per label set (the old collectors made one per sample).
const parsed = new WeakMap<LabelText, Labels>()
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

function labelsOf(labels: MetricSample['labels']): Labels {
  if (labels === undefined) return {}
  if (!(labels instanceof LabelText)) return labels
  let object = parsed.get(labels)
  if (object === undefined) {
    object = {}
    for (const [, name, value] of labels.text.matchAll(LABEL)) object[name!] = value!.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped))
    parsed.set(labels, object)
  }
  return object
}
