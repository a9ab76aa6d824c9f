import 'server-only'
import type { EpochEntry } from '@/lib/log/types'
import { EMULATION_KEY_PREFIX } from './kafka-state-topic'
import type { TranslationSegment } from './offset-translation'

/**
 * What the destination emulation must remember per mirror topic and partition, because the broker cannot hold
 * it (DESIGN.md §5): all offsets below are the *source's* (the engine's view of the log), except
 * `destinationLogEndOffset`. Kept in the destination's state topic under `emulation/…` keys, so a restarted
 * server resumes from the cluster itself.
 */

export interface TopicEmulation {
  topic: string
  /** The source topic's id, which the engine matches on (a client cannot choose a Kafka topic id). */
  topicId: string
  /** The id the destination broker gave the topic. */
  brokerTopicId: string
  mirror: string | null
  readOnly: boolean
}

export interface EmulatedTransaction {
  /** The source producer whose open transaction a destination transactional producer of its own reproduces. */
  producerId: number
  producerEpoch: number
  /** Source offset of the transaction's first record in this partition. */
  firstOffset: number
  /**
   * Destination offset where its destination transaction's first record stands, once a recovery carried the records
   * of an orphaned one into a new one (they land after the ABORT marker); before that, the translation of `firstOffset`.
   */
  destinationFirstOffset?: number
  /**
   * Set while a recovery carries an orphaned destination transaction's records into a new one (persisted before
   * the first of them is produced): where the orphan's records are and which producer session wrote them. A crash
   * meanwhile leaves the new transaction open; the next recovery aborts it and carries the same records again.
   */
  carrying?: { from: number; to: number; producerId: number; producerEpoch: number }
  /** How many of its records its destination transaction holds (counted as they are produced, and when carried). */
  records?: number
}

/** Records of an orphaned transaction that retention removed from the destination before a recovery could carry them. */
export interface CarryLoss {
  at: number
  /** Source offset of the transaction's first record. */
  sourceOffset: number
  records: number
}

export interface PartitionEmulation {
  topic: string
  partition: number
  logStartOffset: number
  logEndOffset: number
  /** The broker's log end offset after our last produce: anything beyond it was written by someone else. */
  destinationLogEndOffset: number
  /** The epoch bumps ask for; the broker's own leader epoch is unrelated (no client can raise it). */
  leaderEpoch: number
  /** Leader-epoch cache of the mirrored source batches. */
  epochs: EpochEntry[]
  translation: TranslationSegment[]
  openTransactions: EmulatedTransaction[]
  /** Source offsets where a MIRROR_PID_RESET stands (recorded here: no client can write one). */
  pidResets: number[]
  /** Source offsets of records with no destination counterpart, and why (at most the last 20). */
  skipped: Array<{ sourceOffset: number; reason: string }>
  /** Set once the log end moved without our produce (a write the ACL did not stop, or no authorizer). */
  readOnlyViolation: string | null
  /** When the topic was last rebuilt for a failback (deleted and created again), and what this partition lost. */
  rebuild: PartitionRebuild | null
  /** Orphaned transactions' records lost to retention before their carry (the last 20): a switchover counts them. */
  carryLosses: CarryLoss[]
}

export interface PartitionRebuild {
  at: number
  mirror: string
  truncateTo: number | null
  recordsRemoved: number
}

export const topicKey = (topic: string) => `${EMULATION_KEY_PREFIX}topic/${topic}`
export const partitionKey = (topic: string, partition: number) => `${EMULATION_KEY_PREFIX}partition/${topic}/${partition}`

export function emptyPartitionEmulation(topic: string, partition: number, destinationLogEndOffset: number, leaderEpoch: number): PartitionEmulation {
  return {
    topic,
    partition,
    logStartOffset: destinationLogEndOffset,
    logEndOffset: destinationLogEndOffset,
    destinationLogEndOffset,
    leaderEpoch,
    epochs: [],
    translation: [],
    openTransactions: [],
    pidResets: [],
    skipped: [],
    readOnlyViolation: null,
    rebuild: null,
    carryLosses: [],
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

export function readTopicEmulation(value: unknown): TopicEmulation | null {
  if (!isObject(value) || typeof value.topic !== 'string' || typeof value.topicId !== 'string' || typeof value.readOnly !== 'boolean') return null
  return {
    topic: value.topic,
    topicId: value.topicId,
    brokerTopicId: typeof value.brokerTopicId === 'string' ? value.brokerTopicId : '',
    mirror: typeof value.mirror === 'string' ? value.mirror : null,
    readOnly: value.readOnly,
  }
}

export function readPartitionEmulation(value: unknown): PartitionEmulation | null {
  if (!isObject(value) || typeof value.topic !== 'string' || typeof value.partition !== 'number') return null
  const numbers = ['logStartOffset', 'logEndOffset', 'destinationLogEndOffset', 'leaderEpoch'] as const
  if (numbers.some((field) => typeof value[field] !== 'number')) return null
  if (!Array.isArray(value.epochs) || !Array.isArray(value.translation) || !Array.isArray(value.openTransactions)) return null
  return {
    topic: value.topic,
    partition: value.partition,
    logStartOffset: value.logStartOffset as number,
    logEndOffset: value.logEndOffset as number,
    destinationLogEndOffset: value.destinationLogEndOffset as number,
    leaderEpoch: value.leaderEpoch as number,
    epochs: value.epochs as EpochEntry[],
    translation: value.translation as TranslationSegment[],
    openTransactions: value.openTransactions as EmulatedTransaction[],
    pidResets: Array.isArray(value.pidResets) ? (value.pidResets as number[]) : [],
    skipped: Array.isArray(value.skipped) ? (value.skipped as PartitionEmulation['skipped']) : [],
    readOnlyViolation: typeof value.readOnlyViolation === 'string' ? value.readOnlyViolation : null,
    rebuild: isObject(value.rebuild) && typeof value.rebuild.at === 'number' ? (value.rebuild as unknown as PartitionRebuild) : null,
    carryLosses: Array.isArray(value.carryLosses) ? (value.carryLosses as CarryLoss[]) : [],
  }
}

/** Why the emulation did something a native mirror would not (the API's emulation notes show the last 20). */
export function noteOn(e: PartitionEmulation, sourceOffset: number, reason: string): void {
  e.skipped = [...e.skipped, { sourceOffset, reason }].slice(-20)
}
