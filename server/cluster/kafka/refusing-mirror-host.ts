import 'server-only'
import { ClusterError } from '../errors'
import type { MirrorHost, SourceCluster } from '../ports'

/**
 * The MirrorHost side of a Kafka cluster until the destination emulation (DESIGN.md §5: produce in source
 * order, one destination transaction per source producer, a state topic, ACL-enforced read-only, failback by
 * rebuild) is built. What a destination must answer about itself is answered truthfully — its id, its topics,
 * its groups, and an empty mirror state (no mirror of this engine lives on it); every power that would make it a
 * destination is refused with VALIDATION_FAILED naming the reason, so a mirror into Kafka fails at creation,
 * before anything is written.
 */
export function refusingMirrorHost(name: string, source: SourceCluster): MirrorHost {
  const refuse = (): never => {
    throw new ClusterError('VALIDATION_FAILED', `cluster ${name} is a Kafka cluster: it can be a mirror's source, not its destination (the Kafka destination emulation is not available yet)`, {
      details: { cluster: name, kind: 'kafka' },
    })
  }
  const refuseAsync = async (): Promise<never> => refuse()
  return {
    name,
    clusterId: () => source.clusterId(),
    describeTopics: (topics) => source.describeTopics(topics),
    describePartition: (tp) => source.describePartition(tp),
    endOffsetForEpoch: (tp, epoch) => source.endOffsetForEpoch(tp, epoch),
    listGroupOffsets: () => source.listGroupOffsets(),
    readMirrorState: async () => [],
    createMirrorTopic: refuseAsync,
    createMirrorPartitions: refuseAsync,
    alterTopicConfigs: refuseAsync,
    appendMirroredBatches: refuseAsync,
    truncateTo: refuseAsync,
    truncateFullyAndStartAt: refuseAsync,
    deleteRecordsBefore: refuseAsync,
    bumpLeaderEpoch: refuseAsync,
    latestEpoch: refuseAsync,
    latestEpochs: refuseAsync,
    epochForOffset: refuseAsync,
    findControlRecord: refuseAsync,
    openTransactions: refuseAsync,
    appendAbortMarkers: refuseAsync,
    appendMirrorPidReset: refuseAsync,
    setReadOnly: refuseAsync,
    commitSyncedGroupOffset: refuseAsync,
    appendMirrorState: refuseAsync,
  }
}
