import 'server-only'
import { ClusterError } from '../errors'
import type { PartitionDescription, TopicPartition } from '../ports'
import { isInteger, type ClusterDirectory } from './cluster-directory'
import { partitionDirName } from './metadata'

export interface BrokerDescription {
  id: number
  alive: boolean
}

/** The brokers of the cluster and the faults operators and tests inject into them: stops, starts, elections. */
export class Brokers {
  constructor(private readonly directory: ClusterDirectory) {}

  list(): BrokerDescription[] {
    return this.directory.metadata.brokerIds.map((id) => ({ id, alive: this.directory.alive.has(id) }))
  }

  private requireBroker(brokerId: unknown): number {
    if (typeof brokerId !== 'number' || !this.directory.metadata.brokerIds.includes(brokerId)) {
      throw new ClusterError('NOT_FOUND', `cluster ${this.directory.name} has no broker ${JSON.stringify(brokerId)}`)
    }
    return brokerId
  }

  /**
   * Stops a broker as a crash would look to its peers: its replica logs close, partitions it led elect a new
   * leader from the ISR at once (or go offline), and it stays in the ISR of the others until the lag time
   * passes.
   */
  async stopBroker(brokerId: number): Promise<void> {
    const { directory } = this
    directory.ensureOpen()
    this.requireBroker(brokerId)
    await directory.brokerLock.run(async () => {
      if (!directory.alive.has(brokerId)) throw new ClusterError('CONFLICT', `broker ${brokerId} of ${directory.name} is already stopped`)
      directory.alive.delete(brokerId)
      await Promise.all(
        directory
          .allPartitions()
          .filter((p) => p.metadata.replicas.includes(brokerId))
          .map((p) => p.onBrokerStopped(brokerId)),
      )
    })
  }

  /**
   * Starts a stopped broker: its logs are recovered, offline partitions it can lead get it as leader, and as a
   * follower it truncates any divergent tail (KIP-101) and catches up, rejoining the ISR once caught up. A log
   * that cannot be opened leaves that one replica down (Kafka's offline log directory); the error is reported.
   */
  async startBroker(brokerId: number): Promise<void> {
    const { directory } = this
    directory.ensureOpen()
    this.requireBroker(brokerId)
    await directory.brokerLock.run(async () => {
      if (directory.alive.has(brokerId)) throw new ClusterError('CONFLICT', `broker ${brokerId} of ${directory.name} is already running`)
      directory.alive.add(brokerId)
      const hosted = directory.allPartitions().filter((p) => p.metadata.replicas.includes(brokerId))
      const outcomes = await Promise.allSettled(hosted.map((p) => p.onBrokerStarted(brokerId, () => directory.openReplicaLog(p.topicMetadata, p.partition, brokerId))))
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
      if (failed) throw failed.reason
    })
  }

  /** Fault injection and preferred-leader election; see ReplicatedPartition.electLeader. */
  async electLeader(topicPartition: TopicPartition, brokerId: number, options: { unclean?: boolean } = {}): Promise<PartitionDescription> {
    this.directory.ensureOpen()
    const partition = this.directory.requirePartition(topicPartition)
    this.requireBroker(brokerId)
    await partition.electLeader(brokerId, options)
    return this.directory.describePartition(partition)
  }

  /**
   * Fault injection: an unclean election that loses the last `lostRecords` offsets of a partition. The first
   * alive follower is taken as having fallen behind by that much and is elected uncleanly (see
   * ReplicatedPartition.electLaggingReplicaUncleanly); the cut is rounded down to a batch boundary.
   */
  async electLaggingReplicaUncleanly(
    topicPartition: TopicPartition,
    lostRecords: number,
  ): Promise<{ leader: number; previousLeader: number; logEndOffset: number; previousLogEndOffset: number }> {
    const { directory } = this
    directory.ensureReachable()
    const partition = directory.requirePartition(topicPartition)
    if (!isInteger(lostRecords, 1)) throw new ClusterError('VALIDATION_FAILED', `lostRecords must be a positive integer, got ${String(lostRecords)}`)
    const label = partitionDirName(topicPartition.topic, topicPartition.partition)
    const previousLeader = partition.metadata.leader
    const follower = partition.metadata.replicas.find((r) => r !== previousLeader && directory.alive.has(r))
    if (follower === undefined) {
      throw new ClusterError('CONFLICT', `${label} of ${directory.name} has no alive follower to elect`, { details: { ...topicPartition } })
    }
    const { logEndOffset: previousLogEndOffset, logStartOffset } = partition.offsets()
    if (previousLogEndOffset - logStartOffset < lostRecords) {
      throw new ClusterError('CONFLICT', `${label} of ${directory.name} holds fewer than ${lostRecords} records to lose`, { details: { ...topicPartition } })
    }
    const logEndOffset = await partition.electLaggingReplicaUncleanly(follower, previousLogEndOffset - lostRecords)
    return { leader: follower, previousLeader, logEndOffset, previousLogEndOffset }
  }
}
