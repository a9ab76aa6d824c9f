import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { isClusterError } from '@/server/cluster/errors'
import { EngineError } from './errors'
import { failedOperations } from './mirror-alert-figures'
import { createEngineHarness, type EngineHarness } from './testing/harness'
import type { FailoverOperation } from './types'

/** A planned switchover through the engine on embedded clusters (issue #34): fence, drain, stop, nothing lost. */

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

const PARTITIONS = 3
const REQUESTER = { actor: 'session:1a2b3c4d', role: 'operator' as const }

async function segmentBytes(cluster: EmbeddedCluster, topic: string, partition: number): Promise<Buffer> {
  const description = (await cluster.describeTopic(topic)).partitions[partition]!
  const log = cluster.replicaLog({ topic, partition }, description.leader)!
  const files = (await readdir(log.dir)).filter((file) => file.endsWith('.log')).sort()
  return Buffer.concat(await Promise.all(files.map((file) => readFile(path.join(log.dir, file)))))
}

async function mirrored(config: Record<string, number> = {}): Promise<EmbeddedCluster> {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, log: process.env.SWITCHOVER_LOG ? (m, f) => console.log(m, f) : undefined })
  const a = harness.cluster('a')
  await a.createTopic({ name: 'orders', partitions: PARTITIONS, replicationFactor: 1 })
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config })
  await harness.run(3)
  return a
}

/** Ticks until the operation has finished (or `limit` ticks), running `each` before every tick. */
async function tickUntilFinished(id: string, each: () => Promise<void> = async () => {}, limit = 200, stepMs = 100): Promise<FailoverOperation> {
  for (let i = 0; i < limit && harness.engine.getOperation(id).status === 'running'; i++) {
    await each()
    await harness.run(1, stepMs)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  return structuredClone(await harness.engine.awaitOperation(id))
}

/** Ticks until `done` holds (the phases write to disk between ticks, in real time). */
async function tickUntil(done: () => boolean, limit = 300): Promise<void> {
  for (let i = 0; i < limit && !done(); i++) {
    await harness.run(1)
    // The phases write to disk in real time while the clock is manual: give their fsyncs a moment.
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  if (!done()) throw new Error(`not reached in ${limit} ticks: ${JSON.stringify(harness.engine.listOperations()[0]?.switchover)}`)
}

describe('planned switchover', () => {
  it('under a live idempotent, transactional and plain workload: every acknowledged record on the destination, offset by offset, no ABORT for what the source committed, writers refused with TOPIC_WRITE_FENCED', async () => {
    const a = await mirrored()
    const committing = await a.createTransactionalProducer('committing')
    const acknowledged: Array<{ partition: number; offset: number; value: string }> = []
    const refused = { idempotent: 0, plain: 0, transactional: 0, other: [] as string[] }
    let round = 0
    const write = async () => {
      round += 1
      const attempt = async (kind: 'idempotent' | 'plain' | 'transactional', send: () => Promise<Array<{ partition: number; offset: number }>>, value: string) => {
        try {
          for (const record of await send()) acknowledged.push({ ...record, value })
        } catch (error) {
          if (isClusterError(error, 'TOPIC_WRITE_FENCED')) refused[kind] += 1
          else refused.other.push(String(error))
        }
      }
      const partition = round % PARTITIONS
      await attempt('idempotent', async () => (await a.produce('orders', { partition, records: [{ value: `i${round}` }] })).records, `i${round}`)
      await attempt('plain', async () => (await a.produce('orders', { partition, idempotent: false, records: [{ value: `p${round}` }] })).records, `p${round}`)
      await attempt(
        'transactional',
        async () => {
          const sent = (await committing.send('orders', { partition, records: [{ value: `t${round}` }] })).records
          await committing.commit()
          return sent
        },
        `t${round}`,
      )
    }
    for (let i = 0; i < 10; i++) {
      await write()
      await harness.run(1)
    }
    // A transaction open when the fence lands, committed in its grace: STOPPING must not abort it on the destination.
    const graced = await a.createTransactionalProducer('graced')
    const gracedRecords = (await graced.send('orders', { partition: 0, records: [{ value: 'graced' }] })).records
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm', transactionGraceMs: 500, requestedBy: REQUESTER })
    expect(operation).toMatchObject({ kind: 'switchover', type: 'planned', switchover: { phase: 'fenceSource', fenceMethod: 'broker' } })
    let committedInGrace = false
    const finished = await tickUntilFinished(operation.id, async () => {
      await write()
      const phase = harness.engine.getOperation(operation.id).switchover?.phase
      if (!committedInGrace && phase !== 'fenceSource') throw new Error(`the fence phase ended before the graced transaction committed (${phase})`)
      if (!committedInGrace && harness.engine.getOperation(operation.id).switchover?.fencedAt !== null) {
        await graced.commit()
        committedInGrace = true
        for (const record of gracedRecords) acknowledged.push({ ...record, value: 'graced' })
      }
    })
    expect(finished).toMatchObject({ status: 'succeeded', switchover: { phase: 'done', recordsLost: { total: 0 }, transactionsAbortedAtSource: 0 } })
    expect(finished.switchover!.recordsLost!.partitions).toHaveLength(PARTITIONS)
    expect(finished.switchover!.fencedAt).not.toBeNull()
    expect(finished.switchover!.drainedAt).toBeGreaterThanOrEqual(finished.switchover!.fencedAt!)
    expect(finished.switchover!.stoppedAt).toBe(finished.finishedAt)
    expect(finished.partitions.every((p) => p.state === 'STOPPED')).toBe(true)
    expect(refused.other).toEqual([])
    expect(refused.idempotent).toBeGreaterThan(0)
    expect(refused.plain).toBeGreaterThan(0)
    expect(refused.transactional).toBeGreaterThan(0)

    const b = harness.cluster('b')
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const source = await segmentBytes(a, 'orders', partition)
      const destination = await segmentBytes(b, 'orders', partition)
      // Offset by offset: the destination's log begins with the source's, byte for byte (STOPPING's PID reset follows).
      expect(destination.subarray(0, source.length).equals(source)).toBe(true)
      const sourceEnd = (await a.describeTopic('orders')).partitions[partition]!.logEndOffset
      expect(await b.findControlRecord({ topic: 'orders', partition }, 'ABORT', sourceEnd)).toBeNull()
    }
    for (const record of acknowledged) {
      const page = await b.readRecords('orders', record.partition, { fromOffset: record.offset, limit: 1 })
      expect(page.records[0]).toMatchObject({ offset: record.offset, value: record.value })
    }
    // The old source stays fenced (the split-brain guard by construction); the destination takes writes.
    await expect(a.produce('orders', { records: [{ value: 'late' }] })).rejects.toMatchObject({ code: 'TOPIC_WRITE_FENCED' })
    await b.produce('orders', { records: [{ value: 'new primary' }] })
  })

  it('rolls back when the drain does not finish within its timeout: source writable, every partition MIRRORING, nothing lost', async () => {
    // 200 bytes/s: the backlog below takes minutes to copy, the drain has 2 s.
    const a = await mirrored({ 'mirror.replication.throttled.rate': 200 })
    for (let i = 0; i < 40; i++) await a.produce('orders', { partition: i % PARTITIONS, records: [{ value: 'x'.repeat(200) }] })
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm', drainTimeoutMs: 2_000 })
    const finished = await tickUntilFinished(operation.id)
    expect(finished.status).toBe('rolledBack')
    // Nothing was lost: a rollback is not a failure, and the critical OperationFailed alert does not fire for it.
    expect(failedOperations(harness.engine).has('m')).toBe(false)
    expect(finished.switchover).toMatchObject({ phase: 'rolledBack', recordsLost: null })
    expect(finished.switchover!.reason).toMatch(/^the drain did not finish within 2 s: \d+ of 3 partitions still [\d,]+ records behind$/)
    expect(finished.partitions.map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING', 'MIRRORING'])
    expect(await a.writeFences()).toEqual([])
    await a.produce('orders', { partition: 0, records: [{ value: 'after the rollback' }] })
    await harness.engine.updateMirrorConfig('m', { 'mirror.replication.throttled.rate': 0 })
    await harness.run(5)
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const source = await segmentBytes(a, 'orders', partition)
      expect((await segmentBytes(harness.cluster('b'), 'orders', partition)).equals(source)).toBe(true)
    }
  })

  it('rolls back when cancelled before stopping, and refuses a cancel once stopped', async () => {
    const a = await mirrored({ 'mirror.replication.throttled.rate': 200 })
    for (let i = 0; i < 20; i++) await a.produce('orders', { partition: 0, records: [{ value: 'x'.repeat(200) }] })
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm' })
    await tickUntil(() => harness.engine.getOperation(operation.id).switchover?.phase === 'drain')
    await expect(a.produce('orders', { records: [{ value: 'x' }] })).rejects.toMatchObject({ code: 'TOPIC_WRITE_FENCED' })
    // The operator's unfence must not open the source mid-drain (writes the drain would miss): CONFLICT, fence kept.
    await expect(harness.engine.unfence('m', { confirm: 'm' })).rejects.toMatchObject({ code: 'CONFLICT' })
    expect(await a.writeFences()).toHaveLength(1)
    harness.engine.cancelOperation(operation.id, 'session:1a2b3c4d')
    const finished = await tickUntilFinished(operation.id)
    expect(finished).toMatchObject({ status: 'rolledBack', switchover: { phase: 'rolledBack', reason: 'cancelled by session:1a2b3c4d' } })
    await a.produce('orders', { records: [{ value: 'writable again' }] })
    expect(() => harness.engine.cancelOperation(operation.id, 'x')).toThrow(EngineError)
  })

  it('measures 0 lost on partitions that were empty at the stop (no last mirror position) as well', async () => {
    const a = await mirrored()
    await a.produce('orders', { partition: 1, records: [{ value: 'only here' }] })
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm' })
    const finished = await tickUntilFinished(operation.id)
    expect(finished).toMatchObject({ status: 'succeeded', switchover: { recordsLost: { total: 0 } } })
    expect(finished.switchover!.recordsLost!.partitions.map((p) => p.recordsLost)).toEqual([0, 0, 0])
  })

  it('is refused with SOURCE_UNAVAILABLE when the source cannot be reached, pointing at unplanned', async () => {
    const a = await mirrored()
    await a.stopBroker(1)
    await expect(harness.engine.failover('m', { type: 'planned', confirm: 'm' })).rejects.toSatisfy(
      (error: unknown) => error instanceof EngineError && error.code === 'SOURCE_UNAVAILABLE' && error.message.includes('"unplanned"'),
    )
    expect(harness.engine.listOperations()).toEqual([])
  })

  it('resumes its drain after a restart and still loses nothing', async () => {
    const a = await mirrored({ 'mirror.replication.throttled.rate': 500 })
    for (let i = 0; i < 20; i++) await a.produce('orders', { partition: i % PARTITIONS, records: [{ value: 'y'.repeat(200) }] })
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm' })
    await tickUntil(() => harness.engine.getOperation(operation.id).switchover?.phase === 'drain')
    await harness.restart()
    await expect(harness.cluster('a').produce('orders', { records: [{ value: 'x' }] })).rejects.toMatchObject({ code: 'TOPIC_WRITE_FENCED' })
    const finished = await tickUntilFinished(operation.id, undefined, 400)
    expect(finished).toMatchObject({ status: 'succeeded', switchover: { phase: 'done', recordsLost: { total: 0 } } })
    expect(finished.resumedAt).toHaveLength(1)
  })

  it("keeps the old source fenced after the switchover, through the failback's mirroring, and lifts the fence when the failback fails over", async () => {
    const a = await mirrored()
    await a.produce('orders', { partition: 0, records: [{ value: 'before' }] })
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm' })
    expect(await tickUntilFinished(operation.id)).toMatchObject({ status: 'succeeded' })
    expect((await a.writeFences()).map((fence) => fence.mirror)).toEqual(['m'])
    await harness.cluster('b').produce('orders', { partition: 0, records: [{ value: 'on the new source' }] })
    await harness.engine.createMirror({ name: 'm-failback', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] })
    await harness.run(5)
    expect(await a.writeFences()).toHaveLength(1)
    const back = await harness.engine.failover('m-failback', { confirm: 'm-failback' })
    expect(await tickUntilFinished(back.operation.id)).toMatchObject({ status: 'succeeded' })
    expect(await a.writeFences()).toEqual([])
    await a.produce('orders', { partition: 0, records: [{ value: 'writable after the failback' }] })
  })

  it('a failback whose fence lift fails does not declare the old source STOPPED until the lift succeeds', async () => {
    const a = await mirrored()
    const { operation } = await harness.engine.failover('m', { type: 'planned', confirm: 'm' })
    expect(await tickUntilFinished(operation.id)).toMatchObject({ status: 'succeeded' })
    await harness.engine.createMirror({ name: 'm-failback', sourceCluster: 'b', destinationCluster: 'a', topics: ['orders'] })
    await harness.run(5)
    // The engine holds the cluster's powers bound at its start: the refusal goes into the broker's topic table.
    const table = (a as unknown as { topics: { unfenceWrites: EmbeddedCluster['unfenceWrites'] } }).topics
    const unfence = table.unfenceWrites.bind(table)
    let refusing = true
    let refusals = 0
    table.unfenceWrites = async (topics, mirror) => {
      if (refusing) {
        refusals += 1
        throw new Error('metadata write failed')
      }
      return unfence(topics, mirror)
    }
    const back = await harness.engine.failover('m-failback', { confirm: 'm-failback' })
    await harness.run(3)
    expect(refusals).toBeGreaterThan(0)
    expect(harness.engine.getOperation(back.operation.id).partitions.some((p) => p.state === 'STOPPED')).toBe(false)
    expect(await a.writeFences()).toHaveLength(1)
    refusing = false
    const finished = await tickUntilFinished(back.operation.id)
    expect(finished).toMatchObject({ status: 'succeeded' })
    expect(finished.partitions.map((p) => p.state)).toEqual(['STOPPED', 'STOPPED', 'STOPPED'])
    expect(await a.writeFences()).toEqual([])
  })
})
