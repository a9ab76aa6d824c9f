import 'server-only'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import { Fault, type FaultRequest } from '@/lib/api/demo'
import { ApiError } from '@/lib/api/errors'
import { healRottenByte } from '@/server/cluster/embedded/bit-rot'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { TransactionalProducer } from '@/server/cluster/embedded/producers'
import type { ClusterLinks } from '@/server/cluster/links'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'
import type { Logger } from '@/server/observability/logger'

/**
 * Fault injection for the demo (API.md `POST /demo/faults`): each kind breaks something a mirror depends on,
 * and each lasting fault is healed by its opposite kind or by `DELETE /demo/faults/{id}`:
 *
 * - stop-broker · start-broker: leaders the broker held move to another ISR replica; the ISR shrinks after
 *   replica.lag.time.max.ms; mirroring continues from the new leaders. The last alive broker is never stopped.
 * - cut-link · heal-link: the cluster is cut off from every other cluster; mirrors from or to it fail their
 *   fetches, go FAILED and retry with backoff until the link heals.
 * - unclean-election: a lagging follower of the partition is elected uncleanly and its missing tail is lost;
 *   a mirror that copied that tail sees divergence (ULE_LOG_TRUNCATION, or FAILED non-retryable). One-off.
 * - hanging-transaction: a producer opens a transaction and never ends it, holding the last stable offset
 *   back; healing aborts it by starting its transactional id again (Kafka's initTransactions fences and aborts).
 * - bit-rot: one byte of a record's value flipped in a segment file of the partition's leader replica, on
 *   disk, as a failing disk would (server/cluster/embedded/bit-rot.ts): reads still answer, with the wrong
 *   value and a batch failing its own CRC32C, which a verification names by offset; healing puts the byte back.
 *
 * Faults are kept in `<dataDir>/demo/faults.json`. A restart starts every broker and heals every link (both
 * live in the process), so those are marked healed at start; a hanging transaction outlives the process, as
 * it would outlive a crashed producer, and is still healed by its id; a rotten byte stays on disk, with where
 * it is kept beside the faults so it can still be healed.
 */

/** Records an unclean election loses. */
const UNCLEAN_ELECTION_LOST_RECORDS = 5
/** Long enough to watch (the coordinator's own timeout would abort it after this). */
const HANGING_TRANSACTION_TIMEOUT_MS = 15 * 60_000

const RottenByteRecord = z.object({ file: z.string(), position: z.number().int().nonnegative(), original: z.number().int().min(0).max(255) })
const FaultsFile = z.object({ version: z.literal(1), faults: z.array(Fault), rotten: z.record(z.string(), RottenByteRecord).optional() })

export interface FaultDeps {
  dataDir: string
  cluster(name: string): EmbeddedCluster
  links: ClusterLinks
  log: Logger
  now?: () => number
  /** Called after a fault is injected or healed. */
  onChange?: (fault: Fault) => void
}

const SUMMARY: Record<Fault['kind'], string> = {
  'stop-broker': 'Stops a broker: its partitions elect new leaders from the ISR, the ISR shrinks, and mirroring carries on from the new leaders.',
  'cut-link':
    'Cuts the cluster off from every other cluster: mirror fetches across the link fail, lag grows, partitions go FAILED and retry with backoff until the link heals.',
  'unclean-election':
    'Elects a lagging replica uncleanly: records only the old leader held are lost, and a mirror that already copied them must detect the divergence.',
  'hanging-transaction': 'Opens a transaction that never commits: the last stable offset stops there, and a failover would have to abort it.',
  'bit-rot': "Flips one byte of a record's value in a segment file on the leader's disk: reads still answer, with a wrong value in a batch that fails its own CRC; only a verification notices.",
}

export class FaultInjector {
  private readonly faults: Fault[] = []
  private readonly producers = new Map<string, TransactionalProducer>()
  /** Where each bit-rot fault flipped its byte, by fault id (kept in the faults file). */
  private readonly rotten = new Map<string, z.infer<typeof RottenByteRecord>>()
  private readonly file: string
  private readonly now: () => number
  private lock: Promise<unknown> = Promise.resolve()

  constructor(private readonly deps: FaultDeps) {
    this.file = path.join(deps.dataDir, 'demo', 'faults.json')
    this.now = deps.now ?? Date.now
  }

  /** Loads the faults of an earlier run; brokers and links were restored by the restart itself. */
  async load(): Promise<void> {
    const text = await readTextIfExists(this.file)
    if (text === undefined) return
    const parsed = FaultsFile.parse(JSON.parse(text))
    const stored = parsed.faults
    for (const [id, rot] of Object.entries(parsed.rotten ?? {})) this.rotten.set(id, rot)
    const now = this.now()
    for (const fault of stored) {
      const restored = fault.status === 'active' && (fault.kind === 'stop-broker' || fault.kind === 'cut-link')
      this.faults.push(restored ? { ...fault, status: 'healed', healedAt: now, detail: `${fault.detail} Healed by the server restart.` } : fault)
    }
    await this.save()
  }

  /** Active faults, oldest first. */
  active(): Fault[] {
    return this.faults.filter((fault) => fault.status === 'active')
  }

  /** One change at a time: two requests to stop the last two brokers must not both pass the check. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const task = this.lock.then(work)
    this.lock = task.catch(() => undefined)
    return task
  }

  apply(request: FaultRequest): Promise<Fault> {
    return this.serialized(() => this.applyNow(request))
  }

  heal(id: string): Promise<Fault> {
    return this.serialized(async () => {
      const fault = this.faults.find((candidate) => candidate.id === id)
      if (!fault) throw new ApiError('NOT_FOUND', `no fault ${JSON.stringify(id)}`, { details: { id } })
      if (fault.status !== 'active') throw new ApiError('CONFLICT', `fault ${id} (${fault.kind}) is ${fault.status}: there is nothing to heal`, { details: { id, status: fault.status } })
      return this.healNow(fault)
    })
  }

  private async applyNow(request: FaultRequest): Promise<Fault> {
    const cluster = this.deps.cluster(request.cluster)
    switch (request.kind) {
      case 'stop-broker':
        return this.stopBroker(cluster, requireBroker(request))
      case 'start-broker': {
        const broker = requireBroker(request)
        const fault = this.active().find((f) => f.kind === 'stop-broker' && f.cluster === request.cluster && f.broker === broker)
        if (fault) return this.healNow(fault)
        await cluster.startBroker(broker)
        return this.record({ kind: 'stop-broker', cluster: request.cluster, broker, status: 'healed', detail: `Broker ${broker} started.` }, true)
      }
      case 'cut-link':
        this.deps.links.cutOff(request.cluster)
        return this.record({ kind: 'cut-link', cluster: request.cluster, status: 'active', detail: `Every link of ${request.cluster} is down.` })
      case 'heal-link': {
        const fault = this.active().find((f) => f.kind === 'cut-link' && f.cluster === request.cluster)
        if (fault) return this.healNow(fault)
        // Throws CONFLICT: the link is not cut.
        this.deps.links.heal(request.cluster)
        return this.record({ kind: 'cut-link', cluster: request.cluster, status: 'healed', detail: 'The link is up again.' }, true)
      }
      case 'unclean-election':
        return this.uncleanElection(cluster, request)
      case 'hanging-transaction':
        return this.hangingTransaction(cluster, request)
      case 'bit-rot':
        return this.bitRot(cluster, request)
    }
  }

  private async bitRot(cluster: EmbeddedCluster, request: FaultRequest): Promise<Fault> {
    const topic = requireTopic(request)
    const partition = request.partition ?? 0
    const rot = await cluster.rotOneByte({ topic, partition })
    const id = newId()
    this.rotten.set(id, { file: rot.file, position: rot.position, original: rot.original })
    return this.record({
      id,
      kind: 'bit-rot',
      cluster: cluster.name,
      topic,
      partition,
      offset: rot.offset,
      status: 'active',
      detail: `Broker ${rot.broker}'s segment ${path.basename(rot.file)} of ${topic}-${partition} had one byte flipped at position ${rot.position}: the value of the record at offset ${rot.offset} (batch ${rot.batchBaseOffset}).`,
    })
  }

  private async stopBroker(cluster: EmbeddedCluster, broker: number): Promise<Fault> {
    const brokers = cluster.brokers()
    const target = brokers.find((b) => b.id === broker)
    if (!target) throw new ApiError('NOT_FOUND', `cluster ${cluster.name} has no broker ${broker}`, { details: { cluster: cluster.name, broker, brokers: brokers.map((b) => b.id) } })
    if (target.alive && brokers.filter((b) => b.alive).length === 1) {
      throw new ApiError('CONFLICT', `broker ${broker} is the last alive broker of ${cluster.name}; stopping it would stop the cluster`, { details: { cluster: cluster.name, broker } })
    }
    const ledBefore = await leadersOf(cluster)
    await cluster.stopBroker(broker)
    const moved = [...ledBefore].filter(([, leader]) => leader === broker).length
    return this.record({
      kind: 'stop-broker',
      cluster: cluster.name,
      broker,
      status: 'active',
      detail: `Broker ${broker} stopped; ${moved} partition${moved === 1 ? '' : 's'} it led elected new leaders.`,
    })
  }

  private async uncleanElection(cluster: EmbeddedCluster, request: FaultRequest): Promise<Fault> {
    const topic = requireTopic(request)
    const partition = request.partition ?? 0
    if ((await cluster.describeTopic(topic)).readOnly) {
      // A mirror topic takes its history from its source; divergence is made at the source.
      throw new ApiError('CONFLICT', `${topic} on ${cluster.name} is a mirror topic: make the unclean election at its source`, { details: { cluster: cluster.name, topic } })
    }
    const result = await cluster.electLaggingReplicaUncleanly({ topic, partition }, UNCLEAN_ELECTION_LOST_RECORDS)
    const lost = result.previousLogEndOffset - result.logEndOffset
    return this.record({
      kind: 'unclean-election',
      cluster: cluster.name,
      topic,
      partition,
      status: 'applied',
      detail: `Broker ${result.leader} leads ${topic}-${partition} after an unclean election; offsets ${result.logEndOffset}–${result.previousLogEndOffset - 1} (${lost} records) that only broker ${result.previousLeader} held are lost.`,
    })
  }

  private async hangingTransaction(cluster: EmbeddedCluster, request: FaultRequest): Promise<Fault> {
    const topic = requireTopic(request)
    const partition = request.partition ?? 0
    const id = newId()
    const producer = await cluster.createTransactionalProducer(transactionalIdOf(id), { transactionTimeoutMs: HANGING_TRANSACTION_TIMEOUT_MS })
    const sent = await producer.send(topic, { partition, records: [{ key: 'hanging', value: 'this transaction never commits' }] })
    this.producers.set(id, producer)
    return this.record({
      id,
      kind: 'hanging-transaction',
      cluster: cluster.name,
      topic,
      partition,
      status: 'active',
      detail: `Producer ${producer.producerId} opened a transaction at ${topic}-${partition} offset ${sent.records[0]?.offset ?? '?'} and never ends it.`,
    })
  }

  private async healNow(fault: Fault): Promise<Fault> {
    const cluster = this.deps.cluster(fault.cluster)
    let detail: string
    switch (fault.kind) {
      case 'stop-broker':
        await cluster.startBroker(fault.broker!)
        detail = `Broker ${fault.broker} started; it catches up and rejoins the ISR.`
        break
      case 'cut-link':
        this.deps.links.heal(fault.cluster)
        detail = 'The link is up again; the failed partitions recover from the first one to retry.'
        break
      case 'hanging-transaction': {
        this.producers.get(fault.id)?.close()
        this.producers.delete(fault.id)
        // A new producer with the same transactional id fences the old one and aborts its transaction.
        const fresh = await cluster.createTransactionalProducer(transactionalIdOf(fault.id))
        fresh.close()
        detail = 'The transaction was aborted; the last stable offset moves on.'
        break
      }
      case 'bit-rot': {
        const rot = this.rotten.get(fault.id)
        const restored = rot !== undefined && (await healRottenByte(rot))
        this.rotten.delete(fault.id)
        detail = restored ? 'The byte was put back; the batch passes its CRC again.' : 'The segment no longer holds the flipped byte (rewritten, truncated or removed): nothing to put back.'
        break
      }
      case 'unclean-election':
        throw new ApiError('CONFLICT', 'an unclean election cannot be undone')
    }
    const healed: Fault = { ...fault, status: 'healed', healedAt: this.now(), detail: `${fault.detail} ${detail}` }
    this.faults[this.faults.indexOf(fault)] = healed
    await this.save()
    this.deps.onChange?.(healed)
    return healed
  }

  private async record(
    fields: Pick<Fault, 'kind' | 'cluster' | 'status' | 'detail'> & Partial<Pick<Fault, 'id' | 'broker' | 'topic' | 'partition' | 'offset'>>,
    healedNow = false,
  ): Promise<Fault> {
    const now = this.now()
    const fault: Fault = {
      id: fields.id ?? newId(),
      kind: fields.kind,
      cluster: fields.cluster,
      broker: fields.broker ?? null,
      topic: fields.topic ?? null,
      partition: fields.partition ?? null,
      ...(fields.offset === undefined ? {} : { offset: fields.offset }),
      status: fields.status,
      summary: SUMMARY[fields.kind],
      detail: fields.detail,
      startedAt: now,
      healedAt: healedNow ? now : null,
    }
    this.faults.push(fault)
    await this.save()
    this.deps.onChange?.(fault)
    return fault
  }

  private async save(): Promise<void> {
    // The newest 200 are plenty to show; healed ones older than that are history nobody reads.
    const kept = this.faults.filter((fault, index) => fault.status === 'active' || index >= this.faults.length - 200)
    await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, faults: kept, rotten: Object.fromEntries(this.rotten) }, null, 1)}\n`, 0o644)
  }
}

function newId(): string {
  return `f-${randomBytes(5).toString('hex')}`
}

function transactionalIdOf(faultId: string): string {
  return `demo-hanging-${faultId}`
}

function requireBroker(request: FaultRequest): number {
  if (request.broker === undefined) throw new ApiError('VALIDATION_FAILED', `a ${request.kind} fault needs a broker`, { details: { field: 'broker' } })
  return request.broker
}

function requireTopic(request: FaultRequest): string {
  if (request.topic === undefined) throw new ApiError('VALIDATION_FAILED', `a ${request.kind} fault needs a topic`, { details: { field: 'topic' } })
  return request.topic
}

async function leadersOf(cluster: EmbeddedCluster): Promise<Map<string, number>> {
  const leaders = new Map<string, number>()
  for (const topic of await cluster.describeTopics()) for (const p of topic.partitions) leaders.set(`${topic.name}-${p.partition}`, p.leader)
  return leaders
}
