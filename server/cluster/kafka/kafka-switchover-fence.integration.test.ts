/**
 * A planned switchover's fence on a real Kafka source with an authorizer (issue #34): test cluster `b`
 * (`npx tsx scripts/kafka/clusters.ts start`) runs KRaft's StandardAuthorizer and a SASL listener whose user,
 * alice, is no super user. Mirrorboard connects over PLAINTEXT as the super user. The switchover fences b's
 * topic with DENY ACLs and an owner marker (fence-marker.ts): alice's producer is refused; the fence is listed
 * (so the mirror cannot be deleted while it holds); the audited unfence lifts exactly the ACLs it created, and
 * alice writes again.
 */
import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes, type Producer } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as failoverRoute from '@/app/api/v1/mirrors/[mirror]/failover/route'
import * as mirrorRoute from '@/app/api/v1/mirrors/[mirror]/route'
import * as unfenceRoute from '@/app/api/v1/mirrors/[mirror]/unfence/route'
import * as mirrorsRoute from '@/app/api/v1/mirrors/route'
import * as operationRoute from '@/app/api/v1/operations/[id]/route'
import { UnfenceResponse } from '@/lib/api/mirrors'
import { Operation } from '@/lib/api/operations'
import type { Runtime } from '@/server/runtime'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { STATE_TOPIC } from './kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from './testing/kafkajs-contract-client'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-fence-fallback-${process.pid}`)

const settle = { timeout: 90_000, interval: 200 }
const RUN = Date.now().toString(36)
const TOPIC = `kf-orders-${RUN}`
const MIRROR = 'kf-b-to-a'

let dataDir: string
let runtime: Runtime
let brokers: TestClusters
let sourceClient: KafkajsContractClient
let destinationClient: KafkajsContractClient
let alice: Kafka
let aliceProducer: Producer

/** Every ACL on a topic, as `kafka-acls.sh --list --topic` shows them; `forget` deletes those of earlier runs' topics (ACLs outlive their topics). */
async function topicAcls(match: (topic: string) => boolean, forget = false): Promise<Array<{ principal: string; operation: number }>> {
  const admin = new Kafka({ clientId: 'kf-acl-reader', brokers: [brokers.b.bootstrap], logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  try {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.TOPIC,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    })
    const found = resources.filter((r) => match(r.resourceName))
    if (forget && found.length > 0) {
      await admin.deleteAcls({ filters: found.flatMap((r) => r.acls.map((acl) => ({ resourceType: AclResourceTypes.TOPIC, resourceName: r.resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, ...acl }))) })
    }
    return found.flatMap((r) => r.acls.map((acl) => ({ principal: acl.principal, operation: acl.operation })))
  } finally {
    await admin.disconnect()
  }
}
const aclsOn = (topic: string) => topicAcls((name) => name === topic)

const aliceWrites = (value: string, topic = TOPIC) => aliceProducer.send({ topic, messages: [{ key: 'alice', value, partition: 0 }] })

/** The broker's error code of a refused produce (kafkajs sometimes wraps it in a non-retriable error). */
async function refusal(write: Promise<unknown>): Promise<string> {
  try {
    await write
    return 'written'
  } catch (error) {
    const e = error as { type?: string; cause?: { type?: string } }
    return e.type ?? e.cause?.type ?? String(error)
  }
}

async function mirrorAndFailOver(mirror: string, sourceCluster: string, destinationCluster: string, topic: string, type: 'planned' | 'unplanned'): Promise<Operation> {
  const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: mirror, sourceCluster, destinationCluster, topics: [topic] } })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  await vi.waitFor(() => expect(runtime.engine.partitions(mirror).map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING']), settle)
  const accepted = await callRoute(failoverRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${mirror}/failover`, params: { mirror }, body: { type, confirm: mirror } })
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
  const id = (accepted.body as { operation: string }).operation
  return vi.waitFor(async () => {
    const operation = Operation.parse((await callRoute(operationRoute.GET, { path: `/api/v1/operations/${id}`, params: { id } })).body)
    expect(operation.status).not.toBe('running')
    return operation
  }, settle)
}

describe('a planned switchover fencing a Kafka source by ACL', () => {
  beforeAll(async () => {
    brokers = getTestClusters()
    const sasl = brokers.b.sasl
    if (!sasl) throw new Error('test cluster b has no SASL listener: restart the test clusters (scripts/kafka/clusters.ts start)')
    sourceClient = await kafkajsContractClient(brokers.b.bootstrap, 'kafka-fence-b')
    destinationClient = await kafkajsContractClient(brokers.a.bootstrap, 'kafka-fence-a')
    await sourceClient.forget(['kf-', STATE_TOPIC])
    await destinationClient.forget(['kf-', STATE_TOPIC])
    await topicAcls((name) => name.startsWith('kf-'), true)
    await sourceClient.createTopic(TOPIC, { partitions: 2 })
    alice = new Kafka({ clientId: 'kf-alice', brokers: [sasl.bootstrap], sasl: { mechanism: 'plain', username: sasl.username, password: sasl.password }, logLevel: logLevel.NOTHING, retry: { retries: 0 } })
    aliceProducer = alice.producer({ retry: { retries: 0 } })
    await aliceProducer.connect()
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-fence-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    for (const [name, cluster] of [['kafka-a', brokers.a], ['kafka-b', brokers.b]] as const) {
      const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'kafka', bootstrapServers: [cluster.bootstrap] } })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
  })
  afterAll(async () => {
    await aliceProducer?.disconnect()
    await runtime?.close()
    await sourceClient?.close()
    await destinationClient?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('fences with ACLs the old source keeps, lists them, and the unfence lifts exactly them', async () => {
    for (let i = 0; i < 5; i++) await aliceWrites(`before ${i}`)
    const finished = await mirrorAndFailOver(MIRROR, 'kafka-b', 'kafka-a', TOPIC, 'planned')
    const id = finished.id
    expect(finished).toMatchObject({ status: 'succeeded', type: 'planned', switchover: { phase: 'done', fenceMethod: 'acl', recordsLost: { total: 0 } } })

    // The fence holds after the switchover: the broker refuses alice (no super user).
    expect(await refusal(aliceWrites('after the switchover'))).toBe('TOPIC_AUTHORIZATION_FAILED')
    const fences = await runtime.clusters.ports('kafka-b').source.writeFences!()
    expect(fences).toEqual([{ topic: TOPIC, mirror: MIRROR, operation: id, since: expect.any(Number) }])
    const since = fences[0]!.since
    expect(since).toBeGreaterThanOrEqual(finished.switchover!.fencedAt!)
    expect((await aclsOn(TOPIC)).map((acl) => acl.principal).sort()).toEqual(['User:*', 'User:*', `User:mirrorboard-fence/${MIRROR}/${id}/${since}`])

    // Listed, the fence keeps the mirror from being deleted (only it may lift the fence).
    const removed = await callRoute(mirrorRoute.DELETE, { method: 'DELETE', path: `/api/v1/mirrors/${MIRROR}`, params: { mirror: MIRROR } })
    expect(removed).toMatchObject({ status: 409, body: { error: { code: 'INVALID_MIRROR_STATE', details: { fencedTopics: [TOPIC], sourceCluster: 'kafka-b' } } } })

    const lifted = await callRoute(unfenceRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${MIRROR}/unfence`, params: { mirror: MIRROR }, body: { confirm: MIRROR } })
    expect(lifted.status, JSON.stringify(lifted.body)).toBe(200)
    expect(UnfenceResponse.parse(lifted.body)).toMatchObject({ mirror: MIRROR, sourceCluster: 'kafka-b', unfenced: [{ topic: TOPIC, operation: id, since }] })
    expect(await aclsOn(TOPIC)).toEqual([])
    await vi.waitFor(() => aliceWrites('writable again'), { timeout: 10_000, interval: 200 })
    expect(UnfenceResponse.parse((await callRoute(unfenceRoute.POST, { method: 'POST', path: `/api/v1/mirrors/${MIRROR}/unfence`, params: { mirror: MIRROR }, body: { confirm: MIRROR } })).body).unfenced).toEqual([])
  })

  it("keeps the fence through the failback's mirroring into the old source, and the failback's failover lifts it with the read-only ACLs", async () => {
    const topic = `kf-ledger-${RUN}`
    await sourceClient.createTopic(topic, { partitions: 2 })
    await aliceWrites('before', topic)
    const switchover = await mirrorAndFailOver('kf2-b-to-a', 'kafka-b', 'kafka-a', topic, 'planned')
    expect(switchover).toMatchObject({ status: 'succeeded', switchover: { fenceMethod: 'acl', recordsLost: { total: 0 } } })
    await destinationClient.produce({ topic, partition: 0 }, [{ key: 'k', value: 'on the new source' }])

    // The failback mirrors a's topic into the fenced old source: the host's read-only DENY and the fence share the
    // one User:* binding, and neither side's bookkeeping removes it while the other still needs it.
    const failback = await mirrorAndFailOver('kf2-a-to-b', 'kafka-a', 'kafka-b', topic, 'unplanned')
    expect(failback.status).toBe('succeeded')
    expect(await runtime.clusters.ports('kafka-b').source.writeFences!()).toEqual([])
    expect(await aclsOn(topic)).toEqual([])
    await vi.waitFor(() => aliceWrites('writable after the failback', topic), { timeout: 10_000, interval: 200 })
  })

  it('keeps the DENY while the failback still mirrors into the old source, when the operator lifts the fence there', async () => {
    const topic = `kf-audit-${RUN}`
    await sourceClient.createTopic(topic, { partitions: 2 })
    const switchover = await mirrorAndFailOver('kf3-b-to-a', 'kafka-b', 'kafka-a', topic, 'planned')
    expect(switchover.status).toBe('succeeded')
    const created = await callRoute(mirrorsRoute.POST, { method: 'POST', path: '/api/v1/mirrors', body: { name: 'kf3-a-to-b', sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [topic] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await vi.waitFor(() => expect(runtime.engine.partitions('kf3-a-to-b').map((p) => p.state)).toEqual(['MIRRORING', 'MIRRORING']), settle)
    const lifted = await callRoute(unfenceRoute.POST, { method: 'POST', path: '/api/v1/mirrors/kf3-b-to-a/unfence', params: { mirror: 'kf3-b-to-a' }, body: { confirm: 'kf3-b-to-a' } })
    expect(UnfenceResponse.parse(lifted.body).unfenced.map((fence) => fence.topic)).toEqual([topic])
    // The fence's marker is gone; the mirror topic stays read-only for clients.
    expect((await aclsOn(topic)).map((acl) => acl.principal)).toEqual(['User:*', 'User:*'])
    expect(await refusal(aliceWrites('still a mirror topic', topic))).toBe('TOPIC_AUTHORIZATION_FAILED')
  })
})
