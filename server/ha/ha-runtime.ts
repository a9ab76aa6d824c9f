import 'server-only'
import { Kafka, type Producer } from 'kafkajs'
import { kafkajsOptions, type KafkaConnectionConfig } from '@/server/cluster/kafka/connection'
import { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'
import type { ClusterRegistry, WritesFenced } from '@/server/cluster/registry'
import type { MirrorEngine } from '@/server/engine/engine'
import type { Logger } from '@/server/observability/logger'
import { ensureControlTopics } from './control-topics'
import { GroupMembership } from './group-membership'
import { GroupOwnership } from './ha-ownership'
import type { HaConfig } from './ha-config'
import { readMirrorCatalog } from './mirror-catalog'
import { deriveKey } from './secret-box'
import { SharedClusters } from './shared-clusters'
import { SharedIdentity } from './shared-identity'
import type { SharedIdentityStore } from '@/server/http/identity-replica'
import { ControlTopicLog } from './control-topic-log'
import { InstanceDirectory, type InstanceStatus } from './instance-directory'
import { forwardingKey } from './forwarded-caller'
import { MirrorForwarding } from './mirror-forwarding'
import { ControlTopicOperations } from './shared-operations'
import { EventRelay } from './event-relay'
import type { EventHub } from '@/server/http/events'
import type { AuditLog } from '@/server/audit/audit-log'
import type { AuditEntry } from '@/lib/api/audit'
import { SharedAudit } from './shared-audit'
import { ControlClusterHealth } from './control-health'

/** One unit of work whose writes another instance fenced here (issue #40). */
export interface FencedWork {
  mirror: string
  /** Where the refused write went: a destination cluster's state topic, or `control` (the operations topic). */
  cluster: string
  transactionalId: string
  at: number
}

const MAX_FENCED_KEPT = 20

export class DuplicateInstanceError extends Error {
  readonly code = 'DUPLICATE_INSTANCE_ID'
}

/**
 * Several instances sharing the mirroring work (issue #40, docs/high-availability.md), wired once by the
 * composition root: `prepare` before the engine is built (the control topics; the ownership the engine consults),
 * `join` once the engine has started (the group membership, whose assignments the engine follows).
 */
export class HaRuntime {
  readonly ownership: GroupOwnership
  /** A mirror's requests sent on to the instance that runs it (mirror-forwarding.ts). */
  readonly forwarding: MirrorForwarding
  /** Whether the control cluster answers: mutations are refused while it does not (server/http/control-guard.ts). */
  readonly control: ControlClusterHealth
  private readonly kafka: Kafka
  private engine: MirrorEngine | null = null
  private membership: GroupMembership | null = null
  private shared: { clusters: SharedClusters; operations: ControlTopicOperations; reader: KafkaCluster; producer: Producer } | null = null
  private identity: SharedIdentity | null = null
  private directory: InstanceDirectory | null = null
  private joined: { memberId: string; leaderId: string; isLeader: boolean; at: number } | null = null
  private assignments: Promise<void> = Promise.resolve()
  private relay: EventRelay | null = null
  /** The group's shared audit log (shared-audit.ts); null until shareAudit. */
  audit: SharedAudit | null = null
  /** The units of work whose writes another instance fenced here (issue #40), newest last: GET /instances shows them. */
  private readonly fenced: FencedWork[] = []

  constructor(
    readonly config: HaConfig,
    private readonly deps: { clusters: ClusterRegistry; version: string; log: Logger },
  ) {
    this.ownership = new GroupOwnership((name) => this.isShared(name), config.instanceId)
    // Nothing answered for a session timeout (the status goes every 2 s, heartbeats every fifth of it): a busy machine
    // that answers late is not taken for a lost control cluster.
    this.control = new ControlClusterHealth({ staleMs: Math.max(5_000, config.sessionTimeoutMs), log: (message, fields) => deps.log.warn(message, fields) })
    this.forwarding = new MirrorForwarding({
      self: config.instanceId,
      key: forwardingKey(config.secretKey),
      instances: () => this.instances(),
      // Before the engine runs, nothing runs here: a request is answered here (NOT_FOUND) rather than sent on.
      runsHere: (mirror) => this.engine === null || this.engine.heldMirrors().includes(mirror),
    })
    // The control cluster's SASL and TLS options are a cluster connection's (control-connection.ts), built the same way.
    const options = kafkajsOptions(this.connection, `mirrorboard-${config.instanceId}`)
    this.kafka = new Kafka({ ...options, retry: { ...options.retry, retries: 5 } })
    deps.clusters.onWritesFenced((fenced) => this.writesFenced(fenced))
  }

  /**
   * Another instance claimed a mirror whose records this one still wrote (a zombie: paused past the session timeout,
   * or cut off): the write was refused. The mirror stops here at once (the group gave it away), which the log and
   * GET /instances say. A mirror whose transactional producer was lost mid-transaction is given back the same way,
   * logged as such, not listed as fenced.
   */
  private writesFenced(fenced: WritesFenced): void {
    const mirror = fenced.unit
    if (fenced.reason === 'producerLost') {
      // Not fenced, but this instance cannot write the mirror's records again without an InitProducerId that would
      // fence whoever the group gave it to meanwhile: the group places it afresh (here again, claimed, or elsewhere).
      this.deps.log.warn('lost the transactional producer of a mirror mid-transaction; giving the mirror back to the group', { mirror, cluster: fenced.cluster, transactionalId: fenced.transactionalId, error: fenced.error.message })
    } else {
      this.deps.log.warn('fenced: another instance took this mirror over; stopping it here', { mirror, cluster: fenced.cluster, transactionalId: fenced.transactionalId, error: fenced.error.message })
      this.fenced.push({ mirror, cluster: fenced.cluster, transactionalId: fenced.transactionalId, at: Date.now() })
      if (this.fenced.length > MAX_FENCED_KEPT) this.fenced.splice(0, this.fenced.length - MAX_FENCED_KEPT)
    }
    const engine = this.engine
    if (!engine) return
    this.assignments = this.assignments
      .then(async () => {
        if (!this.ownership.release(mirror)) return
        await engine.reconcileOwnership()
        this.directory?.report()
        // The group still counts the mirror as this instance's: its leader places it again (here, to be claimed
        // afresh, or elsewhere) instead of leaving it unrun until the next membership change.
        void this.membership?.requestRebalance()
      })
      .catch((error: unknown) => this.deps.log.warn('a fenced mirror could not be stopped', { mirror, error: String(error) }))
  }

  /** What GET /instances says this instance was fenced from. */
  fencedWork(): FencedWork[] {
    return this.fenced.slice()
  }

  /** How the control cluster is reached: its bootstrap servers, SASL and TLS (MIRRORBOARD_CONTROL_*). */
  private get connection(): KafkaConnectionConfig {
    return { bootstrapServers: this.config.bootstrap, allowedHosts: null, ...this.config.connection }
  }

  get instanceId(): string {
    return this.config.instanceId
  }

  /** The topic every member subscribes to (it carries nothing yet: the assignment travels in the join). */
  get membershipTopic(): string {
    return `${this.config.group}-instances`
  }

  private isShared(name: string): boolean {
    try {
      return this.deps.clusters.kind(name) === 'kafka'
    } catch {
      return false
    }
  }

  /** The compacted topic of the shared sessions, API tokens and sign-ins under way (shared-identity.ts). */
  get identityTopic(): string {
    return `${this.config.group}-identity`
  }

  /** The compacted topic of the shared operations (shared-operations.ts). */
  get operationsTopic(): string {
    return `${this.config.group}-operations`
  }

  /** The operations every instance reads (failovers a new owner resumes); null until prepared. */
  get operations(): ControlTopicOperations | undefined {
    return this.shared?.operations
  }

  /** The compacted topic of the shared clusters (shared-clusters.ts). */
  get clustersTopic(): string {
    return `${this.config.group}-clusters`
  }

  /** The shared audit log's topic (shared-audit.ts): every entry kept for the topic's retention, not compacted. */
  get auditTopic(): string {
    return `${this.config.group}-audit`
  }

  /**
   * After prepare: this instance's audit entries copied onto the shared topic (what it lacks first), and the topic
   * followed, each entry published as an `audit` event.
   */
  async shareAudit(local: AuditLog, publish: (entry: AuditEntry) => void): Promise<void> {
    if (!this.shared) return
    const audit = new SharedAudit({
      topic: this.auditTopic,
      self: this.config.instanceId,
      reader: this.shared.reader,
      producer: this.shared.producer,
      local,
      publish,
      warn: (message, fields) => this.deps.log.warn(message, fields),
      views: this.control,
    })
    await audit.start()
    this.audit = audit
  }

  /**
   * Before the engine: the control topics exist, and the shared clusters are in the registry (so the engine's
   * replay and the catalog see them). A control cluster that cannot be reached, or a secret key that does not open
   * its secrets, fails the start.
   */
  async prepare(): Promise<void> {
    const admin = this.kafka.admin()
    let reader: KafkaCluster
    let producer: Producer
    try {
      await admin.connect()
      const replication = await ensureControlTopics(admin, [
        { name: this.membershipTopic, compacted: true },
        { name: this.clustersTopic, compacted: true },
        { name: this.identityTopic, compacted: true },
        { name: this.operationsTopic, compacted: true },
        { name: this.auditTopic, compacted: false },
      ])
      this.deps.log.info('control cluster ready', { bootstrap: this.config.bootstrap, instance: this.config.instanceId, ...replication })
      // Shared (fencedWrites), as every instance's clusters are: a reader never claims the transactions a mirror's
      // writer has open where the control cluster is also a mirror's destination (its claim would abort them).
      reader = await KafkaCluster.open('control', this.connection, { fencedWrites: true })
      producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
      await producer.connect()
    } catch (error) {
      throw new Error(`the control cluster at ${this.config.bootstrap.join(',')} cannot be used: ${String(error)}`, { cause: error })
    } finally {
      await admin.disconnect().catch(() => undefined)
    }
    try {
      await this.refuseDuplicate(new ControlTopicLog(reader, this.membershipTopic))
    } catch (error) {
      await producer.disconnect().catch(() => undefined)
      await reader.close().catch(() => undefined)
      throw error
    }
    const clusters = new SharedClusters({
      topic: this.clustersTopic,
      key: deriveKey(this.config.secretKey),
      reader,
      producer,
      registry: this.deps.clusters,
      log: this.deps.log,
      // DELETE /clusters/{cluster}'s rule (server/api/cluster-api.ts): not while a mirror uses it.
      inUse: (name) => {
        const users = (this.engine?.listMirrors() ?? []).filter((mirror) => mirror.sourceCluster === name || mirror.destinationCluster === name)
        return users.length === 0 ? null : `cluster ${name} is used by ${users.map((mirror) => mirror.name).join(', ')}`
      },
      answered: () => this.control.answered(),
      views: this.control,
    })
    const operations = new ControlTopicOperations({
      topic: this.operationsTopic,
      reader,
      producer,
      client: this.kafka,
      warn: (message, fields) => this.deps.log.warn(message, fields),
      onFenced: (fenced) => this.writesFenced({ cluster: 'control', ...fenced }),
      views: this.control,
    })
    this.shared = { clusters, operations, reader, producer }
    try {
      await clusters.start()
      await operations.start()
    } catch (error) {
      await this.closeShared()
      throw error
    }
  }

  /**
   * Two live instances with one MIRRORBOARD_INSTANCE_ID would make the logs and GET /instances lie: a start whose id
   * wrote a status within the session timeout is refused (a crashed instance restarted at once waits that long).
   */
  private async refuseDuplicate(statusLog: ControlTopicLog): Promise<void> {
    let mine: string | null | undefined
    for (const { key, value } of await statusLog.readNew()) if (key === this.config.instanceId) mine = value
    if (!mine) return
    const { heartbeatAt } = JSON.parse(mine) as InstanceStatus
    const ago = Date.now() - heartbeatAt
    if (ago < this.config.sessionTimeoutMs) {
      throw new DuplicateInstanceError(
        `an instance with MIRRORBOARD_INSTANCE_ID=${this.config.instanceId} is already running (its last status is ${ago} ms old): give each instance its own id, or wait ${Math.ceil(this.config.sessionTimeoutMs / 1000)} s after stopping the other; nothing was changed`,
      )
    }
  }

  /**
   * After `prepare`: the stores' entries shared with the other instances (read from the topic, this instance's own
   * published), and every change published from now on.
   */
  async shareIdentity(stores: readonly SharedIdentityStore[]): Promise<SharedIdentity> {
    if (this.shared === null) throw new Error('shareIdentity before prepare')
    const identity = new SharedIdentity({ topic: this.identityTopic, key: deriveKey(this.config.secretKey), reader: this.shared.reader, producer: this.shared.producer, stores, log: this.deps.log, views: this.control })
    await identity.start()
    this.identity = identity
    return identity
  }

  private async closeShared(): Promise<void> {
    const shared = this.shared
    this.shared = null
    await this.identity?.close()
    this.identity = null
    await shared?.clusters.close()
    await shared?.operations.close()
    await shared?.producer.disconnect().catch(() => undefined)
    await shared?.reader.close().catch(() => undefined)
  }

  /** After the engine started: join the group; each assignment changes what the engine runs. */
  async join(engine: MirrorEngine): Promise<void> {
    this.engine = engine
    engine.subscribe((event) => {
      if (event.type !== 'mirror' || event.change !== 'created') return
      const definition = engine.listMirrors().find((mirror) => mirror.name === event.mirror)
      if (!definition) return
      this.ownership.adoptCreated(definition)
      // The group places the new mirror now, not at the next membership change: a join in flight may have read the
      // catalog before it existed (its answer would take it from here again), and the leader balances it.
      // Once the create has finished (its topics started, its answer read here): a rebalance that moved the mirror
      // while POST /mirrors was still running made its creator answer 404 for the mirror it had just made.
      // Until that rebalance has run, an assignment without it does not take it away (GroupOwnership.assign).
      if (!this.ownership.sharesOut(definition)) return
      void engine
        .commandsSettled(definition.name)
        .then(() => this.membership?.requestRebalance())
        .finally(() => this.ownership.placedByGroup(definition))
    })
    const log = this.deps.log
    this.membership = new GroupMembership({
      kafka: this.kafka,
      groupId: this.config.group,
      topic: this.membershipTopic,
      instanceId: this.config.instanceId,
      version: this.deps.version,
      sessionTimeoutMs: this.config.sessionTimeoutMs,
      catalog: () =>
        readMirrorCatalog(
          { names: () => this.deps.clusters.names(), isShared: (name) => this.isShared(name), host: (name) => this.deps.clusters.ports(name).host },
          (message, fields) => log.warn(message, fields),
        ),
      owned: () => this.ownership.ownedKeys(),
      onAssignment: (keys, join) => {
        this.joined = join.memberId === '' ? null : { ...join, at: Date.now() }
        // One after another: giving everything up (a lost session) is carried out in full before the next
        // assignment adopts, so a mirror handed back is read again from its destination, not kept running as it was.
        this.assignments = this.assignments
          .then(async () => {
            this.ownership.assign(keys)
            await engine.reconcileOwnership()
            this.directory?.report()
          })
          .catch((error: unknown) => log.warn('an assignment could not be carried out', { error: String(error) }))
      },
      log: (message, fields) => log.info(message, fields),
      controlAnsweredSince: (at) => this.control.answeredSince(at),
      onHeartbeat: () => this.control.answered(),
    })
    await this.membership.start()
    if (this.shared) {
      this.directory = new InstanceDirectory({
        self: () => ({ id: this.config.instanceId, version: this.deps.version, mirrors: engine.heldMirrors().sort(), url: this.config.advertisedUrl ?? null, memberId: this.joined?.memberId ?? null, fenced: this.fencedWork() }),
        log: new ControlTopicLog(this.shared.reader, this.membershipTopic, this.control),
        producer: this.shared.producer,
        sessionTimeoutMs: this.config.sessionTimeoutMs,
        warn: (message, fields) => log.warn(message, fields),
        health: this.control,
      })
      this.directory.start()
    }
  }

  /** The other instances' live events published into this instance's hub too (event-relay.ts). */
  relayEvents(hub: EventHub): void {
    this.relay = new EventRelay({
      self: this.config.instanceId,
      key: forwardingKey(this.config.secretKey),
      hub,
      instances: () => this.instances(),
      warn: (message, fields) => this.deps.log.warn(message, fields),
    })
    this.relay.start()
  }

  /** Every instance of the group as the instances topic shows it (this one included). */
  instances(): Array<InstanceStatus & { alive: boolean }> {
    return this.directory?.list() ?? []
  }

  /** The instance id of the group's leader (the member that assigns the mirrors), as this instance's last join saw it. */
  leaderInstance(): string | null {
    const joined = this.joined
    if (joined === null) return null
    if (joined.isLeader) return this.config.instanceId
    return this.instances().find((instance) => instance.alive && instance.memberId === joined.leaderId)?.id ?? null
  }

  async close(): Promise<void> {
    this.relay?.close()
    this.audit?.close()
    await this.membership?.stop()
    await this.directory?.close()
    await this.closeShared()
  }
}
