/**
 * Issue #40's zombie fencing of the shared state: a mirror's records on its destination's state topic
 * (`mirrorboard-mirror-state`), written by two instances' Kafka clusters (KafkaCluster with fenced writes, as each
 * instance's registry opens them). Once the instance that took the mirror over has claimed it (its InitProducerId for
 * the mirror's transactional id), the old owner's write is refused by the broker, is not applied for any reader
 * (the topic is read read_committed), and the old owner is told (`onWritesFenced`); it never fences the new owner
 * back, and writes again once it claims the mirror again. The same holds for a mirror topic's emulation record (its
 * read-only flag), written in a transaction of the mirror's id since session 24. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import { KafkaCluster } from './kafka-cluster'
import type { UnitFenced } from './unit-transactions'

const RUN = Date.now().toString(36)
const opened: KafkaCluster[] = []

async function instance(fencedWrites: boolean): Promise<{ cluster: KafkaCluster; fenced: UnitFenced[] }> {
  const fenced: UnitFenced[] = []
  const cluster = await KafkaCluster.open('b', { bootstrapServers: [getTestClusters().b.bootstrap] }, { fencedWrites, onWritesFenced: (unit) => fenced.push(unit) })
  opened.push(cluster)
  return { cluster, fenced }
}

/** A position record of the mirror: the engine's key format (`position/<mirror>/<topicId>/<partition>`). */
const write = (cluster: KafkaCluster, mirror: string, by: string) => cluster.host.appendMirrorState([{ key: `position/${mirror}/t-${RUN}/0`, value: JSON.stringify({ by }) }])

/** The last value of the mirror's position record, as a newly started instance reads the topic. */
async function lastWrite(mirror: string, fencedWrites: boolean): Promise<string | undefined> {
  const { cluster } = await instance(fencedWrites)
  const records = (await cluster.host.readMirrorState()).filter((record) => record.key === `position/${mirror}/t-${RUN}/0`)
  return records.length === 0 ? undefined : (JSON.parse(records.at(-1)!.value!) as { by: string }).by
}

describe('fenced state-topic writes of a mirror (issue #40)', () => {
  beforeAll(() => {
    getTestClusters()
  })
  afterAll(async () => {
    for (const cluster of opened) await cluster.close().catch(() => undefined)
  })

  it('refuses the old owner’s write once the new owner claimed the mirror; nobody reads it; the old owner is told', async () => {
    const mirror = `sf-${RUN}`
    const old = await instance(true)
    await write(old.cluster, mirror, 'old-1')
    const taker = await instance(true)
    // The new owner adopts the mirror (server/engine/state/adopt-mirror.ts): claimed before it reads it.
    await taker.cluster.host.claimMirrorState(mirror)
    await write(taker.cluster, mirror, 'new-1')

    // The zombie wakes up and writes what it had in hand.
    await expect(write(old.cluster, mirror, 'zombie')).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })
    expect(old.fenced.map((fenced) => fenced.unit)).toEqual([mirror])
    expect(old.fenced[0]!.transactionalId).toBe(`mirrorboard-state-${mirror}`)
    // Refused again without a new producer (which would fence the new owner back).
    await expect(write(old.cluster, mirror, 'zombie-again')).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })
    expect(old.fenced).toHaveLength(1)
    expect(await lastWrite(mirror, true)).toBe('new-1')
    expect(await lastWrite(mirror, false)).toBe('new-1')

    // The new owner was not fenced back.
    await write(taker.cluster, mirror, 'new-2')
    expect(await lastWrite(mirror, true)).toBe('new-2')
    expect(taker.fenced).toEqual([])

    // Handed back, the old owner claims the mirror again and writes; now the other one is fenced.
    await old.cluster.host.claimMirrorState(mirror)
    await write(old.cluster, mirror, 'old-2')
    await expect(write(taker.cluster, mirror, 'new-3')).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })
    expect(await lastWrite(mirror, true)).toBe('old-2')
  })

  it('a fenced mirror does not hold back another mirror’s records written in the same append', async () => {
    const mirror = `sf-pair-${RUN}`
    const other = `${mirror}-other`
    const old = await instance(true)
    await write(old.cluster, mirror, 'old-1')
    await write(old.cluster, other, 'old-1')
    const taker = await instance(true)
    await taker.cluster.host.claimMirrorState(mirror)
    const both = old.cluster.host.appendMirrorState([
      { key: `position/${mirror}/t-${RUN}/0`, value: JSON.stringify({ by: 'zombie' }) },
      { key: `position/${other}/t-${RUN}/0`, value: JSON.stringify({ by: 'old-2' }) },
    ])
    // The error names what was written (server/engine/state/state-store.ts resolves those writes' callers).
    await expect(both).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH', details: { written: [`position/${other}/t-${RUN}/0`] } })
    expect(await lastWrite(mirror, true)).toBe('old-1')
    expect(await lastWrite(other, true)).toBe('old-2')
  })

  it('refuses the old owner’s read-only flip of a mirror topic once the new owner claimed the mirror: the topic’s emulation record goes through the mirror’s id', async () => {
    const mirror = `sf-topic-${RUN}`
    const topic = `sf-topic-${RUN}`
    const old = await instance(true)
    await old.cluster.host.createMirrorTopic({ name: topic, topicId: `StateFencing${RUN}`.padEnd(22, '0').slice(0, 22), partitions: 1, mirror })
    const taker = await instance(true)
    await taker.cluster.host.claimMirrorState(mirror)

    // The zombie, woken in a failover it had started, makes the topic writable (partition-runner.ts: mirror null).
    await expect(old.cluster.host.setReadOnly(topic, false, null)).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })
    expect(old.fenced.map((fenced) => [fenced.unit, fenced.transactionalId])).toEqual([[mirror, `mirrorboard-state-${mirror}`]])
    const { cluster: reader } = await instance(true)
    expect((await reader.describeTopic(topic)).readOnly).toBe(true)

    // The new owner's own flip is written, and read by the next instance.
    await taker.cluster.host.setReadOnly(topic, false, null)
    const { cluster: later } = await instance(true)
    expect((await later.describeTopic(topic)).readOnly).toBe(false)
    expect(taker.fenced).toEqual([])
  })
})
