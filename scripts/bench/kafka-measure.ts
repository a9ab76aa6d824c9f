// What the Kafka benchmark measures on real brokers, the same way for every contestant: the source data
// (Kafka's own ProducerPerformance), the destination's high watermark as an outside observer sees it
// (ListOffsets), end-to-end lag of a produced burst, and the read rates of the adapter's raw fetch and of a
// plain kafkajs consumer.
import { execFile } from 'node:child_process'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs'
import { readControlInfo, splitBatches } from '@/lib/log/record-batch'
import type { KafkaSourceCluster } from '@/server/cluster/kafka/kafka-source'

export const RECORD_BYTES = 1024
export const PARTITIONS = 8
/** Source batches of ~100 records (100 KiB), as the embedded benchmarks write them. */
const SOURCE_BATCH_BYTES = 100 * 1024

export function client(bootstrap: string, clientId: string): Kafka {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING })
}

export function load(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `total` records of 1 KiB into a new topic of 8 partitions, by Kafka's ProducerPerformance (acks=all,
 * 100 KiB batches): the Java producer writes 1 GiB in a fraction of the time kafkajs needs on two cores.
 * Returns its records/s.
 */
export async function seedSource(admin: Admin, lib: string, bootstrap: string, topic: string, total: number, options: { existing?: boolean } = {}): Promise<number> {
  // `existing`: the topic is there already (a mirror of it was created first: the HA bench), with 8 partitions.
  if (!options.existing) await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }] })
  const args = ['-Xmx512m', '-cp', join(lib, '*'), 'org.apache.kafka.tools.ProducerPerformance', '--topic', topic, '--num-records', String(total), '--record-size', String(RECORD_BYTES), '--throughput', '-1', '--producer-props', `bootstrap.servers=${bootstrap}`, 'acks=all', `batch.size=${SOURCE_BATCH_BYTES}`, 'linger.ms=5', 'compression.type=none']
  const output = await new Promise<string>((resolve, reject) => {
    execFile('java', args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`ProducerPerformance failed: ${stderr || error.message}`)) : resolve(stdout)))
  })
  // Its last line: "<n> records sent, <rate> records/sec (<MB/s> MB/sec), ...".
  const summary = output.trim().split('\n').at(-1) ?? ''
  const rate = /records sent, ([\d.]+) records\/sec/.exec(summary)?.[1]
  const seeded = await highWatermarkSum(admin, topic)
  if (seeded !== total) throw new Error(`ProducerPerformance wrote ${seeded} records to ${topic}, expected ${total}: ${summary}`)
  return rate === undefined ? Number.NaN : Number(rate)
}

/** Deletes topics and waits until the cluster no longer lists them (deletion completes asynchronously). */
export async function deleteTopicsAndWait(admin: Admin, topics: string[]): Promise<void> {
  const present = (await admin.listTopics()).filter((t) => topics.includes(t))
  if (present.length === 0) return
  await admin.deleteTopics({ topics: present, timeout: 30_000 })
  const deadline = performance.now() + 30_000
  while ((await admin.listTopics()).some((t) => present.includes(t))) {
    if (performance.now() > deadline) throw new Error(`topics ${present.join(', ')} still listed 30 s after their deletion`)
    await sleep(100)
  }
}

/** Sum of the partitions' high watermarks (0 while the topic does not exist yet). */
export async function highWatermarkSum(admin: Admin, topic: string): Promise<number> {
  try {
    const offsets = await admin.fetchTopicOffsets(topic)
    return offsets.reduce((sum, p) => sum + Number(p.high), 0)
  } catch {
    return 0
  }
}

export interface Drain {
  /** From the start of the mirror (process spawn / createMirror) until the destination held every record. */
  wallMs: number
  /** Until the destination showed its first record: process start, connections, topic creation. */
  startupMs: number
  /** Records/s between the first record seen on the destination and the last. */
  recordsPerSecond: number
  /** What the destination held at the end: more than asked for means duplicates (at-least-once delivery). */
  records: number
  /** The records asked for: the source topic's size when the mirror started. */
  target: number
}

/**
 * Polls the destination topic's high watermarks until they hold `total` records. `failed` ends the wait
 * early with its reason (a MirrorMaker that exited, an engine partition that FAILED).
 */
export async function watchDrain(admin: Admin, topic: string, total: number, startedAt: number, failed: () => string | null, timeoutMs: number, count: () => Promise<number> = () => highWatermarkSum(admin, topic)): Promise<Drain> {
  let first: { at: number; records: number } | null = null
  for (;;) {
    const records = await count()
    const at = performance.now()
    if (first === null && records > 0) first = { at, records }
    if (records >= total && first !== null) {
      const steadyMs = at - first.at
      return { wallMs: at - startedAt, startupMs: first.at - startedAt, recordsPerSecond: steadyMs > 0 ? (records - first.records) / (steadyMs / 1000) : Number.POSITIVE_INFINITY, records, target: total }
    }
    const reason = failed()
    if (reason !== null) throw new Error(`the mirror stopped before ${topic} held ${total} records (${records}): ${reason}`)
    if (at - startedAt > timeoutMs) throw new Error(`${topic} held ${records} of ${total} records after ${Math.round(timeoutMs / 1000)} s`)
    await sleep(25)
  }
}

/**
 * End-to-end lag of a running, caught-up mirror: a burst of one 100-record batch per partition is produced to
 * the source (acks=all), and the time from its acknowledgement until the destination's high watermarks cover
 * it is measured, `rounds` times a second apart. Returns the lags in ms and how many records were added.
 */
export async function burstLags(producer: Producer, sourceTopic: string, destinationAdmin: Admin, destinationTopic: string, rounds: number, markersPerBurst = 0): Promise<{ lagsMs: number[]; added: number }> {
  const lagsMs: number[] = []
  let expected = await highWatermarkSum(destinationAdmin, destinationTopic)
  const perBurst = PARTITIONS * 100
  // Atomic appends: each partition's append of the burst ends with its COMMIT marker (an offset of its own), the
  // moment the burst is readable read_committed.
  for (let round = 0; round < rounds; round++) {
    const value = `burst ${round}:`.padEnd(RECORD_BYTES, 'x')
    await producer.send({ topic: sourceTopic, acks: -1, messages: Array.from({ length: perBurst }, (_, i) => ({ partition: i % PARTITIONS, value })) })
    const acknowledged = performance.now()
    expected += perBurst + markersPerBurst
    for (;;) {
      if ((await highWatermarkSum(destinationAdmin, destinationTopic)) >= expected) break
      if (performance.now() - acknowledged > 60_000) throw new Error(`burst ${round} not on ${destinationTopic} after 60 s`)
      await sleep(5)
    }
    lagsMs.push(performance.now() - acknowledged)
    await sleep(1000)
  }
  return { lagsMs, added: rounds * perBurst }
}

/** The adapter's raw fetch (Fetch v12, whole batches as bytes, 1 MiB a partition, 10 MiB a response) from 0 to the end: records/s. */
export async function rawFetchRate(source: KafkaSourceCluster, topic: string): Promise<number> {
  const [described] = await source.describeTopics([topic])
  if (!described) throw new Error(`${topic} does not exist`)
  const ends = new Map(described.partitions.map((p) => [p.partition, p.highWatermark]))
  const next = new Map(described.partitions.map((p) => [p.partition, 0]))
  const total = [...ends.values()].reduce((a, b) => a + b, 0)
  const started = performance.now()
  for (;;) {
    const requests = [...next].filter(([partition, offset]) => offset < ends.get(partition)!).map(([partition, fetchOffset]) => ({ topic, partition, fetchOffset, lastFetchedEpoch: -1, maxBytes: 1024 * 1024 }))
    if (requests.length === 0) break
    const results = await source.fetch(requests, { maxBytes: 10 * 1024 * 1024, maxWaitMs: 0 })
    for (const result of results) {
      if (!result.ok) throw new Error(`raw fetch ${topic}-${result.partition}: ${result.error.code} ${result.error.message}`)
      const last = splitBatches(result.records).at(-1)
      if (last) next.set(result.partition, last.header.lastOffset + 1)
    }
  }
  return total / ((performance.now() - started) / 1000)
}

/** A plain kafkajs consumer (group, fromBeginning, eachBatch, default fetch sizes) reading the whole topic: records/s from its first batch. */
export async function kafkajsConsumerRate(kafka: Kafka, admin: Admin, topic: string): Promise<number> {
  const total = await highWatermarkSum(admin, topic)
  const groupId = `bench-consumer-${Date.now().toString(36)}`
  const consumer = kafka.consumer({ groupId })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  let count = 0
  let started = 0
  try {
    return await new Promise<number>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (started === 0) started = performance.now()
            count += batch.messages.length
            if (count >= total) resolve(total / ((performance.now() - started) / 1000))
          },
        })
        .catch(reject)
    })
  } finally {
    await consumer.disconnect()
    await admin.deleteGroups([groupId]).catch(() => undefined)
  }
}

/**
 * The data records a read_committed reader gets from `topic`, counted from the raw batches (0 → high watermark of each
 * partition): records outside transactions, and those of transactions that ended with a COMMIT marker; control
 * records and aborted transactions not counted. Independent of the emulation's own bookkeeping.
 */
export async function committedRecords(source: KafkaSourceCluster, topic: string): Promise<number> {
  const [described] = await source.describeBrokerTopics([topic])
  if (!described) throw new Error(`${topic} does not exist`)
  let total = 0
  for (const { partition, highWatermark } of described.partitions) {
    const open = new Map<number, number>()
    for (let next = 0; next < highWatermark; ) {
      const [result] = await source.fetch([{ topic, partition, fetchOffset: next, lastFetchedEpoch: -1, maxBytes: 1024 * 1024 }], { maxBytes: 10 * 1024 * 1024, maxWaitMs: 0 })
      if (!result || !result.ok) throw new Error(`raw fetch ${topic}-${partition}: ${result?.ok === false ? result.error.message : 'no answer'}`)
      const found = splitBatches(result.records)
      if (found.length === 0) break
      for (const { header, position } of found) {
        if (header.baseOffset < next) continue
        if (header.isControl) {
          const { type } = readControlInfo(result.records.subarray(position, position + header.sizeInBytes), header)
          if (type === 'COMMIT') total += open.get(header.producerId) ?? 0
          open.delete(header.producerId)
        } else if (header.isTransactional) open.set(header.producerId, (open.get(header.producerId) ?? 0) + header.recordCount)
        else total += header.recordCount
      }
      next = found.at(-1)!.header.lastOffset + 1
    }
  }
  return total
}
