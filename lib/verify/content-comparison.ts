/**
 * Content mode (types.ts): a destination that produced the source's records again (a Kafka destination, by
 * emulation) holds other batches, producer ids and epochs, so only what a consumer reads is compared: per
 * offset the record's type, key, value, headers and timestamp. Destination records arrive with their
 * offsets translated back to the source's (the emulation's translation table), so a shifted log still lines up.
 *
 * Records no client can write are not differences: a MIRROR_PID_RESET on the source (the emulation records it
 * in its state instead), and a control record of the destination's own that stands for no source offset (the
 * ABORT of a transaction the emulation had to end after a restart; the translation shifts past it). A data
 * record of the destination that stands for no source record is: something wrote behind the mirror's back.
 */
import { alignStep } from './aligned-step'
import { describeRecordDifference, previewBytes } from './record-difference'
import type { ContentRecord, Mismatch } from './types'

/** A destination record, with the offset it has on the destination (its `offset` is the source's). */
export interface DestinationContentRecord extends ContentRecord {
  readonly destinationOffset: number
}

export interface ContentStepResult {
  readonly mismatches: readonly Mismatch[]
  /** Records judged (a pair counts once). */
  readonly records: number
  readonly next: number
}

interface Spanned<T> {
  readonly first: number
  readonly last: number
  readonly record: T
}

function spanned<T extends ContentRecord>(records: readonly T[]): Array<Spanned<T>> {
  return records.map((record) => ({ first: record.offset, last: record.offset, record }))
}

/** Control record types a client can write (a transaction's end): the others are the emulation's to record. */
const CLIENT_WRITABLE_CONTROL = new Set(['COMMIT', 'ABORT'])

/** Two transaction markers: each broker stamps its own with the time it wrote it, so only the type counts. */
function controlPair(source: ContentRecord, destination: ContentRecord): boolean {
  return source.type !== 'DATA' && destination.type !== 'DATA'
}

function where(record: DestinationContentRecord): string {
  return record.destinationOffset === record.offset ? `offset ${record.offset}` : `offset ${record.offset} (destination offset ${record.destinationOffset})`
}

/**
 * One step of content mode from `cursor`, within [cursor, to). Two destination records translated to the
 * same source offset: the later one (the translation's newer segment) is the source's; the earlier one is
 * judged as standing for nothing.
 */
export function compareContentStep(input: {
  source: readonly ContentRecord[]
  destination: readonly DestinationContentRecord[]
  cursor: number
  to: number
  /** Where each answer's batches end (in source offsets), when they returned any: see SideAnswer.end. */
  sourceEnd?: number
  destinationEnd?: number
}): ContentStepResult {
  const latest = new Map<number, DestinationContentRecord>()
  const displaced: DestinationContentRecord[] = []
  for (const record of input.destination) {
    const earlier = latest.get(record.offset)
    if (earlier !== undefined) displaced.push(earlier)
    latest.set(record.offset, record)
  }
  const destination = [...latest.values()].sort((a, b) => a.offset - b.offset)
  const step = alignStep({ items: spanned(input.source), end: input.sourceEnd }, { items: spanned(destination), end: input.destinationEnd }, input.cursor, input.to)
  const mismatches: Mismatch[] = []
  const extra = (record: DestinationContentRecord) => {
    if (record.type !== 'DATA') return
    mismatches.push({ offset: record.offset, kind: 'extra', detail: `destination record at ${where(record)} stands for no source record: it was written to the destination behind the mirror's back (key ${previewBytes(record.key)})` })
  }
  for (const pair of step.pairs) {
    if (pair.kind === 'both') {
      const difference = controlPair(pair.source.record, pair.destination.record)
        ? pair.source.record.type === pair.destination.record.type
          ? null
          : `type: source ${pair.source.record.type} / destination ${pair.destination.record.type}`
        : describeRecordDifference(pair.source.record, pair.destination.record)
      if (difference !== null) mismatches.push({ offset: pair.source.first, kind: 'content', detail: `record at ${where(pair.destination.record)} differs: ${difference}` })
    } else if (pair.kind === 'sourceOnly') {
      const record = pair.source.record
      if (record.type !== 'DATA' && !CLIENT_WRITABLE_CONTROL.has(record.type)) continue
      mismatches.push({ offset: record.offset, kind: 'missing', detail: `source record at offset ${record.offset} (${record.type}) is not on the destination` })
    } else {
      extra(pair.destination.record)
    }
  }
  for (const record of displaced) if (record.offset >= input.cursor && record.offset < step.next) extra(record)
  return { mismatches: mismatches.sort((a, b) => a.offset - b.offset), records: step.pairs.length, next: step.next }
}

