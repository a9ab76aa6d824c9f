import 'server-only'
import type { Group } from '@/lib/api/groups'
import { ClusterError } from '../errors'
import type { IsolationLevel, TopicDescription } from '../ports'
import type { RecordsPage } from '../embedded/records-view'
import { KafkaConnection, type KafkaConnectionConfig } from './connection'
import { KafkaSourceCluster } from './kafka-source'
import { readKafkaRecords } from './kafka-records'
import { KafkaTopicAdmin } from './kafka-topic-admin'
import { KafkaMirrorHost } from './kafka-mirror-host'
import { KafkaStateTopic, STATE_TOPIC } from './kafka-state-topic'
import type { UnitFenced } from './unit-transactions'
import { WriteDenyAcls } from './write-deny-acls'

/**
 * A real Kafka cluster as the registry holds it (API.md "Clusters" of kind kafka): the SourceCluster the engine
 * mirrors from, the MirrorHost side (the destination emulation), the views the API
 * serves for every cluster — brokers, topics, partitions, records, groups — and topic administration.
 */
export class KafkaCluster {
  readonly source: KafkaSourceCluster
  /** The destination emulation (DESIGN.md §5): a mirror into this cluster produces in source order. */
  readonly host: KafkaMirrorHost
  /** Create/delete topics, partitions, configs, delete-records, test produce, group offset commits. */
  readonly admin: KafkaTopicAdmin
  private lastBrokers: Array<{ id: number; alive: boolean }> = []

  private constructor(
    readonly name: string,
    private readonly connection: KafkaConnection,
    fencedWrites: boolean,
    onWritesFenced: (fenced: UnitFenced) => void,
    atomicAppends: boolean,
  ) {
    // One ACL book for both sides: a fenced old source can also be a failback's read-only mirror destination.
    const acls = new WriteDenyAcls(connection.admin)
    this.source = new KafkaSourceCluster(name, connection, acls)
    this.admin = new KafkaTopicAdmin(connection.admin, (suffix) => connection.client(suffix), (topic) => this.describeTopic(topic))
    // Instances sharing the work (issue #40): each mirror's state records in transactions of its own, read read_committed.
    const transactions = fencedWrites
      ? {
          readCommitted: (fromOffset: number) => readKafkaRecords({ connection, metadata: this.source.metadata, offsets: this.source.offsets }, { topic: STATE_TOPIC, partition: 0 }, { fromOffset, limit: 500, isolation: 'read_committed' }),
          onFenced: onWritesFenced,
        }
      : undefined
    const state = new KafkaStateTopic(connection.admin, (suffix) => connection.client(suffix), this.source, transactions)
    this.source.answerHostedMirrorsFrom(state)
    this.host = new KafkaMirrorHost(name, connection, this.source, this.admin, state, acls, fencedWrites, atomicAppends)
    acls.answerReadOnlyFrom((topic) => this.host.keepsReadOnly(topic))
    this.source.reportMirrorTopicIdsFrom((described) => this.host.keptTopicIds(described))
  }

  /**
   * Connects and asks the cluster for its id; SOURCE_UNAVAILABLE (with the broker's reason) when it cannot.
   *
   * `atomicAppends` (issue #40, with fenced writes): each append's data and its emulation record in one transaction
   * (kafka-mirror-append.ts); its COMMIT marker takes a destination offset per append, so offsets are translated from
   * the first one on. On by default wherever writes are fenced (several instances, server/runtime.ts), since only then
   * does a zombie writer exist whose batch it keeps out; MIRRORBOARD_KAFKA_ATOMIC_APPENDS=0 turns it off (the fencing
   * window of docs/high-availability.md "Not built yet" is then open again). Unfenced writes never use it.
   */
  static async open(name: string, config: KafkaConnectionConfig, opts: { quick?: boolean; fencedWrites?: boolean; atomicAppends?: boolean; onWritesFenced?: (fenced: UnitFenced) => void } = {}): Promise<KafkaCluster> {
    const connection = await KafkaConnection.open(config, `mirrorboard-${name}`, opts)
    const fencedWrites = opts.fencedWrites ?? false
    const atomicAppends = opts.atomicAppends ?? atomicAppendsByDefault(fencedWrites)
    const cluster = new KafkaCluster(name, connection, fencedWrites, opts.onWritesFenced ?? (() => undefined), atomicAppends)
    try {
      await cluster.source.clusterId()
      await cluster.brokers()
    } catch (error) {
      await connection.close()
      throw error
    }
    return cluster
  }

  clusterId(): Promise<string> {
    return this.source.clusterId()
  }

  /** The brokers the metadata lists (Kafka lists live brokers only); the last known list when the cluster is unreachable. */
  async brokers(): Promise<Array<{ id: number; alive: boolean }>> {
    try {
      const brokers = await this.source.metadata.brokers()
      this.lastBrokers = brokers.map((b) => ({ id: b.nodeId, alive: true })).sort((a, b) => a.id - b.id)
    } catch {
      this.lastBrokers = this.lastBrokers.map((b) => ({ ...b, alive: false }))
    }
    return this.lastBrokers
  }

  /** The broker's topics, mirror topics flagged read-only with their mirror (offsets are the broker's own). */
  async describeTopics(): Promise<TopicDescription[]> {
    return this.host.flagMirrorTopics(await this.source.describeBrokerTopics())
  }

  async describeTopic(topic: string): Promise<TopicDescription> {
    const [described] = await this.host.flagMirrorTopics(await this.source.describeBrokerTopics([topic]))
    if (!described) throw new ClusterError('NOT_FOUND', `topic ${JSON.stringify(topic)} does not exist`, { details: { topic } })
    return described
  }

  async readRecords(topic: string, partition: number, options: { fromOffset?: number; limit: number; isolation: IsolationLevel }): Promise<RecordsPage> {
    await this.describeTopic(topic)
    return readKafkaRecords({ connection: this.connection, metadata: this.source.metadata, offsets: this.source.offsets }, { topic, partition }, options)
  }

  async describeGroups(): Promise<Group[]> {
    const { admin } = this.connection
    const { groups } = await admin.listGroups()
    if (groups.length === 0) return []
    const described = await admin.describeGroups(groups.map((g) => g.groupId))
    const offsets = await this.source.listGroupOffsets()
    return described.groups
      .map((group) => ({
        groupId: group.groupId,
        state: group.state,
        members: group.members.map((m) => m.memberId),
        offsets: offsets.find((o) => o.groupId === group.groupId)?.offsets ?? [],
      }))
      .sort((a, b) => a.groupId.localeCompare(b.groupId))
  }

  async close(): Promise<void> {
    await this.host.close()
    await this.admin.close()
    await this.connection.close()
  }
}

/** Atomic appends unless fenced writes are off or MIRRORBOARD_KAFKA_ATOMIC_APPENDS=0 (issue #40). */
export function atomicAppendsByDefault(fencedWrites: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return fencedWrites && env.MIRRORBOARD_KAFKA_ATOMIC_APPENDS !== '0'
}
