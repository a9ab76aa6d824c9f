/**
 * Raw Fetch against a real broker through kafkajs internals: every record batch as the broker returned it,
 * with producerId/producerEpoch/partitionLeaderEpoch/baseSequence, the transactional and control flags,
 * decoded control records (COMMIT/ABORT markers and any other type) and the partition header
 * (highWatermark, lastStableOffset, logStartOffset, abortedTransactions).
 *
 * Why internals: the consumer runner never calls `eachBatch` for a fetch that held only control or aborted
 * records (kafkajs `consumer/runner.js`, `isEmptyDueToFiltering`), so markers would go unseen.
 *
 * Limits inherited from kafkajs's decoder: a batch with no records (possible after compaction) is not
 * visible; record headers come back merged by key (duplicate keys grouped, first-seen key order);
 * only GZIP compression is decodable without add-on codecs; the CRC is not checked.
 */
import { createRequire } from 'node:module'

const requireKafkajs = createRequire(import.meta.url)

export type IsolationLevel = 'read_uncommitted' | 'read_committed'

export interface ControlRecord {
  /** The control key's int16 version. */
  version: number
  /** The control key's int16 type: 0 = ABORT, 1 = COMMIT, 2..6 = KRaft types, 7 = MIRROR_PID_RESET in our format. */
  type: number
  typeName: string
  /** For COMMIT/ABORT markers: the int32 coordinator epoch of the value (`int16 version` + `int32`). */
  coordinatorEpoch?: number
}

export interface RawHeader {
  key: string
  value: Buffer | null
}

export interface RawRecord {
  offset: bigint
  timestamp: bigint
  key: Buffer | null
  value: Buffer | null
  headers: RawHeader[]
  /** Present on records of control batches. */
  control?: ControlRecord
}

export interface RawBatch {
  baseOffset: bigint
  lastOffset: bigint
  partitionLeaderEpoch: number
  magic: number
  producerId: bigint
  producerEpoch: number
  baseSequence: number
  isTransactional: boolean
  isControl: boolean
  timestampType: 'CreateTime' | 'LogAppendTime'
  firstTimestamp: bigint
  maxTimestamp: bigint
  records: RawRecord[]
}

export interface AbortedTransaction {
  producerId: bigint
  firstOffset: bigint
}

export interface RawPartitionFetch {
  topic: string
  partition: number
  highWatermark: bigint
  lastStableOffset: bigint
  logStartOffset: bigint
  /** Only filled for `read_committed`. */
  abortedTransactions: AbortedTransaction[]
  /** The broker answers with whole batches, so the first one may start below the fetch offset. */
  batches: RawBatch[]
}

export interface RawFetchRequest {
  topic: string
  partition: number
  fetchOffset: bigint
  isolationLevel: IsolationLevel
  maxWaitTimeMs?: number
  maxBytes?: number
}

export class RawFetchError extends Error {
  constructor(
    readonly code: 'OFFSET_OUT_OF_RANGE' | 'NOT_FOUND' | 'FETCH_FAILED' | 'CORRUPT_RECORD',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'RawFetchError'
  }
}

// ---- the slice of kafkajs internals this module relies on (kafkajs 2.2.4, src/) ----

interface KafkajsBatchContext {
  firstOffset: string
  firstTimestamp: string
  partitionLeaderEpoch: number
  inTransaction: boolean
  isControlBatch: boolean
  lastOffsetDelta: number
  producerId: string
  producerEpoch: number
  firstSequence: number
  maxTimestamp: string
  timestampType: number
  magicByte: number
}

interface KafkajsRecord {
  offset: string
  timestamp: string
  key: Buffer | null
  value: Buffer | null
  headers: Record<string, Buffer | null | Array<Buffer | null>>
  isControlRecord: boolean
  batchContext: KafkajsBatchContext
}

interface KafkajsFetchResponse {
  responses: Array<{
    topicName: string
    partitions: Array<{
      partition: number
      errorCode: number
      highWatermark: string
      lastStableOffset: string
      lastStartOffset: string
      abortedTransactions: Array<{ producerId: string; firstOffset: string }>
      messages: KafkajsRecord[]
    }>
  }>
}

interface KafkajsBroker {
  fetch(request: {
    replicaId?: number
    isolationLevel: number
    maxWaitTime: number
    minBytes: number
    maxBytes: number
    topics: Array<{ topic: string; partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }> }>
  }): Promise<KafkajsFetchResponse>
}

interface KafkajsCluster {
  connect(): Promise<void>
  disconnect(): Promise<void>
  addTargetTopic(topic: string): Promise<void>
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>
  findBroker(options: { nodeId: string }): Promise<KafkajsBroker>
}

type ClusterConstructor = new (options: Record<string, unknown>) => KafkajsCluster

interface KafkajsLoggers {
  createLogger(options: { level: number; logCreator: () => () => void }): unknown
  LEVELS: { NOTHING: number }
}

const ISOLATION: Record<IsolationLevel, number> = { read_uncommitted: 0, read_committed: 1 }
// kafkajs TimestampTypes: 0 = CREATE_TIME, 1 = LOG_APPEND_TIME.
const LOG_APPEND_TIME = 1

const controlTypeNames: Record<number, string> = {
  0: 'ABORT',
  1: 'COMMIT',
  2: 'LEADER_CHANGE',
  3: 'SNAPSHOT_HEADER',
  4: 'SNAPSHOT_FOOTER',
  5: 'KRAFT_VERSION',
  6: 'KRAFT_VOTERS',
  7: 'MIRROR_PID_RESET',
}

export function decodeControlRecord(key: Buffer | null, value: Buffer | null, offset: bigint): ControlRecord {
  if (key === null || key.length < 4) {
    throw new RawFetchError('CORRUPT_RECORD', `control record at offset ${offset} has a key of ${key?.length ?? 'null'} bytes, need 4`)
  }
  const version = key.readInt16BE(0)
  const type = key.readInt16BE(2)
  const control: ControlRecord = { version, type, typeName: controlTypeNames[type] ?? `UNKNOWN(${type})` }
  if (type === 0 || type === 1) {
    if (value === null || value.length < 6) {
      throw new RawFetchError('CORRUPT_RECORD', `end-transaction marker at offset ${offset} has a value of ${value?.length ?? 'null'} bytes, need 6`)
    }
    control.coordinatorEpoch = value.readInt32BE(2)
  }
  return control
}

function toHeaders(headers: KafkajsRecord['headers']): RawHeader[] {
  return Object.entries(headers).flatMap(([key, value]) =>
    Array.isArray(value) ? value.map((v) => ({ key, value: v })) : [{ key, value }],
  )
}

/** Regroups kafkajs's flat record list into batches: records of one batch share one batchContext object. */
function toBatches(messages: KafkajsRecord[]): RawBatch[] {
  const batches: RawBatch[] = []
  let current: { context: KafkajsBatchContext; batch: RawBatch } | null = null
  for (const message of messages) {
    const context = message.batchContext
    if (current === null || current.context !== context) {
      const baseOffset: bigint = BigInt(context.firstOffset)
      current = {
        context,
        batch: {
          baseOffset,
          lastOffset: baseOffset + BigInt(context.lastOffsetDelta),
          partitionLeaderEpoch: context.partitionLeaderEpoch,
          magic: context.magicByte,
          producerId: BigInt(context.producerId),
          producerEpoch: context.producerEpoch,
          baseSequence: context.firstSequence,
          isTransactional: context.inTransaction,
          isControl: context.isControlBatch,
          timestampType: context.timestampType === LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime',
          firstTimestamp: BigInt(context.firstTimestamp),
          maxTimestamp: BigInt(context.maxTimestamp),
          records: [],
        },
      }
      batches.push(current.batch)
    }
    const offset = BigInt(message.offset)
    const record: RawRecord = {
      offset,
      timestamp: BigInt(message.timestamp),
      key: message.key,
      value: message.value,
      headers: toHeaders(message.headers),
    }
    if (message.isControlRecord) record.control = decodeControlRecord(message.key, message.value, offset)
    current.batch.records.push(record)
  }
  return batches
}

function classify(error: unknown, what: string): RawFetchError {
  const name = error instanceof Error ? error.name : ''
  const type = typeof error === 'object' && error !== null && 'type' in error ? String(error.type) : ''
  const message = error instanceof Error ? error.message : String(error)
  if (name === 'KafkaJSOffsetOutOfRange' || type === 'OFFSET_OUT_OF_RANGE') {
    return new RawFetchError('OFFSET_OUT_OF_RANGE', `${what}: ${message}`, { cause: error })
  }
  if (type === 'UNKNOWN_TOPIC_OR_PARTITION' || type === 'UNKNOWN_TOPIC_ID') {
    return new RawFetchError('NOT_FOUND', `${what}: ${message}`, { cause: error })
  }
  return new RawFetchError('FETCH_FAILED', `${what}: ${message}`, { cause: error })
}

export interface RawFetcherOptions {
  brokers: string[]
  clientId?: string
  requestTimeoutMs?: number
}

/** One connection to a cluster that issues Fetch requests (v11) and returns undecorated batches. */
export class RawFetcher {
  private readonly knownTopics = new Set<string>()

  private constructor(private readonly cluster: KafkajsCluster) {}

  static async connect(options: RawFetcherOptions): Promise<RawFetcher> {
    const Cluster = requireKafkajs('kafkajs/src/cluster') as ClusterConstructor
    const loggers = requireKafkajs('kafkajs/src/loggers') as KafkajsLoggers
    const socketFactory = requireKafkajs('kafkajs/src/network/socketFactory') as () => unknown
    const cluster = new Cluster({
      logger: loggers.createLogger({ level: loggers.LEVELS.NOTHING, logCreator: () => () => undefined }),
      socketFactory: socketFactory(),
      brokers: options.brokers,
      clientId: options.clientId ?? 'mirrorboard-raw-fetch',
      connectionTimeout: 3000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      enforceRequestTimeout: true,
      metadataMaxAge: 300_000,
      allowAutoTopicCreation: false,
      retry: { retries: 2 },
    })
    try {
      await cluster.connect()
    } catch (error) {
      throw classify(error, `connect to ${options.brokers.join(',')}`)
    }
    return new RawFetcher(cluster)
  }

  async fetch(request: RawFetchRequest): Promise<RawPartitionFetch> {
    const { topic, partition } = request
    const what = `fetch ${topic}-${partition}@${request.fetchOffset} (${request.isolationLevel})`
    try {
      if (!this.knownTopics.has(topic)) {
        await this.cluster.addTargetTopic(topic)
        this.knownTopics.add(topic)
      }
      const leaders = this.cluster.findLeaderForPartitions(topic, [partition])
      const leader = Object.keys(leaders)[0]
      if (leader === undefined) throw new RawFetchError('NOT_FOUND', `${what}: no leader known for this partition`)
      const broker = await this.cluster.findBroker({ nodeId: leader })
      const maxBytes = request.maxBytes ?? 10 * 1024 * 1024
      const response = await broker.fetch({
        isolationLevel: ISOLATION[request.isolationLevel],
        maxWaitTime: request.maxWaitTimeMs ?? 100,
        minBytes: 1,
        maxBytes,
        topics: [{ topic, partitions: [{ partition, fetchOffset: request.fetchOffset.toString(), maxBytes }] }],
      })
      const answer = response.responses.find((r) => r.topicName === topic)?.partitions.find((p) => p.partition === partition)
      if (answer === undefined) throw new RawFetchError('FETCH_FAILED', `${what}: the response does not mention the partition`)
      return {
        topic,
        partition,
        highWatermark: BigInt(answer.highWatermark),
        lastStableOffset: BigInt(answer.lastStableOffset),
        logStartOffset: BigInt(answer.lastStartOffset),
        abortedTransactions: answer.abortedTransactions.map((t) => ({ producerId: BigInt(t.producerId), firstOffset: BigInt(t.firstOffset) })),
        batches: toBatches(answer.messages),
      }
    } catch (error) {
      if (error instanceof RawFetchError) throw error
      throw classify(error, what)
    }
  }

  /**
   * Fetches from `fetchOffset` until the end visible at this isolation level (highWatermark for
   * read_uncommitted, lastStableOffset for read_committed), as the broker reported it on the last fetch.
   * Returns the batches in order (those wholly below `fetchOffset` dropped) and the last partition header.
   */
  async fetchToEnd(request: RawFetchRequest): Promise<RawPartitionFetch> {
    const batches: RawBatch[] = []
    const aborted = new Map<string, AbortedTransaction>()
    let next = request.fetchOffset
    for (;;) {
      const page = await this.fetch({ ...request, fetchOffset: next })
      for (const t of page.abortedTransactions) aborted.set(`${t.producerId}:${t.firstOffset}`, t)
      for (const batch of page.batches) {
        if (batch.lastOffset < next) continue
        batches.push(batch)
        next = batch.lastOffset + 1n
      }
      const end = request.isolationLevel === 'read_committed' ? page.lastStableOffset : page.highWatermark
      if (next >= end || page.batches.length === 0) {
        return { ...page, abortedTransactions: [...aborted.values()], batches }
      }
    }
  }

  async disconnect(): Promise<void> {
    await this.cluster.disconnect()
  }
}
