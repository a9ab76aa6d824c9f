import 'server-only'
// Over 400 lines on purpose: the MirrorHost port's methods (the rebuild included) all read or update one per-partition emulation state under one per-partition lock; the mirror path itself is kafka-mirror-append.ts, run under that lock; reading an orphaned transaction back is orphan-records.ts.
import { LeaderEpochCache } from '@/lib/log/leader-epoch-cache'
import { BATCH_HEADER_SIZE, readBatchHeader, viewOf } from '@/lib/log/record-batch'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import { ClusterError } from '../errors'
import type { EpochEndOffset, GroupOffsets, MirrorHost, MirrorStateAppendEntry, OpenTransaction, PartitionDescription, RebuildPlanEntry, ReplicaLogState, TopicDescription, TopicPartition } from '../ports'
import type { KafkaConnection } from './connection'
import { EmulatedProducers } from './emulated-producer'
import { emulationNotes, type EmulationNotes } from './emulation-notes'
import type { KafkaSourceCluster } from './kafka-source'
import { appendMirrored, type MirrorPathHost } from './kafka-mirror-append'
import { emptyPartitionEmulation, noteOn, partitionKey, readPartitionEmulation, readTopicEmulation, topicKey, type PartitionEmulation, type TopicEmulation } from './kafka-mirror-state'
import { EMULATION_KEY_PREFIX, STATE_TOPIC, type KafkaStateTopic } from './kafka-state-topic'
import type { KafkaTopicAdmin } from './kafka-topic-admin'
import { OffsetTranslation } from './offset-translation'
import { abortedTail, heldBatches, transactionEnd } from './orphan-records'
import { errorName, ISOLATION_LEVEL, LATEST_TIMESTAMP, listOffsetsRequest } from './protocol'
import { scanControlRecord } from './control-scan'
import { WriteDenyAcls } from './write-deny-acls'

/** How long a recovery waits for the ABORT marker its claim of an orphaned transaction makes the coordinator write. */
const ORPHAN_MARKER_WAIT_MS = 15_000

/**
 * The MirrorHost port on a real Kafka cluster, by emulation (DESIGN.md §5; every point is also in
 * `emulationNotes`, which the API and UI show). The engine sees the log in the source's offsets, as a native
 * mirror would keep it; underneath, records are produced in source order (emulated-producer.ts), each
 * answer's base offset is compared with the source batch's and a translation kept where they differ
 * (offset-translation.ts), the leader epoch the engine bumps, the epoch cache of the mirrored batches, open
 * transactions and MIRROR_PID_RESETs are recorded in the destination's state topic (kafka-state-topic.ts).
 * What a client cannot do is refused with a coded reason: truncating below the log end (failback rebuilds the
 * topic instead: rebuildNeeded / rebuildTopic). Read-only is enforced by a DENY WRITE ACL where the cluster has
 * an authorizer (write-deny-acls.ts), and detected in any case: a log end that moved without our produce fails
 * the partition.
 */
export class KafkaMirrorHost implements MirrorHost {
  private loading: Promise<void> | null = null
  private readonly topics = new Map<string, TopicEmulation>()
  private readonly partitions = new TopicPartitionMap<PartitionEmulation>()
  private readonly locks = new TopicPartitionMap<Promise<unknown>>()
  private readonly producers: EmulatedProducers
  private readonly acls: WriteDenyAcls
  /**
   * Instances sharing the work (issue #40): partitions whose open transactions were read at load but not recovered,
   * since another instance may be running them (recovering means initialising their transactional ids, which aborts
   * the owner's transactions). Recovered by the writer: on adoption (reloadMirrorTopics) or at its first write here.
   */
  private readonly pendingOrphans = new TopicPartitionMap<true>()
  private readonly shared: boolean
  /**
   * Atomic appends (issue #40): each append's batches and the partition's emulation record commit in one transaction
   * of the partition's transactional id. The producer whose claim this instance last read the partition's state after
   * (`writablePartition`): another one claims again, and what the previous writer committed is read again first.
   */
  private readonly atomic: boolean
  private readonly readAfterClaim = new TopicPartitionMap<object>()
  /** Atomic appends: where a committed transaction's COMMIT marker lands, until it is seen in the partition (`markerIn`). */
  private readonly markersDue = new TopicPartitionMap<number>()
  /**
   * Atomic appends: the broker's log end `markerIn` read at the start of the partition's append (the last commit's
   * marker in), which the append takes as its check of the log end instead of asking the leader once more. Set or
   * cleared by every `writablePartition`, so it never outlives the append it was read for.
   */
  private readonly endAtStart = new TopicPartitionMap<number>()

  constructor(
    readonly name: string,
    private readonly connection: KafkaConnection,
    private readonly source: KafkaSourceCluster,
    private readonly admin: KafkaTopicAdmin,
    private readonly state: KafkaStateTopic,
    acls: WriteDenyAcls = new WriteDenyAcls(connection.admin),
    /** Instances share the work (issue #40): each partition's writes are fenced by a transactional id (emulated-producer.ts). */
    fencedWrites = false,
    /** With fenced writes: each append's data and its emulation record in one transaction (kafka-mirror-append.ts). */
    atomicAppends = false,
  ) {
    this.atomic = fencedWrites && atomicAppends
    this.producers = new EmulatedProducers(
      (suffix) => connection.client(suffix),
      (suffix) => connection.channel(suffix),
      `mirrorboard-${name}`,
      (tp) => this.brokerHighWatermark(tp),
      fencedWrites,
      this.atomic,
      { topic: STATE_TOPIC, partition: 0 },
    )
    this.acls = acls
    this.shared = fencedWrites
  }

  /** Whether this host keeps `topic` read-only as a mirror topic (a switchover fence lifted there leaves the DENY in place). */
  async keepsReadOnly(topic: string): Promise<boolean> {
    await this.ready()
    return this.topics.get(topic)?.readOnly === true
  }

  // ---- state ----

  private ready(): Promise<void> {
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = null
      throw error
    })
    return this.loading
  }

  private async load(): Promise<void> {
    await this.state.catchUp()
    // Shared between instances, looking at the cluster is no claim to its mirrors: their writer recovers them.
    await this.applyEmulationRecords(() => true, !this.shared)
    await this.acls.load()
  }

  /** The emulation of the topics `wanted` accepts, as the state topic holds it now; open transactions left by a dead writer recovered. */
  private async applyEmulationRecords(wanted: (topic: string) => boolean, recover = true): Promise<void> {
    for (const { key, value } of this.state.emulationRecords()) {
      const parsed: unknown = value === null ? null : JSON.parse(value)
      const topic = readTopicEmulation(parsed)
      const partition = readPartitionEmulation(parsed)
      if (key.startsWith(topicKey(''))) {
        const name = key.slice(topicKey('').length)
        if (!wanted(name)) continue
        if (topic) this.topics.set(name, topic)
        else this.topics.delete(name)
        continue
      }
      // emulation/partition/<topic>/<partition>: Kafka topic names have no '/'.
      const [, , name, index] = key.split('/')
      if (!wanted(name ?? '')) continue
      if (partition) this.partitions.set(partition, partition)
      else this.partitions.delete({ topic: name ?? '', partition: Number(index) })
    }
    for (const e of this.partitions.values()) {
      if (!wanted(e.topic) || e.openTransactions.length === 0 || !this.topics.get(e.topic)?.readOnly) continue
      if (!recover) {
        this.pendingOrphans.set(e, true)
        continue
      }
      this.pendingOrphans.delete(e)
      // A mirror topic deleted behind our back has nothing left to recover; its record must not stop every
      // other topic of the cluster from being described (the load is what each call waits for).
      await this.recoverOrphans(e).catch((error: unknown) => {
        if (!(error instanceof ClusterError && error.code === 'NOT_FOUND')) throw error
      })
    }
  }

  /**
   * Another instance mirrored into these topics until now (issue #40): their emulation (log ends, translation,
   * open transactions) is read again from the state topic, and their producers are dropped, so the next append
   * continues after what that instance wrote (a write it made but did not record is recognised as after a crash:
   * unacknowledged-produce.ts).
   */
  async reloadMirrorTopics(topics: readonly string[]): Promise<void> {
    await this.ready()
    const names = new Set(topics)
    for (const e of [...this.partitions.values()]) {
      if (!names.has(e.topic)) continue
      await this.producers.forget(e, { idempotent: true })
      this.producers.unfence(e)
      // Atomic appends: claimed at once, so the previous owner stops now; read again at the first write (writablePartition).
      if (this.atomic) await this.producers.claim(e)
    }
    // After the claims, everything their previous writer committed (a commit it was finishing included) is read.
    if (this.atomic) await this.state.catchUpToEnd()
    else await this.state.catchUp()
    await this.applyEmulationRecords((topic) => names.has(topic), !this.atomic)
  }

  claimMirrorState(mirror: string): Promise<void> {
    return this.state.claimMirror(mirror)
  }

  /**
   * A writer that stopped with source transactions open (a server killed or restarted, an instance whose mirror
   * another one took over) left their destination transactions open too, and a client cannot continue another
   * producer's transaction: initialising each transactional id again makes the coordinator abort it (its ABORT
   * marker has no source offset: the translation shifts past it). What it held would then be committed at the
   * source and aborted here, so its records are read back from the destination (an aborted transaction's records
   * stay in the log) and produced again into the new destination transaction of that source producer, after the
   * marker: the source's COMMIT commits all of them, its ABORT aborts them (orphan-records.ts). Their source offsets
   * still translate to the aborted copies, so a group offset synced inside the transaction is redelivered, never
   * skipped. The range being carried is persisted before its first produce: a crash in the middle leaves the new
   * transaction open, and the next recovery aborts it and carries the same records again. Noted on the partition.
   */
  private async recoverOrphans(e: PartitionEmulation): Promise<void> {
    const translation = new OffsetTranslation(e.translation)
    // What the dead writer's transactions can hold: up to the log end it recorded (a produce it did not record is
    // not the mirror's: the engine fetches that source batch again).
    const heldUpTo = e.destinationLogEndOffset
    try {
      for (const orphan of [...e.openTransactions].sort((a, b) => a.firstOffset - b.firstOffset)) {
        const from = orphan.carrying?.from ?? orphan.destinationFirstOffset ?? translation.toDestination(orphan.firstOffset)
        const to = orphan.carrying?.to ?? heldUpTo
        const known = orphan.carrying ? { producerId: orphan.carrying.producerId, producerEpoch: orphan.carrying.producerEpoch } : null
        // What it held, read before the claim below (aborted or not, its records stay in the log).
        const held = await heldBatches(this.source, e, from, to, known)
        // Past anything already beyond our log end (a copy a crash interrupted), so the wait is for this marker.
        const before = Math.max(e.destinationLogEndOffset, await this.brokerHighWatermark(e))
        // Its marker is waited for below when it held records here; a copy a crash interrupted is settled here.
        await this.producers.fenceOrphan(e, orphan.producerId, before, held.session && !orphan.carrying ? 0 : undefined)
        const lost = held.logStartOffset === null ? '' : ` (retention removed destination offsets ${from}–${held.logStartOffset - 1} before they could be read back: those records of it are lost here)`
        // Counted where the transaction's own count is known (kept since it was opened): what was not read back is lost.
        const readBack = held.batches.reduce((sum, { header }) => sum + header.recordCount, 0)
        const countLoss = (): void => {
          if (held.logStartOffset === null || orphan.records === undefined || orphan.records <= readBack || orphan.carrying) return
          e.carryLosses = [...e.carryLosses, { at: Date.now(), sourceOffset: orphan.firstOffset, records: orphan.records - readBack }].slice(-20)
        }
        // Carried only once its destination transaction is known aborted: by this claim (or a timeout) — or, with
        // `carrying`, before a crash interrupted the carry. A transaction this claim did not end was written under
        // another transactional id (a host of another name looking at the cluster): carrying it would duplicate it.
        const ended = held.session && !orphan.carrying ? await transactionEnd(this.source, e, held.session.producerId, to, ORPHAN_MARKER_WAIT_MS) : null
        const brokerEnd = await this.brokerHighWatermark(e)
        if (brokerEnd > e.destinationLogEndOffset) {
          e.destinationLogEndOffset = brokerEnd
          translation.record(e.logEndOffset, brokerEnd)
        }
        if (!held.session || held.batches.length === 0) {
          countLoss()
          delete orphan.carrying
          noteOn(e, orphan.firstOffset, `the transaction of source producer ${orphan.producerId} was open when its writer stopped: the destination aborted its transaction there, and nothing of it could be read back to carry into a new one${lost}; its later records go into a new destination transaction`)
          continue
        }
        if (!orphan.carrying && ended?.type !== 'ABORT') {
          noteOn(e, orphan.firstOffset, ended === null
            ? `the transaction of source producer ${orphan.producerId} was open when its writer stopped, and claiming it here did not end it (it was written under another transactional id): left as it is`
            : `the transaction of source producer ${orphan.producerId} was open when its writer stopped, and its destination transaction was committed at ${ended.offset} before that writer recorded it: kept`)
          continue
        }
        countLoss()
        orphan.carrying = { from, to, ...held.session }
        e.translation = translation.entries()
        await this.persist([{ partition: e }])
        let first: number | null = null
        let records = 0
        for (const { header, bytes } of held.batches) {
          const produced = await this.producers.produceTransactional(e, bytes, { ...header, producerId: orphan.producerId })
          if (produced.records.length === 0) continue
          first ??= produced.baseOffset
          records += produced.records.length
          e.destinationLogEndOffset = produced.baseOffset + produced.records.length
        }
        if (first !== null) orphan.destinationFirstOffset = first
        if (orphan.records !== undefined) orphan.records = records
        delete orphan.carrying
        translation.record(e.logEndOffset, e.destinationLogEndOffset)
        noteOn(e, orphan.firstOffset, `the transaction of source producer ${orphan.producerId} was open when its writer stopped: a client cannot resume another producer's transaction, so the destination aborted it and produced its ${records} records again into a new destination transaction (destination offsets ${first}–${e.destinationLogEndOffset - 1}, after the ABORT marker), which the source's COMMIT or ABORT ends${lost}`)
      }
    } catch (error) {
      // Nothing half-carried stays with this process: the next recovery initialises the ids again, aborting it.
      await this.producers.forget(e)
      throw error
    } finally {
      e.translation = translation.entries()
    }
    await this.persist([{ partition: e }])
  }

  /**
   * Writes emulation records. A topic's record goes in a transaction of its mirror's id (`mirrorboard-state-<mirror>`,
   * which the instance adopting the mirror claims): the mirror it names, or `unit` (the mirror that had a topic made
   * writable), so a zombie's read-only flip is refused like its other state writes; one of no mirror goes unfenced.
   */
  private async persist(entries: Array<{ topic?: TopicEmulation; partition?: PartitionEmulation; unit?: string | null }>): Promise<void> {
    if (this.atomic) {
      // A partition's record goes through its own transactional id (fenced); the topics' records as before.
      const partitions = entries.flatMap((e) => (e.partition ? [e.partition] : []))
      const topics = entries.filter((e) => e.topic)
      if (topics.length > 0) await this.persistPlain(topics)
      await Promise.all(partitions.map((e) => this.commitPartition(e, false)))
      return
    }
    return this.persistPlain(entries)
  }

  /**
   * Atomic appends: the partition's emulation record written in the partition's open transaction (or one of its own)
   * and committed; with `holdsData`, once the COMMIT marker is in the log (it takes the offset the record counted it
   * at), so nothing else is produced to the partition before it.
   */
  private async commitPartition(e: PartitionEmulation, holdsData: boolean): Promise<void> {
    await this.state.ensureExists()
    const stateLeader = await this.leaderOf({ topic: STATE_TOPIC, partition: 0 })
    await this.producers.commitState(e, { topic: STATE_TOPIC, partition: 0 }, stateLeader, [{ key: partitionKey(e.topic, e.partition), value: JSON.stringify(e) }])
    // Waited for by the partition's next write (writablePartition), or before another producer writes in this append.
    if (holdsData) this.markersDue.set(e, e.destinationLogEndOffset)
  }

  /**
   * Atomic appends: the last commit's marker is in the partition, so nothing produced next can land before it. Resolves
   * with the broker's log end it read then (null when no marker was due).
   */
  private async markerIn(tp: TopicPartition): Promise<number | null> {
    const due = this.markersDue.get(tp)
    if (due === undefined) return null
    const deadline = Date.now() + ORPHAN_MARKER_WAIT_MS
    for (;;) {
      const end = await this.brokerHighWatermark(tp)
      if (end >= due) {
        this.markersDue.delete(tp)
        return end
      }
      if (Date.now() > deadline) throw new ClusterError('REQUEST_TIMED_OUT', `the COMMIT marker of ${tp.topic}-${tp.partition} did not reach the log within ${ORPHAN_MARKER_WAIT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }

  private persistPlain(entries: Array<{ topic?: TopicEmulation; partition?: PartitionEmulation; unit?: string | null }>): Promise<void> {
    return this.state.append(
      entries.map((e) => {
        if (!e.topic) return { key: partitionKey(e.partition!.topic, e.partition!.partition), value: JSON.stringify(e.partition) }
        const unit = e.topic.mirror ?? e.unit ?? null
        return { key: topicKey(e.topic.topic), value: JSON.stringify(e.topic), ...(unit === null ? {} : { unit }) }
      }),
    )
  }

  /** Runs `action` alone on the partition: appends, markers and truncation of one partition never interleave. */
  private exclusive<T>(tp: TopicPartition, action: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(tp) ?? Promise.resolve()).then(action)
    this.locks.set(tp, run.catch(() => undefined))
    return run
  }

  private async partitionOf(tp: TopicPartition): Promise<PartitionEmulation> {
    await this.ready()
    const known = this.partitions.get(tp)
    if (known) return known
    if (!this.topics.has(tp.topic)) throw new ClusterError('VALIDATION_FAILED', `${tp.topic} is not a mirror topic on ${this.name}`, { details: { ...tp } })
    // A partition added after the topic was created (createMirrorPartitions): it starts where the broker's does.
    const real = await this.source.describePartition(tp)
    const created = emptyPartitionEmulation(tp.topic, tp.partition, real.highWatermark, real.leaderEpoch)
    this.partitions.set(tp, created)
    return created
  }

  /**
   * The partition about to be written here: open transactions a dead writer left, recovered first (`pendingOrphans`).
   * `appending`: an append whose first batch goes in the partition's own transaction follows at once (atomic appends:
   * that transaction may be opened already; one starting with a source transaction's batch or a marker commits first,
   * and would only add an empty transaction's COMMIT marker).
   */
  private async writablePartition(tp: TopicPartition, appending = false): Promise<PartitionEmulation> {
    let e = await this.partitionOf(tp)
    if (this.atomic) {
      // The producer that committed the last append, and read the state after its claim, writes the next one: its
      // next transaction's AddPartitionsToTxn goes out beside the wait for the last COMMIT marker (the coordinator
      // answers it only once that transaction's markers are written), not after it.
      // Not with open transactions left to recover first: their records are committed in a transaction of their own.
      const steady = appending && this.markersDue.get(e) !== undefined && !this.pendingOrphans.get(e)
      if (steady) this.producers.beginTransaction(e, this.readAfterClaim.get(e))
      let seen: number | null
      let claimed: { e: PartitionEmulation; reread: boolean }
      try {
        seen = await this.markerIn(e)
        claimed = await this.claimedPartition(e)
      } catch (error) {
        // No append follows: the transaction opened for it must not stay open (its timeout would put an ABORT marker
        // in the partition that no record counts). Aborted now, the next write's claim finds and skips it.
        if (steady) await this.producers.abandon(e)
        throw error
      }
      // Read after the marker, and no claim since (which could have aborted a transaction past it): the append's log end.
      if (seen !== null && !claimed.reread) this.endAtStart.set(e, seen)
      else this.endAtStart.delete(e)
      e = claimed.e
    }
    if (this.pendingOrphans.get(e)) {
      this.pendingOrphans.delete(e)
      if (e.openTransactions.length > 0 && this.topics.get(e.topic)?.readOnly) {
        // Tried again at the next write when it fails (the broker unreachable): never skipped.
        await this.recoverOrphans(e).catch((error: unknown) => {
          this.pendingOrphans.set(e, true)
          throw error
        })
      }
    }
    return e
  }

  /**
   * Atomic appends: the partition's transactional id claimed by this instance's current producer, and the partition's
   * emulation as committed before that claim. The claim aborts the transaction a previous writer (a crashed or fenced
   * instance, this one's producer dropped after a failure) left open, or waits until the one it was committing is
   * complete; either way its data and its emulation record stand or fall together, so reading the state topic to its
   * end gives a record that matches the data exactly. What the aborted transactions left beyond the recorded log end
   * (their records and ABORT markers) is skipped.
   */
  private async claimedPartition(e: PartitionEmulation): Promise<{ e: PartitionEmulation; reread: boolean }> {
    const { producerId, producer } = await this.producers.claim(e)
    if (this.readAfterClaim.get(e) === producer) return { e, reread: false }
    await this.state.catchUpToEnd()
    const record = this.state.emulationRecords().find(({ key }) => key === partitionKey(e.topic, e.partition))
    const committed = record?.value ? readPartitionEmulation(JSON.parse(record.value)) : null
    const current = committed ?? e
    if (committed) this.partitions.set(committed, committed)
    const brokerEnd = await this.brokerHighWatermark(current)
    if (brokerEnd > current.destinationLogEndOffset && (await abortedTail(this.source, current, current.destinationLogEndOffset, brokerEnd, producerId))) {
      const translation = new OffsetTranslation(current.translation)
      translation.record(current.logEndOffset, brokerEnd)
      noteOn(current, current.logEndOffset, `destination offsets ${current.destinationLogEndOffset}–${brokerEnd - 1} hold aborted transactions of this partition's writer (stopped, fenced or failed mid-append): skipped, the mirror goes on after them`)
      current.translation = translation.entries()
      current.destinationLogEndOffset = brokerEnd
      await this.commitPartition(current, false)
    }
    this.readAfterClaim.set(current, producer)
    return { e: current, reread: true }
  }

  /** The partition's leader for produces (metadata refreshed when none is known). */
  private async leaderOf(tp: TopicPartition): Promise<number> {
    await this.source.metadata.ensure([tp.topic])
    let leader = this.source.metadata.cached(tp)?.leader ?? -1
    if (leader < 0) {
      await this.source.metadata.refresh([tp.topic])
      leader = this.source.metadata.cached(tp)?.leader ?? -1
    }
    if (leader < 0) throw new ClusterError('LEADER_NOT_AVAILABLE', `${tp.topic}-${tp.partition} has no leader`, { details: { ...tp } })
    return leader
  }

  /** One ListOffsets (latest) to the leader: asked before every append, so lighter than a full describe. */
  private async brokerHighWatermark(tp: TopicPartition): Promise<number> {
    await this.source.metadata.ensure([tp.topic])
    const leader = this.source.metadata.cached(tp)?.leader ?? -1
    if (leader >= 0) {
      const answers = await this.connection.send(leader, listOffsetsRequest(ISOLATION_LEVEL.read_uncommitted, [{ topic: tp.topic, partitions: [{ partition: tp.partition, timestamp: LATEST_TIMESTAMP }] }]))
      const answer = answers.find((a) => a.topic === tp.topic && a.partition === tp.partition)
      if (answer && errorName(answer.errorCode) === 'NONE') return answer.offset
    }
    // A moved or missing leader: the full lookup refreshes metadata and retries.
    return (await this.source.offsets.of([tp])).get(tp)!.highWatermark
  }

  /** A broker log end beyond our last produce was written by someone else (no authorizer, or a super user). */
  private async checkUntouched(e: PartitionEmulation, brokerEnd?: number): Promise<void> {
    if (e.readOnlyViolation === null) {
      const actual = brokerEnd ?? (await this.brokerHighWatermark(e))
      if (actual !== e.destinationLogEndOffset) {
        const guard = this.acls.guardOf(e.topic)
        const why = guard.kind === 'acl' ? 'the DENY WRITE ACL refuses other clients, but a super user bypasses it' : `${guard.reason}, so read-only is detected, not enforced`
        e.readOnlyViolation = `the destination log end is ${actual}, the mirror last produced up to ${e.destinationLogEndOffset}: another client wrote to (or deleted from) the read-only mirror topic (${why})`
        await this.persist([{ partition: e }])
      }
    }
    if (e.readOnlyViolation !== null) throw new ClusterError('TOPIC_READ_ONLY', e.readOnlyViolation, { details: { topic: e.topic, partition: e.partition } })
  }

  // ---- reads ----

  async clusterId(): Promise<string> {
    return this.source.clusterId()
  }

  private overlayPartition(topic: string, real: PartitionDescription): PartitionDescription {
    const e = this.partitions.get({ topic, partition: real.partition })
    const t = this.topics.get(topic)
    if (!e || !t) return real
    const translation = new OffsetTranslation(e.translation)
    // Once writable again (STOPPED), clients write after our records: the broker's end, in source terms.
    const logEndOffset = t.readOnly ? e.logEndOffset : Math.max(e.logEndOffset, translation.toSource(real.highWatermark))
    const firstOpen = e.openTransactions.reduce((min, txn) => Math.min(min, txn.firstOffset), Number.POSITIVE_INFINITY)
    return {
      ...real,
      leaderEpoch: e.leaderEpoch,
      logStartOffset: e.logStartOffset,
      highWatermark: logEndOffset,
      lastStableOffset: t.readOnly ? Math.min(firstOpen, logEndOffset) : Math.max(e.logEndOffset, translation.toSource(real.lastStableOffset)),
      logEndOffset,
    }
  }

  private overlayTopic(description: TopicDescription): TopicDescription {
    const t = this.topics.get(description.name)
    if (!t) return description
    return {
      ...description,
      topicId: t.topicId,
      readOnly: t.readOnly,
      mirror: t.mirror === null ? null : { name: t.mirror },
      partitions: description.partitions.map((p) => this.overlayPartition(description.name, p)),
    }
  }

  /** The topic id each emulated mirror topic keeps (the source's), for the cluster as a source (KafkaSourceCluster.describeTopics). */
  async keptTopicIds(descriptions: TopicDescription[]): Promise<TopicDescription[]> {
    await this.ready()
    return descriptions.map((d) => {
      const t = this.topics.get(d.name)
      return t && t.brokerTopicId === d.topicId ? { ...d, topicId: t.topicId } : d
    })
  }

  /** Marks the mirror topics among broker descriptions read-only with their mirror, leaving the broker's offsets. */
  async flagMirrorTopics(descriptions: TopicDescription[]): Promise<TopicDescription[]> {
    await this.ready()
    return descriptions.map((d) => {
      const t = this.topics.get(d.name)
      return t && t.brokerTopicId === d.topicId ? { ...d, readOnly: t.readOnly, mirror: t.mirror === null ? null : { name: t.mirror } } : d
    })
  }

  async describeTopics(topics?: string[]): Promise<TopicDescription[]> {
    await this.ready()
    const described = await this.source.describeBrokerTopics(topics?.filter((t) => t !== STATE_TOPIC))
    // A topic deleted and created again by someone else is not the mirror topic any more.
    return described.filter((t) => t.name !== STATE_TOPIC).map((t) => (this.topics.get(t.name)?.brokerTopicId === t.topicId ? this.overlayTopic(t) : t))
  }

  async describePartition(tp: TopicPartition): Promise<PartitionDescription> {
    await this.ready()
    return this.overlayPartition(tp.topic, await this.source.describePartition(tp))
  }

  /**
   * A client sees no replica's own log end: an in-sync replica holds the leader's log up to the high watermark
   * (the emulation's log end), a replica the metadata lists offline is down, and one out of the ISR is behind by
   * an amount nobody tells a client (unknown). Declared deviation: ISR membership stands in for the end offsets.
   */
  async describeReplicas(tp: TopicPartition): Promise<{ leader: number; replicas: ReplicaLogState[] }> {
    const description = await this.describePartition(tp)
    const offline = new Set(this.source.metadata.cached(tp)?.offlineReplicas ?? [])
    const latestEpoch = await this.latestEpoch(tp)
    const replicas = description.replicas.map((brokerId): ReplicaLogState => {
      if (offline.has(brokerId)) return { brokerId, online: false, logEndOffset: null, latestEpoch: null }
      if (description.isr.includes(brokerId)) return { brokerId, online: true, logEndOffset: description.logEndOffset, latestEpoch }
      return { brokerId, online: true, logEndOffset: null, latestEpoch: null }
    })
    return { leader: description.leader, replicas }
  }

  /**
   * A topic this host does not mirror into (a failback's old source, before its rebuild): its log and leader
   * epochs are the broker's own, so the truncation plan asks the broker (OffsetForLeaderEpoch).
   */
  private async isForeign(topic: string): Promise<boolean> {
    await this.ready()
    return !this.topics.has(topic)
  }

  async latestEpoch(tp: TopicPartition): Promise<number> {
    if (await this.isForeign(tp.topic)) return (await this.source.endOffsetForEpoch(tp, (await this.source.describePartition(tp)).leaderEpoch)).leaderEpoch
    return new LeaderEpochCache((await this.partitionOf(tp)).epochs).latestEpoch()
  }

  async latestEpochs(tps: TopicPartition[]): Promise<number[]> {
    return Promise.all(tps.map((tp) => this.latestEpoch(tp)))
  }

  async endOffsetForEpoch(tp: TopicPartition, leaderEpoch: number): Promise<EpochEndOffset> {
    if (await this.isForeign(tp.topic)) return this.source.endOffsetForEpoch(tp, leaderEpoch)
    const e = await this.partitionOf(tp)
    return new LeaderEpochCache(e.epochs).endOffsetFor(leaderEpoch, e.logEndOffset)
  }

  async epochForOffset(tp: TopicPartition, offset: number): Promise<number> {
    return new LeaderEpochCache((await this.partitionOf(tp)).epochs).epochForOffset(offset)
  }

  /**
   * Records of orphaned transactions that retention removed before a recovery since `since` could carry them
   * (recoverOrphans): the source commits them, the destination never will. A switchover counts them as lost.
   */
  async recordsLostSince(tp: TopicPartition, since: number): Promise<number> {
    const e = await this.partitionOf(tp)
    return e.carryLosses.filter((loss) => loss.at >= since).reduce((sum, loss) => sum + loss.records, 0)
  }

  async openTransactions(tp: TopicPartition): Promise<OpenTransaction[]> {
    const e = await this.partitionOf(tp)
    return [...e.openTransactions].sort((a, b) => a.firstOffset - b.firstOffset).map(({ producerId, producerEpoch, firstOffset }) => ({ producerId, producerEpoch, firstOffset }))
  }

  async findControlRecord(tp: TopicPartition, type: 'MIRROR_PID_RESET' | 'ABORT' | 'COMMIT', fromOffset: number): Promise<number | null> {
    const e = await this.partitionOf(tp)
    if (type === 'MIRROR_PID_RESET') return e.pidResets.find((offset) => offset >= fromOffset) ?? null
    const translation = new OffsetTranslation(e.translation)
    const found = await scanControlRecord(this.source, tp, type, translation.toDestination(fromOffset))
    return found === null ? null : translation.toSource(found)
  }

  async listGroupOffsets(): Promise<GroupOffsets[]> {
    await this.ready()
    const groups = await this.source.listGroupOffsets()
    return groups.map((group) => ({
      ...group,
      offsets: group.offsets.map((o) => {
        const e = this.partitions.get(o)
        return e ? { ...o, offset: new OffsetTranslation(e.translation).toSource(o.offset) } : o
      }),
    }))
  }

  async readMirrorState(): Promise<Array<{ key: string; value: string | null }>> {
    await this.state.catchUp()
    return this.state.engineRecords()
  }

  /**
   * What is emulated, for the API's `emulation` notes: for a mirror into this cluster (no partition given), or
   * for one mirror partition (null when it is not one). Synchronous, from memory: the API reads it per request.
   */
  emulationNotes(tp?: TopicPartition): EmulationNotes | null {
    if (!tp) return emulationNotes({ authorizer: this.acls.authorizer })
    const partition = this.partitions.get(tp)
    return partition ? emulationNotes({ partition, authorizer: this.acls.authorizer, guard: this.acls.guardOf(tp.topic), readOnly: this.topics.get(tp.topic)?.readOnly ?? false }) : null
  }

  // ---- topics ----

  async createMirrorTopic(spec: { name: string; topicId: string; partitions: number; replicationFactor?: number; configs?: Record<string, string>; mirror: string }): Promise<TopicDescription> {
    await this.ready()
    const existing = await this.source.describeBrokerTopics()
    const taken = [...this.topics.values()].find((t) => t.topicId === spec.topicId && existing.some((d) => d.name === t.topic && d.topicId === t.brokerTopicId))
    if (taken) throw new ClusterError('CONFLICT', `topic id ${spec.topicId} is already mirrored into ${taken.topic}`, { details: { topic: taken.topic, topicId: spec.topicId } })
    const created = await this.admin.createTopic({ name: spec.name, partitions: spec.partitions, ...(spec.replicationFactor === undefined ? {} : { replicationFactor: spec.replicationFactor }), configs: spec.configs ?? {} })
    const topic: TopicEmulation = { topic: spec.name, topicId: spec.topicId, brokerTopicId: created.topicId, mirror: spec.mirror, readOnly: true }
    this.topics.set(spec.name, topic)
    const partitions = created.partitions.map((p) => emptyPartitionEmulation(spec.name, p.partition, p.highWatermark, p.leaderEpoch))
    for (const p of partitions) this.partitions.set(p, p)
    await this.persist([{ topic }, ...partitions.map((partition) => ({ partition }))])
    await this.acls.deny(spec.name)
    return this.overlayTopic(created)
  }

  /** Records the broker holds that the plan removes, or that this host did not mirror itself (MirrorHost.rebuildNeeded). */
  async rebuildNeeded(topic: string, plan: readonly RebuildPlanEntry[]): Promise<boolean> {
    await this.ready()
    const [real] = await this.source.describeBrokerTopics([topic])
    if (!real) return false
    const t = this.topics.get(topic)
    if (!t || t.brokerTopicId !== real.topicId) return real.partitions.some((p) => p.highWatermark > p.logStartOffset)
    return plan.some((entry) => entry.recordsToRemove > 0)
  }

  /**
   * Failback truncation by rebuild (MirrorHost.rebuildTopic): the topic is deleted and created again (same
   * partitions, replication factor and configs), then held as an empty read-only mirror topic starting at
   * offset 0; PREPARING mirrors it from the source's log start. The destination producers of its partitions
   * go with it (their sequence numbers belong to the deleted log). What each partition lost is noted.
   */
  async rebuildTopic(topic: string, spec: { topicId: string; mirror: string; plan: readonly RebuildPlanEntry[] }): Promise<void> {
    await this.ready()
    const [real] = await this.source.describeBrokerTopics([topic])
    if (!real) throw new ClusterError('NOT_FOUND', `topic ${JSON.stringify(topic)} does not exist`, { details: { topic } })
    await Promise.all(real.partitions.map(({ partition }) => this.producers.forget({ topic, partition }, { idempotent: true })))
    await this.acls.allow(topic)
    const created = await this.admin.recreateTopic(topic)
    await this.source.metadata.refresh([topic])
    const t: TopicEmulation = { topic, topicId: spec.topicId, brokerTopicId: created.topicId, mirror: spec.mirror, readOnly: true }
    this.topics.set(topic, t)
    const at = Date.now()
    const partitions = created.partitions.map((p) => {
      const planned = spec.plan.find((entry) => entry.partition === p.partition)
      const e = emptyPartitionEmulation(topic, p.partition, p.highWatermark, p.leaderEpoch)
      e.rebuild = { at, mirror: spec.mirror, truncateTo: planned?.truncateTo ?? null, recordsRemoved: planned?.recordsToRemove ?? 0 }
      this.partitions.set(e, e)
      return e
    })
    await this.persist([{ topic: t }, ...partitions.map((partition) => ({ partition }))])
    await this.acls.deny(topic)
  }

  async createMirrorPartitions(topic: string, totalCount: number): Promise<void> {
    const [current] = await this.source.describeBrokerTopics([topic])
    if (!current) throw new ClusterError('NOT_FOUND', `topic ${JSON.stringify(topic)} does not exist`, { details: { topic } })
    if (totalCount > current.partitions.length) await this.admin.createPartitions(topic, totalCount)
  }

  async alterTopicConfigs(topic: string, configs: Record<string, string>): Promise<void> {
    await this.admin.updateTopicConfigs(topic, { set: configs })
  }

  async setReadOnly(topic: string, readOnly: boolean, mirror: string | null): Promise<void> {
    await this.ready()
    let t = this.topics.get(topic)
    if (!t) {
      const [real] = await this.source.describeBrokerTopics([topic])
      if (!real) throw new ClusterError('NOT_FOUND', `topic ${JSON.stringify(topic)} does not exist`, { details: { topic } })
      t = { topic, topicId: real.topicId, brokerTopicId: real.topicId, mirror, readOnly }
    }
    const had = t.mirror
    t = { ...t, readOnly, mirror }
    this.topics.set(topic, t)
    await this.persist([{ topic: t, unit: had }])
    if (readOnly) await this.acls.deny(topic)
    else await this.acls.allow(topic)
  }

  // ---- the mirror path ----

  async appendMirroredBatches(tp: TopicPartition, records: Uint8Array): Promise<{ logEndOffset: number; highWatermark: number; lastBatchEpoch: number }> {
    return this.exclusive(tp, async () => appendMirrored(this.mirrorPath, tp, await this.writablePartition(tp, startsWithData(records)), records))
  }

  /** What the mirror path (kafka-mirror-append.ts) uses of this host, made once. */
  private readonly mirrorPath: MirrorPathHost = {
    atomic: () => this.atomic,
    commit: (e, holdsData) => this.commitPartition(e, holdsData),
    markerIn: (tp) => this.markerIn(tp),
    abandon: (tp) => this.producers.abandon(tp),
    source: () => this.source,
    producers: () => this.producers,
    brokerHighWatermark: (tp) => this.brokerHighWatermark(tp),
    brokerEndAtStart: (tp) => {
      const seen = this.endAtStart.get(tp)
      this.endAtStart.delete(tp)
      return seen === undefined ? this.brokerHighWatermark(tp) : Promise.resolve(seen)
    },
    leaderOf: (tp) => this.leaderOf(tp),
    checkUntouched: (e, brokerEnd) => this.checkUntouched(e, brokerEnd),
    persist: (e) => this.persist([{ partition: e }]),
  }

  async truncateTo(tp: TopicPartition, offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    return this.exclusive(tp, async () => {
      const e = await this.partitionOf(tp)
      if (offset >= e.logEndOffset) return { removedRecords: 0, logEndOffset: e.logEndOffset }
      throw new ClusterError('VALIDATION_FAILED', `${tp.topic}-${tp.partition} is on a Kafka cluster: a client cannot truncate it to ${offset} (log end ${e.logEndOffset}); failback rebuilds the topic instead`, {
        details: { ...tp, offset, logEndOffset: e.logEndOffset, emulation: 'rebuild' },
      })
    })
  }

  async truncateFullyAndStartAt(tp: TopicPartition, offset: number): Promise<{ removedRecords: number }> {
    return this.exclusive(tp, async () => {
      const e = await this.partitionOf(tp)
      if (e.logEndOffset !== e.logStartOffset && e.logEndOffset !== offset) {
        throw new ClusterError('VALIDATION_FAILED', `${tp.topic}-${tp.partition} is on a Kafka cluster and holds records: a client cannot empty it; failback rebuilds the topic instead`, {
          details: { ...tp, offset, emulation: 'rebuild' },
        })
      }
      // Nothing to remove: the log (re)starts at the source's offset, wherever the broker's end is.
      e.logStartOffset = offset
      e.logEndOffset = offset
      e.epochs = []
      const translation = new OffsetTranslation(e.translation)
      translation.record(offset, e.destinationLogEndOffset)
      e.translation = translation.entries()
      await this.persist([{ partition: e }])
      return { removedRecords: 0 }
    })
  }

  async deleteRecordsBefore(tp: TopicPartition, offset: number): Promise<void> {
    await this.exclusive(tp, async () => {
      const e = await this.partitionOf(tp)
      const target = Math.min(offset, e.logEndOffset)
      if (target <= e.logStartOffset) return
      const translation = new OffsetTranslation(e.translation)
      await this.admin.deleteRecords(tp, Math.min(translation.toDestination(target), e.destinationLogEndOffset), { bypassReadOnly: true })
      e.logStartOffset = target
      translation.pruneBelow(target)
      e.translation = translation.entries()
      await this.persist([{ partition: e }])
    })
  }

  async bumpLeaderEpoch(tp: TopicPartition, minimumEpoch: number): Promise<number> {
    return this.exclusive(tp, async () => {
      const e = await this.partitionOf(tp)
      if (minimumEpoch > e.leaderEpoch) {
        e.leaderEpoch = minimumEpoch
        await this.persist([{ partition: e }])
      }
      return e.leaderEpoch
    })
  }

  async appendAbortMarkers(tp: TopicPartition, producers: Array<{ producerId: number; producerEpoch: number }>): Promise<{ offsets: number[] }> {
    return this.exclusive(tp, async () => {
      const e = await this.writablePartition(tp)
      await this.checkUntouched(e)
      const translation = new OffsetTranslation(e.translation)
      const epochs = new LeaderEpochCache(e.epochs)
      const offsets: number[] = []
      try {
        for (const { producerId } of producers) {
          const expected = e.destinationLogEndOffset
          if (!(await this.producers.end(tp, producerId, 'ABORT', expected))) {
            // Its destination transaction was aborted when a restarted server took over and nothing of it was carried into a new one (recoverOrphans).
            noteOn(e, e.logEndOffset, `ABORT of source producer ${producerId}: the destination already aborted its transaction after a server restart; no marker written`)
            e.openTransactions = e.openTransactions.filter((t) => t.producerId !== producerId)
            continue
          }
          translation.record(e.logEndOffset, expected)
          offsets.push(e.logEndOffset)
          epochs.assign(e.leaderEpoch, e.logEndOffset)
          e.logEndOffset += 1
          e.destinationLogEndOffset = expected + 1
          e.openTransactions = e.openTransactions.filter((t) => t.producerId !== producerId)
        }
      } finally {
        e.translation = translation.entries()
        e.epochs = epochs.entries()
        await this.persist([{ partition: e }])
      }
      return { offsets }
    })
  }

  async appendMirrorPidReset(tp: TopicPartition): Promise<{ offset: number }> {
    return this.exclusive(tp, async () => {
      const e = await this.writablePartition(tp)
      // No client can write the record: it is kept in the mirror state, at the offset it would have taken.
      e.pidResets.push(e.logEndOffset)
      e.openTransactions = []
      await this.producers.forget(tp)
      await this.persist([{ partition: e }])
      return { offset: e.logEndOffset }
    })
  }

  async commitSyncedGroupOffset(groupId: string, tp: TopicPartition, offset: number): Promise<boolean> {
    const e = await this.partitionOf(tp)
    if (offset < 0 || offset > e.logEndOffset) {
      throw new ClusterError('OFFSET_OUT_OF_RANGE', `offset ${offset} is outside [${e.logStartOffset}, ${e.logEndOffset}] of ${tp.topic}-${tp.partition}`, { details: { logStartOffset: e.logStartOffset, logEndOffset: e.logEndOffset } })
    }
    const { groups } = await this.connection.admin.describeGroups([groupId])
    if ((groups[0]?.members.length ?? 0) > 0) return false
    await this.admin.commitOffsets(groupId, [{ ...tp, offset: new OffsetTranslation(e.translation).toDestination(offset) }])
    return true
  }

  async appendMirrorState(entries: MirrorStateAppendEntry[]): Promise<void> {
    if (entries.some((e) => e.key.startsWith(EMULATION_KEY_PREFIX))) {
      throw new ClusterError('VALIDATION_FAILED', `mirror state keys starting with ${EMULATION_KEY_PREFIX} belong to the Kafka destination emulation`)
    }
    await this.ready()
    await this.state.append(entries)
  }

  async close(): Promise<void> {
    await this.producers.close()
    await this.state.close()
  }
}

/** Whether a fetched record set starts with a data batch outside transactions (the partition's own transaction's kind). */
function startsWithData(records: Uint8Array): boolean {
  if (records.byteLength < BATCH_HEADER_SIZE) return false
  const first = readBatchHeader(viewOf(records))
  return !first.isControl && !first.isTransactional
}
