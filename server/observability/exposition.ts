import 'server-only'
import { TimeSlice } from '@/server/util/cooperative'

/**
 * The Prometheus text (format 0.0.4) of the families collectors hand in, written here rather than by
 * prom-client's registry. A 10,000-partition mirror on embedded clusters has 130,000 such series, which
 * prom-client wrote in one synchronous pass (label objects escaped and joined per sample, every scrape):
 * 300 ms to well over a second with the event loop frozen (`npm run bench -- metrics`). Here a series'
 * labels are escaped once (LabelText, kept between scrapes by PartitionLabels) and the lines are written
 * in time slices that give the event loop back every few milliseconds.
 */

export type Labels = Record<string, string | number>

export interface MetricSample {
  /** The series' labels: an object (escaped at every scrape), or text escaped once (labelText). */
  labels?: Labels | LabelText
  value: number
}

/**
 * The samples of a high-cardinality family as two arrays, label text and values, rather than an object per
 * sample: a scrape's 130,000 per-partition samples live until their text is written, across turns of the
 * event loop, and each young object alive then is copied by every scavenge (tens of ms a scavenge).
 */
export class SampleColumns {
  readonly labels: LabelText[] = []
  readonly values: number[] = []

  push(labels: LabelText, value: number): void {
    this.labels.push(labels)
    this.values.push(value)
  }

  append(other: SampleColumns): void {
    for (let index = 0; index < other.labels.length; index++) this.push(other.labels[index]!, other.values[index]!)
  }
}

export interface MetricFamily {
  name: string
  help: string
  type: 'gauge' | 'counter'
  samples: MetricSample[]
}

/** A family whose samples are kept in columns (per-partition families). */
export interface ColumnFamily extends Omit<MetricFamily, 'samples'> {
  samples: SampleColumns
}

/** What a collector hands in. */
export type CollectedFamily = MetricFamily | ColumnFamily

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const LABEL_VALUE_ESCAPES = /[\\\n"]/
const HELP_ESCAPES = /[\\\n]/

export function checkMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`)
}

/** A label set written as exposition text, `{name="value",…}`, names checked and values escaped. */
export class LabelText {
  private constructor(readonly text: string) {}

  static of(labels: Labels): LabelText {
    return new LabelText(writeLabels(labels))
  }
}

function writeLabels(labels: Labels): string {
  let text = ''
  for (const name in labels) {
    if (!LABEL_NAME.test(name)) throw new Error(`invalid label name ${JSON.stringify(name)}`)
    const value = String(labels[name])
    text += `${text === '' ? '{' : ','}${name}="${LABEL_VALUE_ESCAPES.test(value) ? escapeLabelValue(value) : value}"`
  }
  return text === '' ? '' : `${text}}`
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}

function escapeHelp(help: string): string {
  return HELP_ESCAPES.test(help) ? help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n') : help
}

function formatValue(value: number): string {
  if (Number.isFinite(value)) return `${value}`
  if (Number.isNaN(value)) return 'NaN'
  return value > 0 ? '+Inf' : '-Inf'
}

/** A family to write: its samples may come in several parts (the same family from several collectors). */
export interface FamilyToWrite {
  name: string
  help: string
  type: MetricFamily['type']
  parts: readonly (readonly MetricSample[] | SampleColumns)[]
}

/** Lines written between two looks at the time slice. */
const LINES_PER_CHECK = 256
/**
 * Lines joined into one chunk: ~160 KB, past V8's largest regular object, so a chunk lives in large-object
 * space, which a scavenge does not copy.
 */
const LINES_PER_CHUNK = 2048

/**
 * The exposition of these families (HELP, TYPE, one line per sample; a blank line between families, as
 * prom-client writes them), yielding to the event loop whenever `slice` is used up.
 */
export async function writeFamilies(families: Iterable<FamilyToWrite>, slice: TimeSlice = new TimeSlice(4)): Promise<string> {
  const chunks: string[] = []
  let lines: string[] = []
  for (const family of families) {
    checkMetricName(family.name)
    if (chunks.length > 0 || lines.length > 0) lines.push('')
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`)
    for (const samples of family.parts) {
      const columns = samples instanceof SampleColumns ? samples : null
      const rows = samples instanceof SampleColumns ? null : samples
      const count = rows === null ? columns!.labels.length : rows.length
      for (let index = 0; index < count; index++) {
        let labels: string
        let value: number
        if (rows === null) {
          labels = columns!.labels[index]!.text
          value = columns!.values[index]!
        } else {
          const sample = rows[index]!
          labels = sample.labels === undefined ? '' : sample.labels instanceof LabelText ? sample.labels.text : writeLabels(sample.labels)
          value = sample.value
        }
        lines.push(`${family.name}${labels} ${formatValue(value)}`)
        if (lines.length % LINES_PER_CHECK !== 0) continue
        if (lines.length >= LINES_PER_CHUNK) {
          chunks.push(lines.join('\n'))
          lines = []
        }
        const turn = slice.maybeYield()
        if (turn) await turn
      }
    }
  }
  if (lines.length > 0) chunks.push(lines.join('\n'))
  return chunks.length === 0 ? '' : `${chunks.join('\n')}\n`
}
