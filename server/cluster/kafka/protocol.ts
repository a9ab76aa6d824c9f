import 'server-only'
import { createRequire } from 'node:module'
import { WireReader, WireWriter } from './wire'

/**
 * The requests the adapter encodes itself and sends over kafkajs's connections, because kafkajs 2.2.4
 * stops at versions without what a mirror needs (STACK.md §2.1, §2.6):
 * - Metadata v12: topic ids and partition leader epochs (kafkajs speaks v6: neither);
 * - Fetch v12: the record set as raw bytes (kafkajs decodes and drops what it cannot type), `last_fetched_epoch`
 *   and the `diverging_epoch` answer of KIP-320;
 * - OffsetForLeaderEpoch v4 (kafkajs has none);
 * - ListOffsets v4 with the isolation level (log start, high watermark, last stable offset) and no client-side
 *   throwing on a partition's error;
 * - Produce v7 of one record batch already in its final bytes (the destination emulation's pipelined
 *   produces, pipelined-producer.ts: kafkajs would decode nothing but encode every record again).
 * Versions are the newest that still name topics by name (Fetch v13 and later switch to topic ids); Kafka 4.x
 * serves all four. The flexible ones get the request header v2 tag byte from `flexible`.
 */

const requireKafkajs = createRequire(import.meta.url)

interface KafkajsEncoderInstance {
  buf: Buffer
  offset: number
}
type KafkajsEncoder = new (initialSize?: number) => KafkajsEncoderInstance
const Encoder = requireKafkajs('kafkajs/src/protocol/encoder') as KafkajsEncoder
const { errorCodes } = requireKafkajs('kafkajs/src/protocol/error') as { errorCodes: Array<{ type: string; code: number }> }

const errorNames = new Map(errorCodes.map((entry) => [entry.code, entry.type]))

/** Kafka's name of a protocol error code ("NONE" for 0), by today's names (kafkajs keeps some older ones). */
export function errorName(code: number): string {
  if (code === 0) return 'NONE'
  const name = errorNames.get(code) ?? `UNKNOWN_ERROR_CODE_${code}`
  return name === 'NOT_LEADER_FOR_PARTITION' ? 'NOT_LEADER_OR_FOLLOWER' : name
}

/** What kafkajs's `Connection.send` takes: an encoder and a decoder. */
export interface ProtocolRequest<T> {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<KafkajsEncoderInstance> }
  response: { decode(payload: Buffer): Promise<T>; parse(data: T): Promise<T> }
}

/**
 * An encoder holding `payload` as its bytes, not a copy: kafkajs copies a request's encoder twice more to frame it,
 * and a produce's 100 KiB batch was copied five times on its way to the socket (its allocations were a quarter of
 * the mirroring process's CPU in garbage collection, scripts/bench/kafka.ts under `node --cpu-prof`).
 */
function encoderOver(payload: Buffer): KafkajsEncoderInstance {
  const encoder = new Encoder(0)
  encoder.buf = payload
  encoder.offset = payload.byteLength
  return encoder
}

function protocolRequest<T>(apiKey: number, apiVersion: number, apiName: string, body: Buffer, decode: (reader: WireReader) => T, flexible: boolean): ProtocolRequest<T> {
  // Flexible versions use request header v2 (client id, then tagged fields) and response header v1
  // (correlation id, then tagged fields); kafkajs writes and reads the parts before those tags.
  const payload = flexible ? Buffer.concat([Buffer.from([0]), body]) : body
  return {
    request: { apiKey, apiVersion, apiName, encode: async () => encoderOver(payload) },
    response: {
      decode: async (raw) => {
        const reader = new WireReader(raw)
        if (flexible) reader.taggedFields()
        return decode(reader)
      },
      parse: async (data) => data,
    },
  }
}

// ---- Metadata v12 ----

export interface MetadataPartition {
  errorCode: number
  partition: number
  leader: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  /** Replicas whose broker is down (or whose log directory is offline). */
  offlineReplicas: number[]
}

export interface MetadataTopic {
  errorCode: number
  name: string
  topicId: string
  isInternal: boolean
  partitions: MetadataPartition[]
}

export interface MetadataResponse {
  brokers: Array<{ nodeId: number; host: string; port: number }>
  clusterId: string | null
  controllerId: number
  topics: MetadataTopic[]
}

/** Kafka prints topic ids as URL-safe base64 without padding (Uuid.toString). */
export function topicIdString(bytes: Buffer): string {
  return bytes.toString('base64url')
}

/** `topics` null asks for every topic. */
export function metadataRequest(topics: string[] | null): ProtocolRequest<MetadataResponse> {
  const body = new WireWriter()
    .compactArray(topics, (w, name) => w.uuid(Buffer.alloc(16)).compactNullableString(name).noTaggedFields())
    .bool(false)
    .bool(false)
    .noTaggedFields()
    .toBuffer()
  return protocolRequest(3, 12, 'Metadata', body, (r) => {
    r.int32()
    const brokers = r.compactArray((b) => {
      const broker = { nodeId: b.int32(), host: b.compactString(), port: b.int32() }
      b.compactNullableString()
      b.taggedFields()
      return broker
    })
    const clusterId = r.compactNullableString()
    const controllerId = r.int32()
    const topics = r.compactArray((t) => {
      const errorCode = t.int16()
      const name = t.compactString()
      const topicId = topicIdString(t.uuid())
      const isInternal = t.bool()
      const partitions = t.compactArray((p) => {
        const partition: MetadataPartition = {
          errorCode: p.int16(),
          partition: p.int32(),
          leader: p.int32(),
          leaderEpoch: p.int32(),
          replicas: p.compactArray((x) => x.int32()),
          isr: p.compactArray((x) => x.int32()),
          offlineReplicas: p.compactArray((x) => x.int32()),
        }
        p.taggedFields()
        return partition
      })
      t.int32()
      t.taggedFields()
      return { errorCode, name, topicId, isInternal, partitions }
    })
    r.taggedFields()
    return { brokers, clusterId, controllerId, topics }
  }, true)
}

// ---- Fetch v12 ----

export interface FetchPartitionSpec {
  partition: number
  currentLeaderEpoch: number
  fetchOffset: number
  lastFetchedEpoch: number
  maxBytes: number
}

export interface FetchedPartition {
  partition: number
  errorCode: number
  highWatermark: number
  lastStableOffset: number
  logStartOffset: number
  abortedTransactions: Array<{ producerId: number; firstOffset: number }>
  records: Buffer
  divergingEpoch: { leaderEpoch: number; endOffset: number } | null
  currentLeader: { leaderId: number; leaderEpoch: number } | null
}

export interface FetchResponse {
  errorCode: number
  topics: Array<{ topic: string; partitions: FetchedPartition[] }>
}

export const ISOLATION_LEVEL = { read_uncommitted: 0, read_committed: 1 } as const

export function fetchRequest(spec: {
  maxWaitMs: number
  maxBytes: number
  isolationLevel: 0 | 1
  topics: Array<{ topic: string; partitions: FetchPartitionSpec[] }>
}): ProtocolRequest<FetchResponse> {
  const body = new WireWriter()
    .int32(-1)
    .int32(spec.maxWaitMs)
    .int32(1)
    .int32(spec.maxBytes)
    .int8(spec.isolationLevel)
    .int32(0)
    .int32(-1) // FINAL_EPOCH: a sessionless full fetch, so every answer lists every requested partition.
    .compactArray(spec.topics, (w, topic) =>
      w
        .compactString(topic.topic)
        .compactArray(topic.partitions, (pw, p) =>
          pw.int32(p.partition).int32(p.currentLeaderEpoch).int64(p.fetchOffset).int32(p.lastFetchedEpoch).int64(-1).int32(p.maxBytes).noTaggedFields(),
        )
        .noTaggedFields(),
    )
    .compactArray([], () => undefined)
    .compactString('')
    .noTaggedFields()
    .toBuffer()
  return protocolRequest(1, 12, 'Fetch', body, (r) => {
    r.int32()
    const errorCode = r.int16()
    r.int32()
    const topics = r.compactArray((t) => {
      const topic = t.compactString()
      const partitions = t.compactArray((p) => {
        const partition = p.int32()
        const partitionError = p.int16()
        const highWatermark = p.int64()
        const lastStableOffset = p.int64()
        const logStartOffset = p.int64()
        const abortedTransactions = p.compactArray((a) => {
          const aborted = { producerId: a.int64(), firstOffset: a.int64() }
          a.taggedFields()
          return aborted
        })
        p.int32()
        const records = p.compactNullableBytes() ?? Buffer.alloc(0)
        let divergingEpoch: FetchedPartition['divergingEpoch'] = null
        let currentLeader: FetchedPartition['currentLeader'] = null
        p.taggedFields({
          0: (f) => {
            divergingEpoch = { leaderEpoch: f.int32(), endOffset: f.int64() }
          },
          1: (f) => {
            currentLeader = { leaderId: f.int32(), leaderEpoch: f.int32() }
          },
        })
        return { partition, errorCode: partitionError, highWatermark, lastStableOffset, logStartOffset, abortedTransactions, records, divergingEpoch, currentLeader }
      })
      t.taggedFields()
      return { topic, partitions }
    })
    r.taggedFields()
    return { errorCode, topics }
  }, true)
}

// ---- OffsetForLeaderEpoch v4 ----

export interface EpochEndOffsetAnswer {
  topic: string
  partition: number
  errorCode: number
  leaderEpoch: number
  endOffset: number
}

export function offsetForLeaderEpochRequest(topics: Array<{ topic: string; partitions: Array<{ partition: number; leaderEpoch: number }> }>): ProtocolRequest<EpochEndOffsetAnswer[]> {
  const body = new WireWriter()
    .int32(-1)
    .compactArray(topics, (w, topic) =>
      w
        .compactString(topic.topic)
        // current_leader_epoch -1: answer whatever the leader's epoch now is, without fencing.
        .compactArray(topic.partitions, (pw, p) => pw.int32(p.partition).int32(-1).int32(p.leaderEpoch).noTaggedFields())
        .noTaggedFields(),
    )
    .noTaggedFields()
    .toBuffer()
  return protocolRequest(23, 4, 'OffsetForLeaderEpoch', body, (r) => {
    r.int32()
    const answers = r.compactArray((t) => {
      const topic = t.compactString()
      const partitions = t.compactArray((p) => {
        const answer = { topic, errorCode: p.int16(), partition: p.int32(), leaderEpoch: p.int32(), endOffset: p.int64() }
        p.taggedFields()
        return answer
      })
      t.taggedFields()
      return partitions
    })
    r.taggedFields()
    return answers.flat()
  }, true)
}

// ---- ListOffsets v4 ----

export const LATEST_TIMESTAMP = -1
export const EARLIEST_TIMESTAMP = -2

export interface ListedOffset {
  topic: string
  partition: number
  errorCode: number
  offset: number
  leaderEpoch: number
}

export function listOffsetsRequest(isolationLevel: 0 | 1, topics: Array<{ topic: string; partitions: Array<{ partition: number; timestamp: number }> }>): ProtocolRequest<ListedOffset[]> {
  const body = new WireWriter()
    .int32(-1)
    .int8(isolationLevel)
    .array(topics, (w, topic) => w.string(topic.topic).array(topic.partitions, (pw, p) => pw.int32(p.partition).int32(-1).int64(p.timestamp)))
    .toBuffer()
  return protocolRequest(2, 4, 'ListOffsets', body, (r) => {
    r.int32()
    return r
      .array((t) => {
        const topic = t.string()
        return t.array((p) => {
          const partition = p.int32()
          const errorCode = p.int16()
          p.int64()
          return { topic, partition, errorCode, offset: p.int64(), leaderEpoch: p.int32() }
        })
      })
      .flat()
  }, false)
}

// ---- Produce v7 ----

export interface ProducedAnswer {
  topic: string
  partition: number
  errorCode: number
  baseOffset: number
}

/** One record batch for one partition, acks=all (the batch carries its producer id, epoch, sequence and CRC). */
/** A record batch for a produce: its bytes, or its size and how to write it straight into the request (no copy of its own). */
export type BatchBytes = Uint8Array | { byteLength: number; writeInto(target: Uint8Array): void }

/** With `transactionalId`, the batch is transactional: the broker checks that id (and, KIP-890, the partition's place in its transaction). */
export function produceRequest(tp: { topic: string; partition: number }, batch: BatchBytes, timeoutMs: number, transactionalId: string | null = null): ProtocolRequest<ProducedAnswer[]> {
  const id = new WireWriter()
  const head = (transactionalId === null ? id.int16(-1) : id.string(transactionalId)).int16(-1).int32(timeoutMs).int32(1).string(tp.topic).int32(1).int32(tp.partition).int32(batch.byteLength).toBuffer()
  const body = Buffer.allocUnsafe(head.byteLength + batch.byteLength)
  body.set(head)
  if (batch instanceof Uint8Array) body.set(batch, head.byteLength)
  else batch.writeInto(body.subarray(head.byteLength))
  return protocolRequest(0, 7, 'Produce', body, (r) =>
    r
      .array((t) => {
        const topic = t.string()
        return t.array((p) => {
          const partition = p.int32()
          const errorCode = p.int16()
          const baseOffset = p.int64()
          p.int64() // log_append_time
          p.int64() // log_start_offset
          return { topic, partition, errorCode, baseOffset }
        })
      })
      .flat(),
  false)
}
