import 'server-only'
import { ClusterError } from './errors'
import type { SourceCluster } from './ports'

/**
 * The network between clusters, as far as mirroring sees it: a cluster can be cut off from everything else
 * (fault injection in the demo) and healed. A mirror fetches across the link from its destination to its
 * source, so its calls to the source fail while either end is cut. Clients inside a region (the demo's
 * producers and consumers) and the dashboard's own view of each cluster are not cut: an operator watching a
 * disaster still sees both sides, as out-of-band monitoring would.
 */
export class ClusterLinks {
  private readonly cut = new Set<string>()

  isCut(cluster: string): boolean {
    return this.cut.has(cluster)
  }

  cutOff(cluster: string): void {
    if (this.cut.has(cluster)) throw new ClusterError('CONFLICT', `the link of cluster ${cluster} is already cut`)
    this.cut.add(cluster)
  }

  heal(cluster: string): void {
    if (!this.cut.has(cluster)) throw new ClusterError('CONFLICT', `the link of cluster ${cluster} is not cut`)
    this.cut.delete(cluster)
  }

  /**
   * `source` as seen from across the link. `destinationsOf` names the clusters that mirror from it (the
   * engine's mirror definitions): their fetchers cross the same link, so a cut at either end fails the call.
   */
  remoteSource(source: SourceCluster, destinationsOf: () => readonly string[]): SourceCluster {
    const check = () => {
      const cutEnd = this.isCut(source.name) ? source.name : destinationsOf().find((destination) => this.isCut(destination))
      if (cutEnd !== undefined) throw new ClusterError('SOURCE_UNAVAILABLE', `cluster ${source.name} is unreachable: the link of ${cutEnd} is cut`)
    }
    const guard =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        check()
        return call(...args)
      }
    return {
      name: source.name,
      clusterId: guard(() => source.clusterId()),
      describeTopics: guard((topics?: string[]) => source.describeTopics(topics)),
      fetch: guard(async (partitions, options) => {
        // A held fetch (up to replica.fetch.wait.max.ms) answers late; a cut meanwhile must not deliver data across it.
        const result = await source.fetch(partitions, options)
        check()
        return result
      }),
      endOffsetForEpoch: guard((topicPartition, leaderEpoch) => source.endOffsetForEpoch(topicPartition, leaderEpoch)),
      describePartition: guard((topicPartition) => source.describePartition(topicPartition)),
      listGroupOffsets: guard(() => source.listGroupOffsets()),
      listHostedMirrors: guard((filter?: { topics?: string[] }) => source.listHostedMirrors(filter)),
      lastMirrorPositions: guard((sourceClusterId, partitions) => source.lastMirrorPositions(sourceClusterId, partitions)),
      // The optional powers the source has, across the same link (a switchover's fence fails over a cut link).
      ...(source.transactionalIdsOf ? { transactionalIdsOf: guard((ids: readonly number[]) => source.transactionalIdsOf!(ids)) } : {}),
      ...(source.writeFenceMethod ? { writeFenceMethod: guard(() => source.writeFenceMethod!()) } : {}),
      ...(source.fenceWrites ? { fenceWrites: guard((topics: readonly string[], fence: { mirror: string; operation: string }) => source.fenceWrites!(topics, fence)) } : {}),
      ...(source.unfenceWrites ? { unfenceWrites: guard((topics: readonly string[], mirror: string) => source.unfenceWrites!(topics, mirror)) } : {}),
      ...(source.writeFences ? { writeFences: guard(() => source.writeFences!()) } : {}),
      ...(source.abortOpenTransactions ? { abortOpenTransactions: guard((topics: readonly string[]) => source.abortOpenTransactions!(topics)) } : {}),
    }
  }
}
