/**
 * Issue #40 with issue #34: a planned switchover whose instance dies is carried on by the instance that adopts its
 * mirror, exactly as the durable operation record on the control cluster's operations topic says. Two instances
 * share a Kafka a → Kafka b mirror (cluster a is also the control cluster), each a child process serving the API on
 * loopback (scripts/testing/ha-api-child.ts). Source a has no authorizer, so the switchover's fence is `none` (the
 * write-fence gate forced) and its drain waits for the source's log ends to stand still: a producer that keeps
 * writing holds the owner in its drain. The owner is SIGKILLed there, once the shared record says `drain`:
 * - the producer stops after the survivor has taken the operation over: the survivor finishes the drain and the stops,
 *   0 records lost measured, every partition STOPPED, and the destination holds every source batch, as the source
 *   has it;
 * - the producer goes on past the record's drain deadline (accepted on the dead owner): the survivor rolls back at
 *   that deadline, not one of its own, and the mirror mirrors on there: once the producer stops, the destination
 *   equals the source, batch by batch;
 * - a b → a mirror (source b runs an authorizer: the fence is DENY WRITE ACLs) whose owner is held in its fence by a
 *   transaction open on the source: the survivor keeps the fence the record says is in place, waits for the
 *   transaction to end (committed) and finishes; the destination transaction the dead owner left open is aborted
 *   by the survivor's emulation and its records carried into a new one, so a read_committed reader of the
 *   destination gets every record the source committed, each once.
 * Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { brokerBatches } from '@/scripts/kafka/broker-log'
import { mirroredLog, sourceLog } from '@/server/cluster/kafka/testing/mirrored-log'
import { ApiInstances, callInstance, type ApiInstance } from '@/scripts/testing/ha-api-instances'
import { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import type { HaConfig } from './ha-config'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-switchover-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
// Not `ha-…`, `fw-…`, `ho-…`: the other HA suites delete those groups and topics.
const PREFIX = 'sw-'
const PARTITIONS = 2
const SESSION_TIMEOUT_MS = 6_000
const SECRET_KEY = 'ha-switchover-test-secret-key'
const settle = { timeout: 90_000, interval: 250 }

interface SwitchoverView {
  phase: string
  drainStartedAt: number | null
  drainTimeoutMs: number
  reason: string | null
  recordsLost: { total: number | null } | null
}

interface OperationView {
  id: string
  status: string
  resumedAt: number[]
  switchover: SwitchoverView
  partitions: Array<{ partition: number; state: string; error: string | null }>
}

let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let control: KafkaCluster | null = null
let group: ApiInstances | null = null
let producing = false
let producer: Promise<void> = Promise.resolve()

function brokerLog(bootstrap: string, topic: string, partition: number): Promise<Array<[number, number, string]>> {
  return brokerBatches(bootstrap, topic, partition, `sw-raw-${RUN}`)
}

/** The operation's latest record on the operations topic, as the instance that adopts the mirror will read it. */
async function sharedRecord(topic: string, id: string): Promise<OperationView | null> {
  let latest: OperationView | null = null
  for (let offset = 0; ; ) {
    const page = await control!.readRecords(topic, 0, { fromOffset: offset, limit: 500, isolation: 'read_committed' })
    for (const record of page.records) if (record.type === 'DATA' && record.key === id) latest = record.value === null ? null : (JSON.parse(record.value) as OperationView)
    const last = page.records.at(-1)
    if (!last || last.offset + 1 >= page.highWatermark) return latest
    offset = last.offset + 1
  }
}

/** A partition's record values as a read_committed consumer reads them (aborted records and markers left out). */
async function committedValues(cluster: KafkaCluster, topic: string, partition: number): Promise<Array<string | null>> {
  const values: Array<string | null> = []
  for (let offset = 0; ; ) {
    const page = await cluster.readRecords(topic, partition, { fromOffset: offset, limit: 500, isolation: 'read_committed' })
    for (const record of page.records) if (record.type === 'DATA') values.push(record.value)
    const last = page.records.at(-1)
    if (!last || last.offset + 1 >= page.highWatermark) return values
    offset = last.offset + 1
  }
}

async function mirrorsOf(instance: ApiInstance, id: string): Promise<string[]> {
  const { body } = await callInstance(instance, '/instances')
  return ((body?.instances ?? []) as Array<{ id: string; alive: boolean; mirrors: string[] }>).find((view) => view.id === id && view.alive)?.mirrors ?? []
}

/** A steady workload on every partition of the source topic until `stopProducing`. */
function startProducing(topic: string): void {
  producing = true
  producer = (async () => {
    for (let i = 0; producing; i++) {
      await sourceClient.produce({ topic, partition: i % PARTITIONS }, [{ key: `k${i}`, value: `v${i}` }]).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })()
}

async function stopProducing(): Promise<void> {
  producing = false
  await producer
}

/**
 * The scenario's group: a mirror from Kafka a to b (or b to a), run by `owner` (started alone), and `survivor` joined
 * afterwards.
 */
async function mirrorOfTwoInstances(name: string, from: 'a' | 'b') {
  const groupId = `${PREFIX}group-${name}-${RUN}`
  const mirror = `${PREFIX}m-${name}-${RUN}`
  const topic = `${PREFIX}t-${name}-${RUN}`
  const client = from === 'a' ? sourceClient : destinationClient
  group = new ApiInstances({ group: groupId, secretKey: SECRET_KEY, sessionTimeoutMs: SESSION_TIMEOUT_MS, dirPrefix: `mirrorboard-ha-${PREFIX}` })
  await client.createTopic(topic, { partitions: PARTITIONS })
  for (let partition = 0; partition < PARTITIONS; partition++) await client.produce({ topic, partition }, [{ key: 'k', value: `first-${partition}` }])

  const setupConfig: HaConfig = { bootstrap: [brokers.a.bootstrap], instanceId: `${PREFIX}setup`, secretKey: SECRET_KEY, group: groupId, sessionTimeoutMs: SESSION_TIMEOUT_MS }
  const setup = await openTestRuntime(group.tempDir(), { demo: false, ha: setupConfig })
  await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [brokers.a.bootstrap] })
  await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [brokers.b.bootstrap] })
  await setup.engine.createMirror({ name: mirror, sourceCluster: `kafka-${from}`, destinationCluster: from === 'a' ? 'kafka-b' : 'kafka-a', topics: [topic] })
  await vi.waitFor(() => expect(setup.engine.partitions(mirror).map((p) => p.state)).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)
  await setup.close()

  const owner = await group.start(`${PREFIX}${name}-i1`, brokers.a.bootstrap, { MIRRORBOARD_CHECK_RESPONSES: '1' })
  await vi.waitFor(async () => expect(await mirrorsOf(owner, owner.id).catch(() => []), owner.output.slice(-3000)).toEqual([mirror]), { timeout: 120_000, interval: 500 })
  const survivor = await group.start(`${PREFIX}${name}-i2`, brokers.a.bootstrap, { MIRRORBOARD_CHECK_RESPONSES: '1' })
  await vi.waitFor(async () => {
    expect(await mirrorsOf(survivor, owner.id).catch(() => []), survivor.output.slice(-3000)).toEqual([mirror])
    expect(await mirrorsOf(owner, survivor.id).catch(() => null)).toEqual([])
  }, { timeout: 120_000, interval: 500 })
  return { groupId, mirror, topic, owner, survivor, operationsTopic: `${groupId}-operations` }
}

/** A planned switchover of an a → b mirror asked of its owner, which is SIGKILLed once the shared record says `drain`. */
async function switchoverKilledInDrain(name: string, drainTimeoutMs: number) {
  const { mirror, topic, owner, survivor, operationsTopic } = await mirrorOfTwoInstances(name, 'a')
  // Producers that keep writing: without a fence the drain waits for them to stop (the source's ends to stand still).
  startProducing(topic)
  const accepted = await callInstance(owner, `/mirrors/${mirror}/failover`, { method: 'POST', body: { type: 'planned', confirm: mirror, force: ['write-fence'], drainTimeoutMs } })
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
  const id = accepted.body.operation as string
  const record = await vi.waitFor(async () => {
    const shared = await sharedRecord(operationsTopic, id)
    expect(shared?.switchover.phase, owner.output.slice(-3000)).toBe('drain')
    expect(shared!.switchover.drainStartedAt).not.toBeNull()
    return shared!
  }, settle)
  expect(record.status).toBe('running')
  expect(record.resumedAt).toEqual([])
  // Still draining on the owner (the producers hold it there).
  const live = await callInstance(owner, `/operations/${id}`)
  expect((live.body as unknown as OperationView).switchover.phase).toBe('drain')

  owner.process.kill('SIGKILL')
  await new Promise((resolve) => owner.process.once('exit', resolve))
  return { mirror, topic, id, owner, survivor, record, operationsTopic }
}

async function operationOn(instance: ApiInstance, id: string): Promise<OperationView> {
  const { status, body } = await callInstance(instance, `/operations/${id}`)
  expect(status).toBe(200)
  return body as unknown as OperationView
}

/** The operation once it has ended on `instance`, saying how long after its owner's SIGKILL. */
async function endedOn(instance: ApiInstance, id: string, killedAt: number): Promise<OperationView> {
  const ended = await vi.waitFor(async () => {
    const operation = await operationOn(instance, id)
    expect(operation.status, instance.output.slice(-3000)).not.toBe('running')
    return operation
  }, { timeout: 120_000, interval: 250 })
  console.log(`switchover ${id} finished on ${instance.id} ${Date.now() - killedAt} ms after the SIGKILL of its owner`)
  return ended
}

describe('a planned switchover handed over with its mirror', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    sourceClient = await kafkajsContractClient(brokers.a.bootstrap, 'ha-sw-a')
    destinationClient = await kafkajsContractClient(brokers.b.bootstrap, 'ha-sw-b')
    // Other suites' mirrors into b would be shared out too: start from empty state topics.
    await sourceClient.forget([PREFIX, STATE_TOPIC])
    await destinationClient.forget([PREFIX, STATE_TOPIC])
    // A reader (fencedWrites: shared, so it never claims the transactions a mirror's writer has open on a).
    control = await KafkaCluster.open('control', { bootstrapServers: [brokers.a.bootstrap], allowedHosts: null }, { fencedWrites: true })
  })
  afterEach(async () => {
    await stopProducing()
    group?.stopAll()
    group = null
    // Each scenario's mirror off the destinations' state topics, so the next group does not share it out.
    await destinationClient.forget([STATE_TOPIC]).catch(() => undefined)
    await sourceClient.forget([STATE_TOPIC]).catch(() => undefined)
  })
  afterAll(async () => {
    await control?.close().catch(() => undefined)
    await sourceClient?.forget([PREFIX]).catch(() => undefined)
    await destinationClient?.forget([PREFIX, STATE_TOPIC]).catch(() => undefined)
    await sourceClient?.forget([STATE_TOPIC]).catch(() => undefined)
    await sourceClient?.close()
    await destinationClient?.close()
  })

  it('SIGKILLs the owner in its drain: the instance that adopts the mirror finishes the drain and the stops, nothing lost', async () => {
    const { mirror, topic, id, survivor, record } = await switchoverKilledInDrain('finish', 600_000)
    const killedAt = Date.now()
    // The survivor takes the operation over (its resume is recorded), still draining while the producers write.
    await vi.waitFor(async () => {
      const taken = await operationOn(survivor, id)
      expect(taken.resumedAt, survivor.output.slice(-3000)).toHaveLength(1)
      expect(taken.switchover.phase).toBe('drain')
    }, { timeout: SESSION_TIMEOUT_MS * 10, interval: 250 })
    // Its status record (written every 2 s) names the mirror once it has been written after the adoption.
    await vi.waitFor(async () => expect(await mirrorsOf(survivor, survivor.id), survivor.output.slice(-3000)).toEqual([mirror]), { timeout: SESSION_TIMEOUT_MS, interval: 250 })
    // The producers stop (what a switchover without a fence asks of the operator): the drain completes there.
    await stopProducing()
    const finished = await endedOn(survivor, id, killedAt)
    expect(finished.status, JSON.stringify(finished.switchover)).toBe('succeeded')
    expect(finished.switchover.phase).toBe('done')
    expect(finished.switchover.recordsLost?.total).toBe(0)
    // The drain the dead owner started, not a new one.
    expect(finished.switchover.drainStartedAt).toBe(record.switchover.drainStartedAt)
    expect(finished.partitions.map(({ partition, state, error }) => [partition, state, error])).toEqual([
      [0, 'STOPPED', null],
      [1, 'STOPPED', null],
    ])
    expect(finished.resumedAt).toHaveLength(1)
    // Every source record on the destination as the source has it, offset by offset through the persisted translation
    // (atomic appends' COMMIT markers move the raw offsets; the destination adds its own markers at STOPPED), none twice.
    for (let partition = 0; partition < PARTITIONS; partition++) {
      expect(await mirroredLog(brokers.b.bootstrap, topic, partition)).toEqual(await sourceLog(brokers.a.bootstrap, topic, partition))
    }
  })

  it('SIGKILLs the owner in its drain while the producers go on: the adopting instance rolls back at the recorded deadline, and the mirror mirrors on there', async () => {
    const drainTimeoutMs = 25_000
    const { mirror, topic, id, survivor, record } = await switchoverKilledInDrain('rollback', drainTimeoutMs)
    const deadline = record.switchover.drainStartedAt! + drainTimeoutMs
    const rolledBack = await vi.waitFor(async () => {
      const operation = await operationOn(survivor, id)
      expect(operation.status, survivor.output.slice(-3000)).not.toBe('running')
      return operation
    }, { timeout: 180_000, interval: 250 })
    expect(rolledBack.status, JSON.stringify(rolledBack.switchover)).toBe('rolledBack')
    expect(rolledBack.switchover.phase).toBe('rolledBack')
    expect(rolledBack.switchover.reason).toMatch(/drain/)
    expect(rolledBack.resumedAt).toHaveLength(1)
    // The deadline the record carried: not before it (the survivor never started a drain of its own).
    expect((rolledBack as unknown as { finishedAt: number }).finishedAt).toBeGreaterThanOrEqual(deadline)
    expect(rolledBack.partitions.map(({ state }) => state)).toEqual(['MIRRORING', 'MIRRORING'])
    // Its status record (written every 2 s) names the mirror once it has been written after the adoption.
    await vi.waitFor(async () => expect(await mirrorsOf(survivor, survivor.id), survivor.output.slice(-3000)).toEqual([mirror]), { timeout: SESSION_TIMEOUT_MS, interval: 250 })

    // The mirror mirrors on there: once the producers stop, the destination equals the source, offset by offset
    // through the persisted translation.
    await stopProducing()
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const source = await sourceLog(brokers.a.bootstrap, topic, partition)
      await vi.waitFor(async () => expect(await mirroredLog(brokers.b.bootstrap, topic, partition)).toEqual(source), settle)
    }
  })
  it('SIGKILLs the owner in its fence, a transaction still open on the source: the adopting instance keeps the fence, waits for the transaction to end and finishes; the committed transaction is committed on the destination too', async () => {
    // Source b runs an authorizer: the fence is DENY WRITE ACLs (this test's clients are its super user, which they do not stop).
    const { mirror, topic, owner, survivor, operationsTopic } = await mirrorOfTwoInstances('fence', 'b')
    // A transaction left open on the source, copied by the owner: the fence phase waits for it (transactionGraceMs).
    const transaction = await destinationClient.transactionalProducer(`${PREFIX}tx-${RUN}`)
    for (let partition = 0; partition < PARTITIONS; partition++) await transaction.send({ topic, partition }, [{ key: 'k', value: `open-${partition}` }])
    // Both records on destination a (its batches of data; atomic appends add COMMIT markers of their own between them).
    await vi.waitFor(async () => {
      for (let partition = 0; partition < PARTITIONS; partition++) expect((await brokerLog(brokers.a.bootstrap, topic, partition)).filter(([, , records]) => /^k=(first|open)-/.test(records))).toHaveLength(2)
    }, settle)
    const accepted = await callInstance(owner, `/mirrors/${mirror}/failover`, { method: 'POST', body: { type: 'planned', confirm: mirror, drainTimeoutMs: 600_000, transactionGraceMs: 900_000 } })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = accepted.body.operation as string
    const record = await vi.waitFor(async () => {
      const shared = await sharedRecord(operationsTopic, id)
      expect(shared?.switchover.phase, owner.output.slice(-3000)).toBe('fenceSource')
      expect((shared!.switchover as unknown as { fencedAt: number | null }).fencedAt).not.toBeNull()
      expect(owner.output).toContain('switchover: waiting for transactions open on the source')
      return shared!
    }, settle)
    expect(record.switchover).toMatchObject({ fenceMethod: 'acl' })

    owner.process.kill('SIGKILL')
    await new Promise((resolve) => owner.process.once('exit', resolve))
    const killedAt = Date.now()
    await vi.waitFor(async () => {
      const taken = await operationOn(survivor, id)
      expect(taken.resumedAt, survivor.output.slice(-3000)).toHaveLength(1)
      expect(taken.switchover.phase).toBe('fenceSource')
      expect(survivor.output).toContain('switchover: waiting for transactions open on the source')
    }, { timeout: SESSION_TIMEOUT_MS * 10, interval: 250 })
    // The producer commits the transaction on the source: the survivor drains and stops. The destination transaction
    // the dead owner left open was aborted when the survivor adopted the mirror (a client cannot resume another
    // producer's transaction), its records carried into a new one (kafka-mirror-host.ts, recoverOrphans): committed now.
    await transaction.commit()
    const finished = await endedOn(survivor, id, killedAt)
    expect(finished.status, JSON.stringify(finished.switchover)).toBe('succeeded')
    expect(finished.switchover.recordsLost?.total).toBe(0)
    expect((finished.switchover as unknown as { fencedAt: number }).fencedAt).toBe((record.switchover as unknown as { fencedAt: number }).fencedAt)
    expect(finished.partitions.map(({ state, error }) => [state, error])).toEqual([
      ['STOPPED', null],
      ['STOPPED', null],
    ])
    // Read_committed, the destination holds what the source does: the committed transaction's records, each once.
    // (Offset by offset it differs: the aborted copy and its ABORT marker stand before the carried records.)
    const committedSource = await KafkaCluster.open('committed-b', { bootstrapServers: [brokers.b.bootstrap], allowedHosts: null }, { fencedWrites: true })
    try {
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const source = await committedValues(committedSource, topic, partition)
        expect(source).toEqual([`first-${partition}`, `open-${partition}`])
        expect(await committedValues(control!, topic, partition)).toEqual(source)
      }
    } finally {
      await committedSource.close()
    }
    // The old source stays fenced after the switchover; lifted here so b's topics are writable again.
    const unfenced = await callInstance(survivor, `/mirrors/${mirror}/unfence`, { method: 'POST', body: { confirm: mirror } })
    expect(unfenced.status, JSON.stringify(unfenced.body)).toBe(200)
    expect((unfenced.body.unfenced as unknown[]).length).toBe(1)
  })
})
