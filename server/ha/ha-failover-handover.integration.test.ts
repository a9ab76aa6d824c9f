/**
 * Issue #40, "a failover running on an instance that dies is resumed by the new owner from the durable operation
 * record": two instances share a Kafka a → Kafka b mirror through the control cluster (cluster a), each a child process
 * serving the API on loopback (scripts/testing/ha-api-child.ts). The mirror's two partitions each copied an open
 * transaction. A failover starts on the owner, whose STOPPING is held (MIRRORBOARD_TEST_HOLD_STOPPING) right after
 * partition 0 wrote its ABORT and partition 1 its ABORT and MIRROR_PID_RESET, neither step recorded; then the owner is
 * SIGKILLed. The other instance adopts the mirror, finds the operation on the control cluster's operations topic and
 * finishes it: every partition STOPPED, each marker in the destination exactly once, and GET /operations/{id} on the
 * survivor shows it succeeded with its timeline (accepted, resumed, finished). Before the kill, the survivor forwards
 * the operation's reads to the owner; between the kill and the takeover it answers the last shared record.
 * Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { ApiInstances, callInstance, type ApiInstance } from '@/scripts/testing/ha-api-instances'
import { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import { partitionKey, readPartitionEmulation } from '@/server/cluster/kafka/kafka-mirror-state'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import { summarizeBatches } from '@/server/cluster/contract/contract'
import type { HaConfig } from './ha-config'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-handover-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
// Not `ha-…` nor `fw-…`: the other HA suites delete those groups and topics.
const GROUP = `ho-group-${RUN}`
const MIRROR = `ho-m-${RUN}`
const TOPIC = `ho-t-${RUN}`
const PARTITIONS = 2
const SESSION_TIMEOUT_MS = 6_000
const SECRET_KEY = 'ha-handover-test-secret-key'
const settle = { timeout: 90_000, interval: 250 }
/** Where the owner's STOPPING stops for good: each partition's markers written, the step not recorded. */
const HOLDS = ['0:afterAction:abortTransactions', '1:afterAction:pidReset']
const MIB = 1 << 20

type Instance = ApiInstance

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let destination: KafkaCluster | null = null
const group = new ApiInstances({ group: GROUP, secretKey: SECRET_KEY, sessionTimeoutMs: SESSION_TIMEOUT_MS, dirPrefix: 'mirrorboard-ha-ho-' })
const tempDir = () => group.tempDir()
const startInstance = (id: string, env: Record<string, string> = {}) => group.start(id, brokers.a.bootstrap, env)
/** Which instance answered (`X-Mirrorboard-Instance`: the owner a request was forwarded to), beside the answer. */
const call = async (instance: Instance, pathname: string, options: { method?: string; body?: unknown } = {}) => {
  const answer = await callInstance(instance, pathname, options)
  return { ...answer, answeredBy: answer.headers.get('x-mirrorboard-instance') }
}

interface OperationView {
  id: string
  status: string
  resumedAt: number[]
  partitions: Array<{ partition: number; state: string; step: string; error: string | null }>
}

async function mirrorsOf(instance: Instance, id: string): Promise<string[]> {
  const { body } = await call(instance, '/instances')
  return ((body?.instances ?? []) as Array<{ id: string; alive: boolean; mirrors: string[] }>).find((view) => view.id === id && view.alive)?.mirrors ?? []
}

/**
 * Each batch of a destination partition, by type, read from the broker; COMMIT markers left out: the source commits
 * nothing here, so every COMMIT on the destination is an atomic append's own (on with several instances, one per
 * append, as many as the fetch rounds happened to make).
 */
async function destinationBatchTypes(partition: number): Promise<string[]> {
  const [fetched] = await destination!.source.fetch([{ topic: TOPIC, partition, fetchOffset: 0, lastFetchedEpoch: -1, maxBytes: MIB }], { maxBytes: MIB })
  if (!fetched?.ok) throw new Error(`destination fetch failed: ${JSON.stringify(fetched)}`)
  return summarizeBatches(fetched.records).map((batch) => batch.type).filter((type) => type !== 'COMMIT')
}

/** The MIRROR_PID_RESETs the destination's emulation recorded for a partition (no client can write the record itself). */
async function pidResets(partition: number): Promise<number[]> {
  const key = partitionKey(TOPIC, partition)
  let latest: unknown = null
  for (let offset = 0; ; ) {
    const page = await destination!.readRecords(STATE_TOPIC, 0, { fromOffset: offset, limit: 500, isolation: 'read_committed' })
    for (const record of page.records) if (record.type === 'DATA' && record.key === key) latest = record.value === null ? null : JSON.parse(record.value)
    const last = page.records.at(-1)
    if (!last || last.offset + 1 >= page.highWatermark) break
    offset = last.offset + 1
  }
  return readPartitionEmulation(latest)?.pidResets ?? []
}

describe('a failover handed over with its mirror', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'ha-ho-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'ha-ho-b')
    // Other suites' mirrors into b would be shared out too: start from empty state topics.
    await sourceClient.forget(['ho-', STATE_TOPIC])
    await destinationClient.forget(['ho-', STATE_TOPIC])
  })
  afterAll(async () => {
    group.stopAll()
    await destination?.close().catch(() => undefined)
    await sourceClient?.forget(['ho-']).catch(() => undefined)
    await destinationClient?.forget(['ho-', STATE_TOPIC]).catch(() => undefined)
    await sourceClient?.close()
    await destinationClient?.close()
  })

  it('SIGKILLs the owner during a failover’s STOPPING: the instance that adopts the mirror finishes it, each marker written exactly once', async () => {
    await sourceClient.createTopic(TOPIC, { partitions: PARTITIONS })
    for (let partition = 0; partition < PARTITIONS; partition++) await sourceClient.produce({ topic: TOPIC, partition }, [{ key: 'k', value: `committed-${partition}` }])

    const setupConfig: HaConfig = { bootstrap: [brokers.a.bootstrap], instanceId: 'ho-setup', secretKey: SECRET_KEY, group: GROUP, sessionTimeoutMs: SESSION_TIMEOUT_MS }
    const setup = await openTestRuntime(tempDir(), { demo: false, ha: setupConfig })
    await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [brokers.a.bootstrap] })
    await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [brokers.b.bootstrap] })
    await setup.engine.createMirror({ name: MIRROR, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [TOPIC] })
    await vi.waitFor(() => expect(setup.engine.partitions(MIRROR).map((p) => p.state)).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)
    await setup.close()

    // The owner-to-be starts alone (so the mirror is its own) and holds its STOPPING; the other joins afterwards.
    const owner = await startInstance('ho-i1', { MIRRORBOARD_TEST_HOLD_STOPPING: HOLDS.join(',') })
    await vi.waitFor(async () => expect(await mirrorsOf(owner, owner.id).catch(() => []), owner.output.slice(-3000)).toEqual([MIRROR]), { timeout: 120_000, interval: 500 })
    const survivor = await startInstance('ho-i2')
    await vi.waitFor(async () => {
      expect(await mirrorsOf(survivor, owner.id).catch(() => []), survivor.output.slice(-3000)).toEqual([MIRROR])
      expect(await mirrorsOf(owner, survivor.id).catch(() => null)).toEqual([])
    }, { timeout: 120_000, interval: 500 })

    // A transaction left open, copied by the owner (one copied by an earlier instance would be aborted by the
    // emulation when the owner took the mirror: then the failover would have none to abort).
    const transaction = await sourceClient.transactionalProducer(`ho-tx-${RUN}`)
    for (let partition = 0; partition < PARTITIONS; partition++) await transaction.send({ topic: TOPIC, partition }, [{ key: 'k', value: `open-${partition}` }])
    destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [brokers.b.bootstrap], allowedHosts: null })
    await vi.waitFor(async () => {
      for (let partition = 0; partition < PARTITIONS; partition++) expect(await destinationBatchTypes(partition)).toEqual(['DATA', 'DATA'])
    }, settle)

    const accepted = await call(owner, `/mirrors/${MIRROR}/failover`, { method: 'POST', body: { confirm: MIRROR } })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = accepted.body.operation as string

    // Held mid-STOPPING on the owner: partition 0 aborted its transaction, partition 1 also wrote its PID reset.
    await vi.waitFor(async () => {
      const { body } = await call(owner, `/operations/${id}`)
      const operation = body as unknown as OperationView
      expect(operation.status).toBe('running')
      expect(operation.partitions.map(({ partition, state, step }) => [partition, state, step])).toEqual([
        [0, 'STOPPING', 'abortTransactions'],
        [1, 'STOPPING', 'pidReset'],
      ])
      expect(owner.output).toContain('holding 0 afterAction abortTransactions')
      expect(owner.output).toContain('holding 1 afterAction pidReset')
    }, settle)
    for (let partition = 0; partition < PARTITIONS; partition++) expect(await destinationBatchTypes(partition)).toEqual(['DATA', 'DATA', 'ABORT'])
    expect(await pidResets(0)).toEqual([])
    expect(await pidResets(1)).toHaveLength(1)

    // Asked of the other instance, the operation is answered live by its owner.
    const forwarded = await call(survivor, `/operations/${id}`)
    expect(forwarded.status).toBe(200)
    expect(forwarded.answeredBy).toBe(owner.id)
    expect((forwarded.body as unknown as OperationView).partitions.map((p) => p.state)).toEqual(['STOPPING', 'STOPPING'])

    owner.process.kill('SIGKILL')
    await new Promise((resolve) => owner.process.once('exit', resolve))
    const killedAt = Date.now()
    // Until the survivor has adopted the mirror, the operation's last shared record answers (the wizard keeps showing it).
    const meanwhile = await call(survivor, `/operations/${id}`)
    expect(meanwhile.status).toBe(200)
    expect(meanwhile.answeredBy).toBeNull()
    expect((meanwhile.body as unknown as OperationView).id).toBe(id)

    // The survivor adopts the mirror, resumes the failover from the shared record and finishes it.
    let finished: OperationView | null = null
    await vi.waitFor(async () => {
      const { status, body, answeredBy } = await call(survivor, `/operations/${id}`)
      expect(status).toBe(200)
      expect(answeredBy).toBeNull()
      finished = body as unknown as OperationView
      expect(finished.status, survivor.output.slice(-3000)).toBe('succeeded')
    }, { timeout: SESSION_TIMEOUT_MS * 10, interval: 250 })
    console.log(`failover ${id} finished on ${survivor.id} ${Date.now() - killedAt} ms after the SIGKILL of ${owner.id}`)
    expect(finished!.partitions.map(({ partition, state, step, error }) => [partition, state, step, error])).toEqual([
      [0, 'STOPPED', 'done', null],
      [1, 'STOPPED', 'done', null],
    ])
    expect(finished!.resumedAt).toHaveLength(1)
    expect(await mirrorsOf(survivor, survivor.id)).toEqual([MIRROR])

    // Each marker exactly once: one ABORT per open transaction, one MIRROR_PID_RESET per partition.
    for (let partition = 0; partition < PARTITIONS; partition++) {
      expect(await destinationBatchTypes(partition)).toEqual(['DATA', 'DATA', 'ABORT'])
      expect(await pidResets(partition)).toHaveLength(1)
    }

    // Its report on the survivor tells the whole story: accepted on the dead owner, resumed here, finished.
    const report = await call(survivor, `/operations/${id}/report`)
    expect(report.status, JSON.stringify(report.body)).toBe(200)
    const events = (report.body.timeline as Array<{ event: string }>).map((entry) => entry.event)
    expect(events).toContain('confirmed')
    expect(events).toContain('resumed')
    expect(events).toContain('finished')
  })
})
