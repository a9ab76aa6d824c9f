// The set-up the "one API from any instance" suites share (server/ha/ha-forwarding and ha-reads): two Kafka a → Kafka b
// mirrors of two partitions each, made once through a runtime of the group, then run by two child instances, one
// mirror each. Each suite names its own prefix, so its topics, group and instances never meet another suite's
// (and not `ha-…`: the takeover suite deletes the `ha-` groups of cluster a, where killed members may linger).
import { expect, vi } from 'vitest'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { getTestClusters, type TestClusters } from '@/scripts/kafka/test-clusters'
import { STATE_TOPIC } from '@/server/cluster/kafka/kafka-state-topic'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import type { HaConfig } from '@/server/ha/ha-config'
import { ApiInstances, callInstance, type ApiInstance } from './ha-api-instances'

export const PARTITIONS = 2
const SESSION_TIMEOUT_MS = 8_000
export const settle = { timeout: 90_000, interval: 250 }

export interface InstanceView {
  id: string
  alive: boolean
  mirrors: string[]
  url?: string | null
  leader?: boolean
}

export async function instancesSeenBy(instance: ApiInstance): Promise<InstanceView[]> {
  return ((await callInstance(instance, '/instances')).body.instances ?? []) as InstanceView[]
}

export async function partitionStates(instance: ApiInstance, mirror: string): Promise<string[]> {
  const { status, body } = await callInstance(instance, `/mirrors/${mirror}/partitions`)
  expect(status).toBe(200)
  return (body.partitions as Array<{ state: string }>).map((partition) => partition.state)
}

export class TwoMirrors {
  readonly run = Date.now().toString(36)
  readonly group: string
  readonly secretKey: string
  readonly mirrors: Array<{ name: string; topic: string }>
  readonly instances: ApiInstances
  brokers!: TestClusters
  sourceClient!: KafkajsContractClient
  destinationClient!: KafkajsContractClient

  constructor(private readonly prefix: string) {
    this.group = `${prefix}-group-${this.run}`
    this.secretKey = `ha-${prefix}-test-secret-key`
    this.mirrors = ['m1', 'm2'].map((name) => this.named(name))
    this.instances = new ApiInstances({ group: this.group, secretKey: this.secretKey, sessionTimeoutMs: SESSION_TIMEOUT_MS, dirPrefix: `mirrorboard-ha-${prefix}-` })
  }

  /** A mirror (and its topic) of this suite, not made yet. */
  named(name: string): { name: string; topic: string } {
    return { name: `${this.prefix}-${name}-${this.run}`, topic: `${this.prefix}-${name}-${this.run}` }
  }

  /** Clients of both clusters, their state topics emptied (other suites' mirrors into b would be shared out too). */
  async connect(): Promise<void> {
    this.brokers = getTestClusters()
    this.sourceClient = await kafkajsContractClient(this.brokers.a.bootstrap, `ha-${this.prefix}-a`)
    this.destinationClient = await kafkajsContractClient(this.brokers.b.bootstrap, `ha-${this.prefix}-b`)
    await this.sourceClient.forget([`${this.prefix}-`, STATE_TOPIC])
    await this.destinationClient.forget([`${this.prefix}-`, STATE_TOPIC])
  }

  /** The topics with a record in each partition, both clusters and both mirrors made, and every partition MIRRORING. */
  async createMirrors(): Promise<void> {
    for (const { topic } of this.mirrors) {
      await this.sourceClient.createTopic(topic, { partitions: PARTITIONS })
      for (let partition = 0; partition < PARTITIONS; partition++) await this.sourceClient.produce({ topic, partition }, [{ key: 'k', value: `${topic}-${partition}` }])
    }
    const config: HaConfig = { bootstrap: [this.brokers.a.bootstrap], instanceId: `${this.prefix}-setup`, secretKey: this.secretKey, group: this.group, sessionTimeoutMs: SESSION_TIMEOUT_MS }
    const setup = await openTestRuntime(this.instances.tempDir(), { demo: false, ha: config })
    await setup.clusters.create({ name: 'kafka-a', kind: 'kafka', bootstrapServers: [this.brokers.a.bootstrap] })
    await setup.clusters.create({ name: 'kafka-b', kind: 'kafka', bootstrapServers: [this.brokers.b.bootstrap] })
    for (const { name, topic } of this.mirrors) await setup.engine.createMirror({ name, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [topic] })
    await vi.waitFor(() => {
      for (const { name } of this.mirrors) expect(setup.engine.partitions(name).map((p) => p.state)).toEqual(Array(PARTITIONS).fill('MIRRORING'))
    }, settle)
    await setup.close()
  }

  /**
   * Two instances `<prefix>-i1` and `<prefix>-i2`, once each reads back both statuses (with their addresses, one
   * leader) and runs one mirror: the first is `owner`, its mirror the `victim`, MIRRORING there.
   */
  async startPair(): Promise<{ owner: ApiInstance; other: ApiInstance; victim: { name: string; topic: string }; otherMirror: { name: string; topic: string } }> {
    const first = await this.instances.start(`${this.prefix}-i1`, this.brokers.a.bootstrap)
    const second = await this.instances.start(`${this.prefix}-i2`, this.brokers.a.bootstrap)
    await vi.waitFor(async () => {
      for (const instance of [first, second]) {
        const seen = await instancesSeenBy(instance).catch(() => [])
        expect(seen.map(({ id, alive, mirrors, url }) => ({ id, alive, mirrors: mirrors.length, url })), instance.output.slice(-3000)).toEqual([
          { id: first.id, alive: true, mirrors: 1, url: first.url },
          { id: second.id, alive: true, mirrors: 1, url: second.url },
        ])
        expect(seen.filter((view) => view.leader)).toHaveLength(1)
      }
    }, { timeout: 120_000, interval: 500 })
    const views = await instancesSeenBy(first)
    const victim = this.mirrors.find(({ name }) => views.find((view) => view.id === first.id)!.mirrors.includes(name))!
    const otherMirror = this.mirrors.find((mirror) => mirror !== victim)!
    await vi.waitFor(async () => expect(await partitionStates(first, victim.name)).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)
    return { owner: first, other: second, victim, otherMirror }
  }

  async close(): Promise<void> {
    this.instances.stopAll()
    await this.sourceClient?.forget([`${this.prefix}-`]).catch(() => undefined)
    await this.destinationClient?.forget([`${this.prefix}-`, STATE_TOPIC]).catch(() => undefined)
    await this.sourceClient?.close()
    await this.destinationClient?.close()
  }
}
