import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { splitBatches } from '@/lib/log/record-batch'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { openTestCluster, type TestCluster } from '@/server/cluster/embedded/testing'
import { CHECK_CONCURRENCY, checkReadCommitted, checkSourceUntouched, checkWritesReadBack, TRANSACTIONAL_PRODUCERS, writeToCopy } from './drill-checks'

/**
 * The checks of drill-checks.ts that can be caught failing on one cluster. The producers' check of a drill on a slow machine: one transaction over every drilled partition lasts as long
 * as its writes do (2,000 partitions on a busy server: minutes), so the copy's coordinator must not time it out
 * at the cluster's default 60 s and fail a drill whose copy is sound.
 */

let t: TestCluster
afterEach(async () => t?.cleanup())

/** The sandbox as the checks see it, where every transactional write takes `ms` of the cluster's time, its coordinator ticking after each. */
function slowTransactions(cluster: EmbeddedCluster, advance: (ms: number) => void, ms: number): EmbeddedCluster {
  return new Proxy(cluster, {
    get(target, property) {
      if (property === 'createTransactionalProducer') {
        return async (...args: Parameters<EmbeddedCluster['createTransactionalProducer']>) => {
          const producer = await target.createTransactionalProducer(...args)
          const send = producer.send.bind(producer)
          producer.send = async (...sent) => {
            const result = await send(...sent)
            advance(ms)
            await target.tick()
            return result
          }
          return producer
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

describe("a drill's producer writes", () => {
  it('survive a transaction longer than the copy\'s default transaction timeout (one write every 30 s over 4 partitions)', async () => {
    t = await openTestCluster({ brokers: 1, config: { transactionTimeoutMs: 60_000 } })
    await t.cluster.createTopic({ name: 'orders', partitions: 4 })
    const partitions = [0, 1, 2, 3].map((partition) => ({ topic: 'orders', partition }))
    const slow = slowTransactions(t.cluster, (ms) => t.clock.advance(ms), 30_000)
    const writes = await writeToCopy(slow, 'd-slow', partitions)
    expect(writes.transactionalErrors).toEqual([])
    expect(writes.idempotentErrors).toEqual([])
    const checks = await checkWritesReadBack(t.cluster, partitions, writes)
    expect(checks.map(({ name, ok, detail }) => ({ name, ok, detail: ok ? 'ok' : detail }))).toEqual([
      { name: 'idempotent-producer', ok: true, detail: 'ok' },
      { name: 'transactional-producer', ok: true, detail: 'ok' },
    ])
  })

  it('fail the check when the copy aborts the transaction (what a lost commit looks like)', async () => {
    t = await openTestCluster({ brokers: 1 })
    await t.cluster.createTopic({ name: 'orders', partitions: 2 })
    const partitions = [0, 1].map((partition) => ({ topic: 'orders', partition }))
    // Far past any timeout the drill can set: the coordinator aborts with a bumped epoch and the commit is fenced.
    const slow = slowTransactions(t.cluster, (ms) => t.clock.advance(ms), 24 * 60 * 60 * 1000)
    const writes = await writeToCopy(slow, 'd-stuck', partitions)
    const checks = await checkWritesReadBack(t.cluster, partitions, writes)
    const transactional = checks.find((entry) => entry.name === 'transactional-producer')!
    expect(transactional.ok).toBe(false)
    expect(transactional.detail).toContain('fenced')
    expect(checks.find((entry) => entry.name === 'idempotent-producer')!.ok).toBe(true)
  })
})

describe('checks over many partitions at once', () => {
  it('pass on a sound copy, and name a problem in the last partitions, in the partitions\' order', async () => {
    t = await openTestCluster({ brokers: 1 })
    const count = 3 * CHECK_CONCURRENCY + 5
    await t.cluster.createTopic({ name: 'orders', partitions: count })
    const partitions = Array.from({ length: count }, (_, partition) => ({ topic: 'orders', partition }))
    const writes = await writeToCopy(t.cluster, 'd-wide', partitions)
    expect([writes.idempotent.size, writes.transactional.size, writes.idempotentErrors, writes.transactionalErrors]).toEqual([count, count, [], []])
    const sound = await checkWritesReadBack(t.cluster, partitions, writes)
    expect(sound.map(({ name, ok }) => ({ name, ok }))).toEqual([
      { name: 'idempotent-producer', ok: true },
      { name: 'transactional-producer', ok: true },
    ])
    expect(sound[1]!.detail).toBe(`${TRANSACTIONAL_PRODUCERS} transactional producers, each in one committed transaction over its share, wrote to all ${count} partitions; read_committed returns every record as the copy holds them`)
    expect((await checkReadCommitted(t.cluster, partitions)).ok).toBe(true)

    // Acknowledgements the copy does not hold, in the last partition and an early one; a transaction left open in the last.
    const last = `orders\u0000${count - 1}`
    const early = 'orders\u00002'
    writes.idempotent.set(last, { ...writes.idempotent.get(last)!, value: 'lost' })
    writes.idempotent.set(early, { ...writes.idempotent.get(early)!, value: 'lost' })
    const lost = await checkWritesReadBack(t.cluster, partitions, writes)
    expect(lost[0]!.ok).toBe(false)
    expect(lost[0]!.detail).toMatch(new RegExp(`^orders-2: acknowledged at offset \\d+ but offset \\d+ holds .*; orders-${count - 1}: acknowledged at offset \\d+ but`))
    const open = await t.cluster.createTransactionalProducer('left-open')
    await open.send('orders', { partition: count - 1, records: [{ value: 'undecided' }] })
    const committed = await checkReadCommitted(t.cluster, partitions)
    expect(committed.ok).toBe(false)
    expect(committed.detail).toMatch(new RegExp(`^orders-${count - 1}: the last stable offset is \\d+, not the log end \\d+ \\(a transaction is still open\\)$`))
  })
})

describe("a drill's producer writes read back after a restart", () => {
  it("pass when every partition's log recovers them, and name a write whose batch its recovery cuts (served while running, lost after a crash)", async () => {
    t = await openTestCluster({ brokers: 1 })
    await t.cluster.createTopic({ name: 'orders', partitions: 3 })
    const partitions = [0, 1, 2].map((partition) => ({ topic: 'orders', partition }))
    for (const tp of partitions) await t.cluster.produce('orders', { partition: tp.partition, records: [{ key: 'k', value: 'mirrored' }] })
    const writes = await writeToCopy(t.cluster, 'd-crash', partitions)
    const sound = await checkWritesReadBack(t.cluster, partitions, writes, { restart: true })
    expect(sound.map(({ name, ok }) => ({ name, ok }))).toEqual([
      { name: 'idempotent-producer', ok: true },
      { name: 'transactional-producer', ok: true },
    ])
    expect(sound[0]!.detail).toContain("after each partition's broker restarted as after a crash")

    // Partition 1's idempotent write: its batch's checksum no longer matches (a torn or lost write the running
    // broker still serves from its page cache). Read as the copy holds it, it is there; recovered, it is cut.
    const written = writes.idempotent.get('orders\u00001')!
    const file = path.join(t.dir, 'broker-1', 'orders-1', fs.readdirSync(path.join(t.dir, 'broker-1', 'orders-1')).filter((name) => name.endsWith('.log')).sort().at(-1)!)
    const bytes = fs.readFileSync(file)
    const batch = splitBatches(bytes).find(({ header }) => header.baseOffset === written.offset)!
    bytes[batch.position + 17]! ^= 0xff
    fs.writeFileSync(file, bytes)
    expect((await checkWritesReadBack(t.cluster, partitions, writes)).every((entry) => entry.ok)).toBe(true)
    const lost = await checkWritesReadBack(t.cluster, partitions, writes, { restart: true })
    expect(lost[0]).toMatchObject({ name: 'idempotent-producer', ok: false })
    expect(lost[0]!.detail).toMatch(/^orders-1: acknowledged at offset \d+ but not there after the restart/)
  })
})

describe('the source untouched', () => {
  async function source(): Promise<void> {
    t = await openTestCluster({ brokers: 1 })
    await t.cluster.createTopic({ name: 'orders', partitions: 2 })
    for (const partition of [0, 1]) await t.cluster.produce('orders', { partition, records: [{ key: 'k', value: 'mirrored' }, { key: 'k', value: 'mirrored too' }] })
  }
  const partitions = [0, 1].map((partition) => ({ topic: 'orders', partition, mirroredOffset: 2 }))

  it('passes when the source took only its own records after the copy, and counts what it read', async () => {
    await source()
    for (let i = 0; i < 3; i++) await t.cluster.produce('orders', { partition: 1, records: [{ key: 'k', value: `production ${i}` }] })
    const verdict = await checkSourceUntouched(t.cluster, { sourceName: 'a', drillId: 'd-77', partitions, refusedCalls: 4 })
    expect(verdict).toEqual({
      name: 'source-untouched',
      ok: true,
      detail: "2 partitions of a read from the copy's mirrored offsets to their high watermarks (3 records in 3 batches): no MIRROR_PID_RESET and no record of the drill's producers; the copy's engine had the source only through a port that refuses every call (4 calls refused)",
    })
  })

  it("fails on a record of the drill's producers after the copy's point, and on a source it cannot read", async () => {
    await source()
    await t.cluster.produce('orders', { partition: 0, records: [{ key: 'k', value: 'production' }] })
    await t.cluster.produce('orders', { partition: 0, idempotent: true, records: [{ key: 'd-77', value: 'd-77 idempotent write to orders-0' }] })
    const reached = await checkSourceUntouched(t.cluster, { sourceName: 'a', drillId: 'd-77', partitions, refusedCalls: 0 })
    expect(reached).toMatchObject({ ok: false, detail: "orders-0: a record keyed d-77 (the drill's producers' key) at 3" })
    // The same record before the copy's point is the copy's own history, not a write that reached the source.
    // (Partition 1's log ends before offset 4: nothing after the copy's point there.)
    expect((await checkSourceUntouched(t.cluster, { sourceName: 'a', drillId: 'd-77', partitions: partitions.map((p) => ({ ...p, mirroredOffset: 4 })), refusedCalls: 0 })).ok).toBe(true)

    await t.cluster.close()
    const unread = await checkSourceUntouched(t.cluster, { sourceName: 'a', drillId: 'd-77', partitions, refusedCalls: 0 })
    expect(unread.ok).toBe(false)
    expect(unread.detail).toMatch(/^orders-0: the source could not be read from offset 2 \(.+\), so nothing is confirmed; orders-1: /)
  })
})
