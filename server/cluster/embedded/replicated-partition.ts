import 'server-only'
// Over 400 lines on purpose: one partition's replicas as Kafka's Partition class (leader, ISR, high watermark, truncation for mirrors), all under one partition lock; the follower fetcher and the acks=all waiters (commit-waiters.ts) are files of their own.
import { isrHighWatermark, joiningReplicas, outOfSyncReplicas, type FollowerView } from '@/lib/cluster/isr'
import { chooseLeader } from '@/lib/cluster/leader-election'
import { CommitWaiters } from './commit-waiters'
import { forEveryReplicaLog } from './replica-logs'
import { splitBatches } from '@/lib/log/record-batch'
import type { ControlType, EpochEndOffset, EpochEntry } from '@/lib/log/types'
import type { AppendResult, FollowerAppendResult, PartitionLogApi } from '@/server/storage/types'
import { ClusterError, toClusterError } from '../errors'
import type { Clock } from './clock'
import { booleanConfig, integerConfig, type EmbeddedClusterConfig } from './config'
import { endOffsetForEpochEntries, withElectionEpoch } from './epochs'
import { replicateFollower, truncateFollower } from './follower-fetcher'
import type { PartitionMetadata, TopicMetadata } from './metadata'
import { Mutex } from './mutex'
import type { ElectionOptions, LeaderAppend, PartitionOffsets } from './partition-types'
import { TurnBudget } from '@/server/util/cooperative'

export type { ElectionOptions, LeaderAppend, PartitionOffsets } from './partition-types'

/**
 * One partition with its replicas: the leader's side of Kafka's `Partition` plus the follower fetchers,
 * collapsed into one object because every replica lives in this process.
 *
 * - Replicas on alive brokers have an open log; a stopped broker's log is closed and its follower state frozen.
 * - Followers copy whole batches from the leader (`appendAsFollower`), after checking their history against
 *   the leader's epochs (KIP-101/KIP-320) and truncating a divergent tail: `follower-fetcher.ts`, whose
 *   iteration is maybeTruncate() then maybeFetch() as in Kafka's fetcher threads.
 * - Elections, clean and unclean, are `chooseLeader` (lib/cluster/leader-election.ts).
 * - ISR: a follower that has not caught up with the leader's end for `replica.lag.time.max.ms` leaves it
 *   (checked on tick); a follower at or past the high watermark and the leader's epoch start rejoins.
 * - High watermark = the smallest log end offset over the ISR, as far as the leader knows it; after a
 *   leadership change it waits until every ISR follower has fetched from the new leader.
 * - Every leader/ISR/epoch change is made durable in the cluster metadata before it takes effect.
 *
 * Every public method that changes replicas takes the partition lock; reads do not.
 */

export interface PartitionHost {
  readonly clock: Clock
  readonly config: EmbeddedClusterConfig
  /** Makes the cluster metadata (leader, ISR, epoch) durable. */
  persistMetadata(): Promise<void>
  /** Opens a replica's log, also for a stopped broker (used to truncate it in place). */
  openReplicaLog(topic: string, partition: number, brokerId: number): Promise<PartitionLogApi>
  /** The high watermark or the leader moved: a fetch waiting on this partition has something to answer. */
  fetchableChanged(partition: ReplicatedPartition): void
}

/**
 * One budget for the appends of every embedded cluster in this process (they share its event loop): a burst of
 * produce calls or of a mirror's destination appends started in one turn runs as one chain of microtasks, which
 * held the server's event loop for 30–90 ms of CPU at 2,000 records a second over 2,000 partitions (the drill
 * bench's window without a drill, session 27). Past the budget an append waits for the next turn, inside its
 * partition's lock, so a partition's appends keep their order.
 */
const APPEND_TURNS = new TurnBudget(4)

export class ReplicatedPartition {
  readonly lock = new Mutex()
  private readonly logs = new Map<number, PartitionLogApi>()
  private readonly followers = new Map<number, FollowerView>()
  /** acks=all appends waiting for the high watermark (commit-waiters.ts). */
  private readonly waiters = new CommitWaiters()
  private readonly replicationErrors = new Map<number, unknown>()
  /** Bumped on every leadership change: appends waiting for the old leader's high watermark fail. */
  private generation = 0
  /** Leader log end offset when the current leader took over (Kafka's leaderEpochStartOffset). */
  private leaderEpochStartOffset = 0
  /** The current epoch as Kafka's makeLeader records it in the epoch cache, until a batch of it exists. */
  private electionEpoch: EpochEntry | null = null
  private lastKnown: PartitionOffsets = { logStartOffset: 0, highWatermark: 0, lastStableOffset: 0, logEndOffset: 0 }
  private lastRetentionCheckMs: number

  constructor(
    private readonly host: PartitionHost,
    readonly topicMetadata: TopicMetadata,
    readonly metadata: PartitionMetadata,
  ) {
    this.lastRetentionCheckMs = host.clock.now()
  }

  get topic(): string {
    return this.topicMetadata.name
  }

  get partition(): number {
    return this.metadata.partition
  }

  private get label(): string {
    return `${this.topic}-${this.partition}`
  }

  // REPLICA LOGS

  hasReplicaLog(brokerId: number): boolean {
    return this.logs.has(brokerId)
  }

  replicaLog(brokerId: number): PartitionLogApi | undefined {
    return this.logs.get(brokerId)
  }

  /** The open log of the leader, or LEADER_NOT_AVAILABLE. */
  leaderLog(): PartitionLogApi {
    const log = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
    if (!log) throw new ClusterError('LEADER_NOT_AVAILABLE', `partition ${this.label} has no leader`, { details: { topic: this.topic, partition: this.partition } })
    return log
  }

  offsets(): PartitionOffsets {
    const log = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
    if (log) {
      this.lastKnown = {
        logStartOffset: log.logStartOffset,
        highWatermark: log.highWatermark,
        lastStableOffset: log.lastStableOffset,
        logEndOffset: log.logEndOffset,
      }
    }
    return { ...this.lastKnown }
  }

  /** Closes every open replica log (cluster close, topic deletion). */
  async closeAll(): Promise<void> {
    this.waiters.rejectAll(new ClusterError('NOT_LEADER_OR_FOLLOWER', `partition ${this.label} is closing`))
    const logs = [...this.logs.values()]
    this.logs.clear()
    await Promise.all(logs.map((log) => log.close()))
  }

  /** closeAll for a partition whose replica directories are removed next (topic deletion). */
  async closeForDeletion(): Promise<void> {
    this.waiters.rejectAll(new ClusterError('NOT_FOUND', `partition ${this.label} was deleted`))
    const logs = [...this.logs.values()]
    this.logs.clear()
    await Promise.all(logs.map((log) => log.closeForDeletion()))
  }

  // EPOCHS

  /** KIP-101 lookup on the leader, including the epoch the leader was elected in (see `withElectionEpoch`). */
  leaderEndOffsetForEpoch(epoch: number): EpochEndOffset {
    const log = this.leaderLog()
    return endOffsetForEpochEntries(withElectionEpoch(log.epochEntries(), this.electionEpoch), epoch, log.logEndOffset)
  }

  /** A partition being mirrored keeps only the epochs of mirrored batches in its cache (KIP-1279 §3.1). */
  private recordsElectionEpochs(): boolean {
    return !this.topicMetadata.readOnly
  }

  // LEADERSHIP

  /**
   * Starts the current leader's term in memory (no metadata change): followers must fetch again before they
   * count for the high watermark, pending appends of the previous term fail.
   */
  private becomeLeader(): void {
    this.generation++
    this.waiters.rejectAll(new ClusterError('NOT_LEADER_OR_FOLLOWER', `leadership of ${this.label} moved`))
    const log = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
    const now = this.host.clock.now()
    this.followers.clear()
    if (!log) {
      this.electionEpoch = null
      return
    }
    this.leaderEpochStartOffset = log.logEndOffset
    this.electionEpoch =
      this.recordsElectionEpochs() && log.latestEpoch() < this.metadata.leaderEpoch ? { epoch: this.metadata.leaderEpoch, startOffset: log.logEndOffset } : null
    for (const replica of this.metadata.replicas) {
      if (replica === this.metadata.leader) continue
      this.followers.set(replica, { logEndOffset: -1, lastCaughtUpTimeMs: this.metadata.isr.includes(replica) ? now : 0 })
    }
  }

  /** Called once with the replicas' open logs (cluster open, new partition): resumes the persisted leadership, or elects one. */
  async resume(logs: ReadonlyArray<readonly [number, PartitionLogApi]>): Promise<void> {
    await this.lock.run(async () => {
      for (const [brokerId, log] of logs) this.logs.set(brokerId, log)
      if (this.metadata.leader >= 0 && this.logs.has(this.metadata.leader)) this.becomeLeader()
      else await this.maybeElectLocked()
      await this.replicateLocked()
    })
  }

  private uncleanElectionEnabled(): boolean {
    return booleanConfig(this.topicMetadata.configs, 'unclean.leader.election.enable')
  }

  private async changeLeaderLocked(leader: number, isr: number[]): Promise<void> {
    this.metadata.leader = leader
    this.metadata.isr = isr
    this.metadata.leaderEpoch += 1
    await this.host.persistMetadata()
    this.host.fetchableChanged(this)
    this.becomeLeader()
  }

  /** The election among the replicas with an open log (see `chooseLeader`), from `isr`. */
  private chooseLeaderFrom(isr: readonly number[]) {
    return chooseLeader({ replicas: this.metadata.replicas, isr, isAlive: (replica) => this.logs.has(replica), uncleanElectionEnabled: this.uncleanElectionEnabled() })
  }

  /** Elects a leader for a partition without one; an offline partition stays as it is. */
  private async maybeElectLocked(): Promise<void> {
    const choice = this.chooseLeaderFrom(this.metadata.isr)
    if (choice.kind !== 'offline') await this.changeLeaderLocked(choice.leader, [...choice.isr])
  }

  async onBrokerStopped(brokerId: number): Promise<void> {
    await this.lock.run(async () => {
      const log = this.logs.get(brokerId)
      if (!log) return
      this.logs.delete(brokerId)
      try {
        await log.close()
      } catch {
        // A broker that stops keeps whatever its disk holds; recovery on the next open repairs the tail.
      }
      if (this.metadata.leader !== brokerId) return
      // The stopped broker's log is closed already, so it is not alive for the election.
      const choice = this.chooseLeaderFrom(this.metadata.isr.filter((r) => r !== brokerId))
      // Offline: the stopped leader stays the last ISR member, so that it can lead again cleanly.
      if (choice.kind === 'offline') await this.changeLeaderLocked(-1, this.metadata.isr)
      else await this.changeLeaderLocked(choice.leader, [...choice.isr])
      await this.replicateLocked()
    })
  }

  /** Opens the broker's replica under the partition lock, so it never races a truncation of the closed log. */
  async onBrokerStarted(brokerId: number, openLog: () => Promise<PartitionLogApi>): Promise<void> {
    await this.lock.run(async () => {
      if (this.logs.has(brokerId)) return
      this.logs.set(brokerId, await openLog())
      if (this.metadata.leader < 0) await this.maybeElectLocked()
      else if (brokerId !== this.metadata.leader) {
        const state = this.followers.get(brokerId)
        if (state) state.logEndOffset = -1
      }
      await this.replicateLocked()
    })
  }

  /**
   * Moves leadership to `brokerId` (fault injection and preferred-leader election). Clean: the broker must be
   * alive and in the ISR. Unclean: any alive replica; the ISR becomes that replica alone.
   */
  async electLeader(brokerId: number, options: ElectionOptions = {}): Promise<void> {
    await this.lock.run(async () => {
      if (!this.metadata.replicas.includes(brokerId)) {
        throw new ClusterError('VALIDATION_FAILED', `broker ${brokerId} holds no replica of ${this.label}`)
      }
      if (!this.logs.has(brokerId)) throw new ClusterError('VALIDATION_FAILED', `broker ${brokerId} is stopped`)
      if (options.unclean) {
        await this.changeLeaderLocked(brokerId, [brokerId])
      } else {
        if (!this.metadata.isr.includes(brokerId)) {
          throw new ClusterError('VALIDATION_FAILED', `broker ${brokerId} is not in the ISR of ${this.label}; only an unclean election can pick it`)
        }
        if (this.metadata.leader === brokerId) return
        await this.changeLeaderLocked(brokerId, this.metadata.isr)
      }
      await this.replicateLocked()
    })
  }

  /**
   * Fault injection: the unclean election Kafka makes when only an out-of-sync replica is left. `brokerId`'s
   * replica is cut back to `truncateTo` (whole batches), as a follower that stopped fetching there would hold
   * it, and elected with an ISR of itself alone. What the old leader held beyond that exists in no other
   * replica: the old leader truncates it when it next fetches (KIP-101), and a mirror that already copied it
   * sees its history diverge. Returns the new leader's log end offset.
   */
  async electLaggingReplicaUncleanly(brokerId: number, truncateTo: number): Promise<number> {
    return this.lock.run(async () => {
      const follower = this.logs.get(brokerId)
      if (!this.metadata.replicas.includes(brokerId)) throw new ClusterError('VALIDATION_FAILED', `broker ${brokerId} holds no replica of ${this.label}`)
      if (!follower) throw new ClusterError('VALIDATION_FAILED', `broker ${brokerId} is stopped`)
      if (brokerId === this.metadata.leader) throw new ClusterError('VALIDATION_FAILED', `broker ${brokerId} already leads ${this.label}`)
      if (truncateTo < follower.logEndOffset) await truncateFollower(follower, truncateTo)
      await this.changeLeaderLocked(brokerId, [brokerId])
      await this.replicateLocked()
      return follower.logEndOffset
    })
  }

  /**
   * Raises the leader epoch to at least `minimumEpoch` (never lowers it). A normal topic records the new epoch
   * at the leader's end, as a leadership change would; a partition being mirrored does not (KIP-1279 §3.1).
   */
  async bumpLeaderEpoch(minimumEpoch: number): Promise<number> {
    return this.lock.run(async () => {
      if (this.metadata.leaderEpoch >= minimumEpoch) return this.metadata.leaderEpoch
      this.metadata.leaderEpoch = minimumEpoch
      await this.host.persistMetadata()
      const log = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
      if (log && this.recordsElectionEpochs() && log.latestEpoch() < minimumEpoch) {
        this.electionEpoch = { epoch: minimumEpoch, startOffset: log.logEndOffset }
      }
      return this.metadata.leaderEpoch
    })
  }

  // APPENDS (leader)

  private checkWritable(acks: 'all' | 'leader'): PartitionLogApi {
    const log = this.leaderLog()
    if (acks === 'all') {
      const minIsr = integerConfig(this.topicMetadata.configs, 'min.insync.replicas', 1)
      if (this.metadata.isr.length < minIsr) {
        throw new ClusterError('NOT_ENOUGH_REPLICAS', `partition ${this.label} has ${this.metadata.isr.length} in-sync replicas, min.insync.replicas is ${minIsr}`)
      }
    }
    return log
  }

  /**
   * Runs `append` on the leader's log under the partition lock, then replicates to the alive followers and
   * advances the high watermark. `append` gets the current leader epoch; producers assign their sequence
   * numbers inside it, so concurrent appends of one producer reach the log in sequence order.
   */
  async appendOnLeader<T extends { lastOffset: number }>(acks: 'all' | 'leader', append: (log: PartitionLogApi, leaderEpoch: number) => Promise<T>): Promise<LeaderAppend<T>> {
    return this.lock.run(async () => {
      for (let turn = APPEND_TURNS.maybeYield(); turn; turn = APPEND_TURNS.maybeYield()) await turn
      const log = this.checkWritable(acks)
      let result: T
      try {
        result = await append(log, this.metadata.leaderEpoch)
      } catch (error) {
        throw toClusterError(error)
      }
      await this.replicateLocked()
      return { result, endOffset: result.lastOffset + 1, generation: this.generation }
    })
  }

  appendControl(type: ControlType, options: { producerId?: number; producerEpoch?: number; coordinatorEpoch?: number }, acks: 'all' | 'leader' = 'all'): Promise<LeaderAppend<AppendResult>> {
    return this.appendOnLeader(acks, (log, leaderEpoch) => log.appendControl(type, { coordinatorEpoch: 0, ...options, leaderEpoch }))
  }

  /**
   * Appends batches fetched from another cluster exactly as they are (follower-style on the leader). A batch
   * whose epoch is above the partition's leader epoch is refused before anything is written: the destination
   * must never hold an epoch newer than its own (KIP-1279 §3.2).
   */
  appendVerbatim(records: Uint8Array): Promise<LeaderAppend<FollowerAppendResult>> {
    return this.appendOnLeader('all', async (log) => {
      const batches = splitBatches(records)
      const tooNew = batches.find((b) => b.header.partitionLeaderEpoch > this.metadata.leaderEpoch)
      if (tooNew) {
        throw new ClusterError(
          'MIRROR_LEADER_EPOCH_EXCEEDED',
          `batch at offset ${tooNew.header.baseOffset} has leader epoch ${tooNew.header.partitionLeaderEpoch}, above ${this.label}'s leader epoch ${this.metadata.leaderEpoch}`,
          { details: { batchEpoch: tooNew.header.partitionLeaderEpoch, leaderEpoch: this.metadata.leaderEpoch } },
        )
      }
      const first = batches[0]
      if (first && first.header.baseOffset < log.logEndOffset) {
        throw new ClusterError('OFFSET_OUT_OF_RANGE', `batch base offset ${first.header.baseOffset} is below the log end offset ${log.logEndOffset} of ${this.label}`)
      }
      return log.appendAsFollower(records, { allowOffsetGaps: true })
    })
  }

  /**
   * Resolves once the high watermark reaches `append.endOffset` (Kafka's acks=all). Fails with
   * NOT_LEADER_OR_FOLLOWER when leadership moved meanwhile, and REQUEST_TIMED_OUT at `deadline` (the request's
   * arrival plus `request.timeout.ms`, checked on tick).
   */
  awaitCommitted(append: { endOffset: number; generation: number }, deadline: number): Promise<void> {
    if (append.generation !== this.generation) {
      return Promise.reject(new ClusterError('NOT_LEADER_OR_FOLLOWER', `leadership of ${this.label} moved before the append was committed`))
    }
    const log = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
    if (log && log.highWatermark >= append.endOffset) return Promise.resolve()
    if (deadline <= this.host.clock.now()) return Promise.reject(this.timeoutError())
    return this.waiters.wait(append.endOffset, append.generation, deadline)
  }

  /** The deadline of a request arriving now. */
  requestDeadline(): number {
    return this.host.clock.now() + this.host.config.requestTimeoutMs
  }

  private timeoutError(): ClusterError {
    return new ClusterError('REQUEST_TIMED_OUT', `the high watermark of ${this.label} did not reach the append within request.timeout.ms`)
  }

  private resolveWaiters(): void {
    const log = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
    if (log) this.waiters.resolveUpTo(log.highWatermark, this.generation)
  }

  // REPLICATION

  /** One replication step: followers catch up, ISR grows, high watermark advances. */
  async replicate(): Promise<void> {
    await this.lock.run(() => this.replicateLocked())
  }

  /**
   * True when tick() would change nothing: one replica that leads, is at its high watermark, has no waiting
   * appends and no retention check due. A cluster of thousands of such partitions skips their ticks (and
   * the lock and promises each costs).
   */
  idleForTick(): boolean {
    if (this.metadata.replicas.length !== 1 || this.metadata.leader < 0 || !this.waiters.isEmpty()) return false
    if (this.host.clock.now() - this.lastRetentionCheckMs >= this.host.config.retentionCheckIntervalMs) return false
    const log = this.logs.get(this.metadata.leader)
    return log !== undefined && log.highWatermark === log.logEndOffset
  }

  /** The periodic step: election if offline, retention, replication, ISR shrink by lag time, expiry of waiting appends. */
  async tick(): Promise<void> {
    await this.lock.run(async () => {
      if (this.metadata.leader < 0) await this.maybeElectLocked()
      await this.maybeApplyRetentionLocked()
      await this.replicateLocked()
      await this.maybeShrinkIsrLocked()
      const now = this.host.clock.now()
      // An Error captures a stack: build one only when a waiter has expired, not on every tick of every partition.
      this.waiters.expire(now, () => this.timeoutError())
    })
  }

  /** Retention runs on the leader; followers follow its log start offset when they replicate. */
  private async maybeApplyRetentionLocked(): Promise<void> {
    const now = this.host.clock.now()
    const leader = this.metadata.leader >= 0 ? this.logs.get(this.metadata.leader) : undefined
    if (!leader || now - this.lastRetentionCheckMs < this.host.config.retentionCheckIntervalMs) return
    this.lastRetentionCheckMs = now
    try {
      await leader.applyRetention()
    } catch (error) {
      this.replicationErrors.set(this.metadata.leader, toClusterError(error))
    }
  }

  private async replicateLocked(): Promise<void> {
    const leader = this.metadata.leader
    if (leader < 0 || !this.logs.has(leader)) return
    const followers = this.metadata.replicas.filter((r) => r !== leader && this.logs.has(r))
    await Promise.all(followers.map((r) => this.replicateFollowerLocked(r)))
    await this.maybeExpandIsrLocked()
    this.maybeIncrementHighWatermark()
  }

  /**
   * One follower's replication step (follower-fetcher.ts: maybeTruncate, then maybeFetch), then what the
   * leader learns from it: the follower's end for the high watermark and the ISR, and the follower's own high
   * watermark and log start.
   */
  private async replicateFollowerLocked(brokerId: number): Promise<void> {
    const leaderLog = this.leaderLog()
    const follower = this.logs.get(brokerId)
    if (!follower) return
    try {
      await replicateFollower(follower, {
        log: leaderLog,
        endOffsetForEpoch: (epoch) => this.leaderEndOffsetForEpoch(epoch),
        fetchMaxBytes: this.host.config.replicaFetchMaxBytes,
      })
    } catch (error) {
      // A follower that cannot replicate stays behind (and leaves the ISR after the lag time), like a failed
      // partition in Kafka's fetcher thread; the leader's appends are not affected.
      this.replicationErrors.set(brokerId, toClusterError(error))
      return
    }
    this.replicationErrors.delete(brokerId)
    const state = this.followers.get(brokerId) ?? { logEndOffset: -1, lastCaughtUpTimeMs: 0 }
    this.followers.set(brokerId, state)
    state.logEndOffset = follower.logEndOffset
    if (follower.logEndOffset >= leaderLog.logEndOffset) state.lastCaughtUpTimeMs = this.host.clock.now()
    follower.updateHighWatermark(Math.min(leaderLog.highWatermark, follower.logEndOffset))
    const target = Math.min(leaderLog.logStartOffset, follower.highWatermark)
    if (target > follower.logStartOffset) {
      try {
        await follower.deleteRecordsBefore(target)
      } catch (error) {
        this.replicationErrors.set(brokerId, toClusterError(error))
      }
    }
  }

  private async maybeShrinkIsrLocked(): Promise<void> {
    const leader = this.metadata.leader
    if (leader < 0 || !this.logs.has(leader)) return
    const outOfSync = outOfSyncReplicas({ isr: this.metadata.isr, leader, followers: this.followers, now: this.host.clock.now(), replicaLagTimeMaxMs: this.host.config.replicaLagTimeMaxMs })
    if (outOfSync.length === 0) return
    // Durable before the smaller ISR lets the high watermark move past the removed replicas.
    this.metadata.isr = this.metadata.isr.filter((r) => !outOfSync.includes(r))
    await this.host.persistMetadata()
    this.maybeIncrementHighWatermark()
  }

  private async maybeExpandIsrLocked(): Promise<void> {
    const leader = this.metadata.leader
    const leaderLog = leader >= 0 ? this.logs.get(leader) : undefined
    if (!leaderLog) return
    const joining = joiningReplicas({
      replicas: this.metadata.replicas.filter((r) => this.logs.has(r)),
      isr: this.metadata.isr,
      leader,
      followers: this.followers,
      highWatermark: leaderLog.highWatermark,
      leaderEpochStartOffset: this.leaderEpochStartOffset,
    })
    if (joining.length === 0) return
    this.metadata.isr = this.metadata.replicas.filter((r) => this.metadata.isr.includes(r) || joining.includes(r))
    await this.host.persistMetadata()
  }

  private maybeIncrementHighWatermark(): void {
    const leader = this.metadata.leader
    const leaderLog = leader >= 0 ? this.logs.get(leader) : undefined
    if (!leaderLog) return
    const highWatermark = isrHighWatermark({ isr: this.metadata.isr, leader, leaderLogEndOffset: leaderLog.logEndOffset, followers: this.followers })
    if (highWatermark === null) return
    if (highWatermark > leaderLog.highWatermark) {
      leaderLog.updateHighWatermark(highWatermark)
      for (const [brokerId, log] of this.logs) {
        if (brokerId !== leader) log.updateHighWatermark(Math.min(leaderLog.highWatermark, log.logEndOffset))
      }
      this.host.fetchableChanged(this)
    }
    this.resolveWaiters()
  }

  // TRUNCATION AND LOG START (mirror powers)

  /** Runs `change` on every replica's log, opening a stopped broker's log for the duration. */
  private forEveryReplica<T>(change: (log: PartitionLogApi) => Promise<T>): Promise<Map<number, T>> {
    return forEveryReplicaLog(this.metadata.replicas, this.logs, (brokerId) => this.host.openReplicaLog(this.topic, this.partition, brokerId), change)
  }

  private afterTruncation(): void {
    const leaderLog = this.leaderLog()
    const end = leaderLog.logEndOffset
    if (this.electionEpoch && this.electionEpoch.startOffset > end) this.electionEpoch = null
    this.leaderEpochStartOffset = Math.min(this.leaderEpochStartOffset, end)
    for (const [brokerId, state] of this.followers) {
      const log = this.logs.get(brokerId)
      state.logEndOffset = log ? log.logEndOffset : Math.min(state.logEndOffset, end)
    }
    this.waiters.rejectAbove(end, new ClusterError('LOG_TRUNCATED', `the log of ${this.label} was truncated below the append`))
  }

  /** Truncates the leader and every replica (stopped brokers included) to `offset`, whole batches. */
  async truncateAllReplicas(offset: number): Promise<{ removedRecords: number; logEndOffset: number }> {
    return this.lock.run(async () => {
      const leader = this.leaderLog()
      if (offset < leader.logStartOffset) {
        throw new ClusterError('OFFSET_OUT_OF_RANGE', `cannot truncate ${this.label} to ${offset}, below its log start offset ${leader.logStartOffset}`)
      }
      try {
        const results = await this.forEveryReplica((log) => (offset >= log.logEndOffset ? Promise.resolve({ removedRecords: 0, logEndOffset: log.logEndOffset }) : log.truncateTo(offset)))
        this.afterTruncation()
        const own = results.get(this.metadata.leader)!
        return { removedRecords: own.removedRecords, logEndOffset: leader.logEndOffset }
      } catch (error) {
        throw toClusterError(error)
      }
    })
  }

  /** Empties every replica and restarts the partition at `offset`. */
  async truncateFullyAllReplicas(offset: number): Promise<{ removedRecords: number }> {
    return this.lock.run(async () => {
      this.leaderLog()
      try {
        const results = await this.forEveryReplica((log) => log.truncateFullyAndStartAt(offset))
        this.afterTruncation()
        this.leaderEpochStartOffset = offset
        return { removedRecords: results.get(this.metadata.leader)!.removedRecords }
      } catch (error) {
        throw toClusterError(error)
      }
    })
  }

  /** Kafka DeleteRecords: the leader's log start moves (at most to the high watermark); followers follow. */
  async deleteRecordsBefore(offset: number): Promise<number> {
    return this.lock.run(async () => {
      const leader = this.leaderLog()
      if (offset > leader.highWatermark) {
        throw new ClusterError('OFFSET_OUT_OF_RANGE', `cannot delete records of ${this.label} before ${offset}: the high watermark is ${leader.highWatermark}`, {
          details: { highWatermark: leader.highWatermark },
        })
      }
      if (offset <= leader.logStartOffset) return leader.logStartOffset
      try {
        const logStartOffset = await leader.deleteRecordsBefore(offset)
        await this.replicateLocked()
        return logStartOffset
      } catch (error) {
        throw toClusterError(error)
      }
    })
  }

  // INSPECTION (tests, UI)

  /** @internal visible for testing: the leader's knowledge of each follower. */
  followerStates(): Array<{ brokerId: number; logEndOffset: number; lastCaughtUpTimeMs: number; replicationError: unknown }> {
    return [...this.followers].map(([brokerId, s]) => ({ brokerId, ...s, replicationError: this.replicationErrors.get(brokerId) ?? null }))
  }
}
