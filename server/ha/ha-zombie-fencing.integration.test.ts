/**
 * Issue #40, "SIGSTOP an owner past the session timeout, let the others take over, SIGCONT it: its next write is
 * fenced": two instances share a Kafka a → Kafka b mirror through the control cluster (cluster a), each a child
 * process serving the API on loopback (scripts/testing/ha-api-child.ts). A failover starts on the owner, whose
 * STOPPING is held (MIRRORBOARD_TEST_HOLD_STOPPING); the owner is paused (SIGSTOP) past the session timeout, the other
 * instance adopts the mirror and finishes the failover. Then the owner is continued (SIGCONT) and at once writes what
 * it had in hand (MIRRORBOARD_TEST_ZOMBIE_WRITES): its stale record of the operation to `<group>-operations`, the
 * mirror's definition to the destination's state topic. Both writes are refused by Kafka (the adopting instance
 * claimed the mirror's transactional ids), nothing of them is read by anyone (read_committed), and the paused owner
 * says it was fenced in its log and on GET /instances. Without the fencing, its stale operation record (still running)
 * would be the last one on the topic, over the finished one. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { ApiInstances, callInstance, type ApiInstance } from '@/scripts/testing/ha-api-instances'
import { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import { summarizeBatches } from '@/server/cluster/contract/contract'
import type { HaConfig } from './ha-config'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-zombie-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
// Not `ha-…`, `fw-…` nor `ho-…`: the other HA suites delete those groups and topics.
const GROUP = `zf-group-${RUN}`
const MIRROR = `zf-m-${RUN}`
const TOPIC = `zf-t-${RUN}`
const SESSION_TIMEOUT_MS = 6_000
const SECRET_KEY = 'ha-zombie-test-secret-key'
const settle = { timeout: 90_000, interval: 250 }
const HOLD = '0:afterAction:abortTransactions'

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
const readers: KafkaCluster[] = []
const group = new ApiInstances({ group: GROUP, secretKey: SECRET_KEY, sessionTimeoutMs: SESSION_TIMEOUT_MS, dirPrefix: 'mirrorboard-ha-zf-' })
const startInstance = (id: string, env: Record<string, string> = {}) => group.start(id, brokers.a.bootstrap, env)

interface InstanceView {
  id: string
  alive: boolean
  self: boolean
  mirrors: string[]
  fenced?: Array<{ mirror: string; cluster: string; transactionalId: string }>
}

async function instancesSeenBy(instance: ApiInstance): Promise<InstanceView[]> {
  const { body } = await callInstance(instance, '/instances')
  return (body?.instances ?? []) as InstanceView[]
}

async function mirrorsOf(instance: ApiInstance, id: string): Promise<string[]> {
  return (await instancesSeenBy(instance).catch(() => [])).find((view) => view.id === id && view.alive)?.mirrors ?? []
}

/** Every readable (read_committed) record of a one-partition topic with `key`, in log order, as a new reader sees them. */
async function committedValues(bootstrap: string, topic: string, key: string): Promise<Array<string | null>> {
  const reader = await KafkaCluster.open(`reader-${readers.length}`, { bootstrapServers: [bootstrap], allowedHosts: null })
  readers.push(reader)
  const values: Array<string | null> = []
  for (let offset = 0; ; ) {
    const page = await reader.readRecords(topic, 0, { fromOffset: offset, limit: 500, isolation: 'read_committed' })
    for (const record of page.records) if (record.type === 'DATA' && record.key === key) values.push(record.value)
    const last = page.records.at(-1)
    if (!last || last.offset + 1 >= page.lastStableOffset) break
    offset = last.offset + 1
  }
  return values
}

describe('a paused owner woken after the takeover (a zombie)', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'ha-zf-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'ha-zf-b')
    // Other suites' mirrors into b would be shared out too: start from an empty state topic.
    await sourceClient.forget(['zf-', STATE_TOPIC])
    await destinationClient.forget(['zf-', STATE_TOPIC])
  })
  afterAll(async () => {
    group.stopAll()
    for (const reader of readers) await reader.close().catch(() => undefined)
    await sourceClient?.forget(['zf-']).catch(() => undefined)
    await destinationClient?.forget(['zf-', STATE_TOPIC]).catch(() => undefined)
    await sourceClient?.close()
    await destinationClient?.close()
  })

  it('SIGSTOPs the owner mid-failover past the session timeout; SIGCONTed, its operation and state writes are fenced and never read', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: 1 })
    await sourceClient.produce({ topic: TOPIC, partition: 0 }, [{ key: 'k', value: 'committed' }])

    const setupConfig: HaConfig = { bootstrap: [brokers.a.bootstrap], instanceId: 'zf-setup', secretKey: SECRET_KEY, group: GROUP, sessionTimeoutMs: SESSION_TIMEOUT_MS }
    const setup = await openTestRuntime(group.tempDir(), { demo: false, ha: setupConfig })
    await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [brokers.a.bootstrap] })
    await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [brokers.b.bootstrap] })
    await setup.engine.createMirror({ name: MIRROR, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [TOPIC] })
    await vi.waitFor(() => expect(setup.engine.partitions(MIRROR).map((p) => p.state)).toEqual(['MIRRORING']), settle)
    await setup.close()

    const owner = await startInstance('zf-i1', { MIRRORBOARD_TEST_HOLD_STOPPING: HOLD, MIRRORBOARD_TEST_ZOMBIE_WRITES: '1' })
    await vi.waitFor(async () => expect(await mirrorsOf(owner, owner.id), owner.output.slice(-3000)).toEqual([MIRROR]), { timeout: 120_000, interval: 500 })
    // An open transaction copied by the owner (before the other instance starts), so the failover's STOPPING has one to abort (where it is held).
    const transaction = await sourceClient.transactionalProducer(`zf-tx-${RUN}`)
    await transaction.send({ topic: TOPIC, partition: 0 }, [{ key: 'k', value: 'open' }])
    const destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [brokers.b.bootstrap], allowedHosts: null })
    readers.push(destination)
    // Read raw (describing the topic would load b's emulation here, whose start recovers — aborts — open transactions).
    // COMMIT markers left out: the source commits nothing here, so each is an atomic append's own (on with several
    // instances, one per append, as many as the fetch rounds happened to make).
    const destinationBatches = async () => {
      const [fetched] = await destination.source.fetch([{ topic: TOPIC, partition: 0, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: 1 << 20 }], { maxBytes: 1 << 20 })
      return fetched?.ok ? summarizeBatches(fetched.records).map((batch) => batch.type).filter((type) => type !== 'COMMIT') : fetched
    }
    await vi.waitFor(async () => expect(await destinationBatches()).toEqual(['DATA', 'DATA']), settle)

    const survivor = await startInstance('zf-i2')
    await vi.waitFor(async () => {
      expect(await mirrorsOf(survivor, owner.id), survivor.output.slice(-3000)).toEqual([MIRROR])
      expect(await instancesSeenBy(owner).then((all) => all.some((view) => view.id === survivor.id && view.alive))).toBe(true)
    }, { timeout: 120_000, interval: 500 })

    // The other instance started (its registry described b's topics, loading b's emulation) without recovering — so
    // aborting — the transaction the owner keeps open: that is the owner's to end.
    expect(await destinationBatches()).toEqual(['DATA', 'DATA'])

    const accepted = await callInstance(owner, `/mirrors/${MIRROR}/failover`, { method: 'POST', body: { confirm: MIRROR } })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = accepted.body.operation as string
    await vi.waitFor(() => expect(owner.output).toContain(`holding ${HOLD.replaceAll(':', ' ')}`), settle)

    // Paused past the session timeout: the survivor adopts the mirror and finishes the failover.
    owner.process.kill('SIGSTOP')
    await vi.waitFor(async () => {
      const { status, body } = await callInstance(survivor, `/operations/${id}`)
      expect(status).toBe(200)
      expect(body.status, survivor.output.slice(-3000)).toBe('succeeded')
    }, { timeout: SESSION_TIMEOUT_MS * 10, interval: 250 })
    expect(await mirrorsOf(survivor, survivor.id)).toEqual([MIRROR])
    const operationsTopic = `${GROUP}-operations`
    const operationRecords = await committedValues(brokers.a.bootstrap, operationsTopic, id)
    const finishedRecord = operationRecords.at(-1)!
    expect((JSON.parse(finishedRecord) as { outcome: unknown }).outcome).not.toBeNull()
    const definitionRecords = await committedValues(brokers.b.bootstrap, STATE_TOPIC, `mirror/${MIRROR}`)

    // Woken, the owner writes what it had in hand: both writes are refused.
    owner.process.kill('SIGCONT')
    await vi.waitFor(() => {
      expect(owner.output).toContain(`zombie write operation ${id} refused INVALID_PRODUCER_EPOCH`)
      expect(owner.output).toContain(`zombie write state mirror/${MIRROR} refused INVALID_PRODUCER_EPOCH`)
    }, settle)
    expect(owner.output).toContain('fenced: another instance took this mirror over; stopping it here')

    // Nobody reads them: the last record of the operation is still the survivor's finished one, the definition unchanged.
    expect(await committedValues(brokers.a.bootstrap, operationsTopic, id)).toEqual(operationRecords)
    expect(await committedValues(brokers.b.bootstrap, STATE_TOPIC, `mirror/${MIRROR}`)).toEqual(definitionRecords)
    const { body: operation } = await callInstance(survivor, `/operations/${id}`)
    expect(operation.status).toBe('succeeded')

    // The woken owner says on GET /instances that it was fenced, and runs nothing; the survivor keeps the mirror.
    await vi.waitFor(async () => {
      const self = (await instancesSeenBy(owner)).find((view) => view.self)
      expect(self?.mirrors).toEqual([])
      expect(self?.fenced?.map((fenced) => [fenced.mirror, fenced.cluster]).sort()).toEqual([
        [MIRROR, 'control'],
        [MIRROR, 'kafka-b'],
      ])
      const seenBySurvivor = (await instancesSeenBy(survivor)).find((view) => view.id === owner.id)
      expect(seenBySurvivor?.fenced?.map((fenced) => fenced.transactionalId).sort()).toEqual([`mirrorboard-state-${MIRROR}`, `${operationsTopic}-${MIRROR}`].sort())
    }, settle)
    expect(await mirrorsOf(survivor, survivor.id)).toEqual([MIRROR])
  })
})
