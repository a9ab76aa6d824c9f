import 'server-only'
import { ClusterError, type MirrorHost, type SourceCluster } from '@/server/cluster/ports'

/**
 * The mirror's source as a drill's sandbox sees it: unreachable. The sandbox's engine is given this in place of
 * the real source, so nothing of the copy can reach it — no fetch, no lookup, no write — and every call the
 * engine makes is refused with SOURCE_UNAVAILABLE (as a source lost in a disaster answers) and counted, for the
 * drill's "nothing reaches the source" check. Both ports are refused: the engine asks a source only through
 * SourceCluster, and anything asking it as a host would be a bug the count shows.
 */
export class IsolatedSource implements SourceCluster, MirrorHost {
  private refused = 0

  constructor(readonly name: string) {}

  /** Calls refused so far. */
  get refusedCalls(): number {
    return this.refused
  }

  private refuse(call: string): Promise<never> {
    this.refused += 1
    return Promise.reject(new ClusterError('SOURCE_UNAVAILABLE', `cluster ${this.name} is not reachable from a drill's sandbox (${call})`))
  }

  clusterId = () => this.refuse('clusterId')
  describeTopics = () => this.refuse('describeTopics')
  fetch = () => this.refuse('fetch')
  endOffsetForEpoch = () => this.refuse('endOffsetForEpoch')
  describePartition = () => this.refuse('describePartition')
  describeReplicas = () => this.refuse('describeReplicas')
  listGroupOffsets = () => this.refuse('listGroupOffsets')
  listHostedMirrors = () => this.refuse('listHostedMirrors')
  lastMirrorPositions = () => this.refuse('lastMirrorPositions')
  createMirrorTopic = () => this.refuse('createMirrorTopic')
  createMirrorPartitions = () => this.refuse('createMirrorPartitions')
  alterTopicConfigs = () => this.refuse('alterTopicConfigs')
  appendMirroredBatches = () => this.refuse('appendMirroredBatches')
  truncateTo = () => this.refuse('truncateTo')
  truncateFullyAndStartAt = () => this.refuse('truncateFullyAndStartAt')
  deleteRecordsBefore = () => this.refuse('deleteRecordsBefore')
  bumpLeaderEpoch = () => this.refuse('bumpLeaderEpoch')
  latestEpoch = () => this.refuse('latestEpoch')
  latestEpochs = () => this.refuse('latestEpochs')
  epochForOffset = () => this.refuse('epochForOffset')
  findControlRecord = () => this.refuse('findControlRecord')
  openTransactions = () => this.refuse('openTransactions')
  appendAbortMarkers = () => this.refuse('appendAbortMarkers')
  appendMirrorPidReset = () => this.refuse('appendMirrorPidReset')
  setReadOnly = () => this.refuse('setReadOnly')
  commitSyncedGroupOffset = () => this.refuse('commitSyncedGroupOffset')
  appendMirrorState = () => this.refuse('appendMirrorState')
  readMirrorState = () => this.refuse('readMirrorState')
}
