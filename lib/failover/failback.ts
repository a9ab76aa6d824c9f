/**
 * The failback wizard's pure parts (UI.md §2): the reverse mirror's name, the totals of its truncation
 * plan, the offset ranges that plan removes from the old source (what the export downloads), one NDJSON
 * line per removed record, and when the failback is done.
 *
 * A failback is a mirror in the other direction: from the failover's destination (the new source) back
 * to its old source. Creating it makes the old source's partitions PREPARING, which truncates each log to
 * `truncateTo` (all of it when `truncateTo` is null), removing `recordsToRemove` records, then mirrors
 * the new source's log so both sides agree offset by offset (DESIGN.md §4).
 */
import { NAME_PATTERN } from '../api/common'
import { TopicPartitionMap } from '../mirror/topic-partition'

export interface TruncationEntryLike {
  readonly topic: string
  readonly partition: number
  readonly truncateTo: number | null
  readonly recordsToRemove: number
  readonly lastMirrorPosition: { readonly epoch: number; readonly offset: number } | null
  /** The old source cannot truncate (a Kafka cluster): its topic is deleted, created again and mirrored back. */
  readonly rebuild?: boolean
}

/** The topics the plan rebuilds instead of truncating, each once, sorted. */
export function rebuiltTopics(entries: readonly TruncationEntryLike[]): string[] {
  return [...new Set(entries.filter((entry) => entry.rebuild === true).map((entry) => entry.topic))].sort()
}

const MAX_NAME = 249

/** `<mirror>-failback`, or with a number when that name is taken; always a valid mirror name. */
export function defaultReverseMirrorName(mirror: string, taken: Iterable<string>): string {
  const names = new Set(taken)
  const base = `${mirror.slice(0, MAX_NAME - '-failback-99'.length)}-failback`
  if (!names.has(base)) return base
  for (let index = 2; ; index++) {
    const candidate = `${base}-${index}`
    if (!names.has(candidate)) return candidate
  }
}

export function isValidMirrorName(name: string): boolean {
  return NAME_PATTERN.test(name) && name !== '.' && name !== '..'
}

export interface FailbackTotals {
  readonly partitions: number
  readonly recordsToRemove: number
  readonly partitionsTruncated: number
  /** Partitions whose whole log goes (no last mirror position to align on). */
  readonly partitionsFromScratch: number
}

export function failbackTotals(entries: readonly TruncationEntryLike[]): FailbackTotals {
  let recordsToRemove = 0
  let partitionsTruncated = 0
  let partitionsFromScratch = 0
  for (const entry of entries) {
    recordsToRemove += entry.recordsToRemove
    if (entry.recordsToRemove > 0) partitionsTruncated += 1
    if (entry.truncateTo === null) partitionsFromScratch += 1
  }
  return { partitions: entries.length, recordsToRemove, partitionsTruncated, partitionsFromScratch }
}

export interface ExportRange {
  readonly topic: string
  readonly partition: number
  /** First removed offset (inclusive). */
  readonly fromOffset: number
  /** One past the last removed offset. */
  readonly toOffset: number
}

/**
 * The offsets the plan removes, per partition with anything to remove. A whole-log truncation starts at
 * the partition's log start offset (`logStartOffsets`, by partition; 0 when unknown).
 */
export function exportRanges(entries: readonly TruncationEntryLike[], logStartOffsets: Pick<TopicPartitionMap<number>, 'get'> = new TopicPartitionMap()): ExportRange[] {
  const ranges: ExportRange[] = []
  for (const entry of entries) {
    if (entry.recordsToRemove <= 0) continue
    const fromOffset = entry.truncateTo ?? logStartOffsets.get(entry) ?? 0
    ranges.push({ topic: entry.topic, partition: entry.partition, fromOffset, toOffset: fromOffset + entry.recordsToRemove })
  }
  return ranges.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}

export interface ExportedRecord {
  readonly offset: number
  readonly type: string
  readonly producerId: number | null
  readonly producerEpoch: number | null
  readonly leaderEpoch: number
  readonly transactional: boolean
  readonly timestamp: number
  readonly key: string | null
  readonly value: string | null
  /** Kafka record headers, in their order; values in the record's encoding. */
  readonly headers?: readonly { readonly key: string; readonly value: string | null }[]
  readonly encoding?: 'base64'
}

/**
 * One NDJSON line (with its newline) for a removed record; fields in a fixed order so files diff cleanly.
 * Headers are part of the record (a replay without them is not the same record). U+2028 and U+2029 are
 * escaped: JSON allows them raw, but JavaScript source and many line-oriented tools read them as line breaks.
 */
export function exportLine(topic: string, partition: number, record: ExportedRecord): string {
  return `${escapeLineSeparators(JSON.stringify({
    topic,
    partition,
    offset: record.offset,
    type: record.type,
    producerId: record.producerId,
    producerEpoch: record.producerEpoch,
    leaderEpoch: record.leaderEpoch,
    transactional: record.transactional,
    timestamp: record.timestamp,
    key: record.key,
    value: record.value,
    headers: (record.headers ?? []).map((header) => ({ key: header.key, value: header.value })),
    ...(record.encoding === undefined ? {} : { encoding: record.encoding }),
  }))}\n`
}

function escapeLineSeparators(json: string): string {
  return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/** The records of a page that fall in the range (a page may run past its end). */
export function recordsInRange<R extends { readonly offset: number }>(records: readonly R[], range: ExportRange): R[] {
  return records.filter((record) => record.offset >= range.fromOffset && record.offset < range.toOffset)
}

export interface FailbackProgress {
  readonly total: number
  readonly mirroring: number
  readonly failed: number
  readonly done: boolean
}

/** The failback is done when every partition of the reverse mirror is MIRRORING. */
export function failbackProgress(partitionsByState: Readonly<Partial<Record<string, number>>>, expected: number): FailbackProgress {
  const counts = Object.values(partitionsByState).reduce<number>((sum, count) => sum + (count ?? 0), 0)
  const total = Math.max(expected, counts)
  const mirroring = partitionsByState.MIRRORING ?? 0
  return { total, mirroring, failed: partitionsByState.FAILED ?? 0, done: total > 0 && mirroring === total }
}

export interface LogEnds {
  readonly topic: string
  readonly partition: number
  readonly logEndOffset: number
}

export interface LogComparison {
  readonly topic: string
  readonly partition: number
  readonly oldSourceLogEndOffset: number | null
  readonly newSourceLogEndOffset: number | null
  readonly matches: boolean
}

/** Old source against new source, partition by partition: the same log end offset on both. */
export function compareLogEnds(oldSource: readonly LogEnds[], newSource: readonly LogEnds[]): LogComparison[] {
  const olds = TopicPartitionMap.of(oldSource.map((entry) => [entry, entry.logEndOffset] as const))
  const news = TopicPartitionMap.of(newSource.map((entry) => [entry, entry.logEndOffset] as const))
  const both = TopicPartitionMap.of([...olds.entries(), ...news.entries()].map(([tp]) => [tp, tp] as const))
  return [...both.values()]
    .map(({ topic, partition }) => {
      const oldSourceLogEndOffset = olds.get({ topic, partition }) ?? null
      const newSourceLogEndOffset = news.get({ topic, partition }) ?? null
      return { topic, partition, oldSourceLogEndOffset, newSourceLogEndOffset, matches: oldSourceLogEndOffset !== null && oldSourceLogEndOffset === newSourceLogEndOffset }
    })
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}

export interface FenceLike {
  readonly topic: string
  readonly mirror: string
}

export interface MirrorClusters {
  readonly sourceCluster: string
  readonly destinationCluster: string
}

/**
 * The mirrors whose switchover fences on `topic` a failover of `stopping` lifts, each once, sorted. A planned
 * switchover leaves its old source fenced (the split-brain guard); a failback is a mirror the other way, and its
 * failover is what makes the old source's topic the writable copy again, so it lifts the fence the original
 * mirror set: one whose source is the failback's destination and whose destination is the failback's source.
 * A fence whose mirror no longer exists is lifted too (no one else could). Fences of unrelated mirrors stay.
 */
export function fencesLiftedByFailover(
  fences: readonly FenceLike[],
  topic: string,
  stopping: MirrorClusters,
  mirrors: ReadonlyMap<string, MirrorClusters>,
): string[] {
  const lifted = new Set<string>()
  for (const fence of fences) {
    if (fence.topic !== topic) continue
    const owner = mirrors.get(fence.mirror)
    if (owner === undefined || (owner.sourceCluster === stopping.destinationCluster && owner.destinationCluster === stopping.sourceCluster)) lifted.add(fence.mirror)
  }
  return [...lifted].sort()
}
