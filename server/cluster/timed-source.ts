import 'server-only'
import type { FetchSession, SourceCluster } from './ports'

/**
 * A source whose fetches report how long they took (the `mirrorboard_fetch_duration_seconds` histogram),
 * sessions' fetches included. A held fetch counts its wait at the source (up to replica.fetch.wait.max.ms),
 * as Kafka's own fetch request time does. Everything else passes through unchanged.
 */
export function timedSource(source: SourceCluster, observe: (seconds: number) => void): SourceCluster {
  const timed = async <R>(call: () => Promise<R>): Promise<R> => {
    const started = performance.now()
    try {
      return await call()
    } finally {
      observe((performance.now() - started) / 1000)
    }
  }
  const openFetchSession = source.openFetchSession?.bind(source)
  return {
    name: source.name,
    clusterId: () => source.clusterId(),
    describeTopics: (topics) => source.describeTopics(topics),
    fetch: (partitions, options) => timed(() => source.fetch(partitions, options)),
    ...(openFetchSession
      ? {
          openFetchSession: (): FetchSession => {
            const session = openFetchSession()
            return {
              fetch: (changes, options) => timed(() => session.fetch(changes, options)),
              get isOpen() {
                return session.isOpen
              },
              close: () => session.close(),
            }
          },
        }
      : {}),
    endOffsetForEpoch: (topicPartition, leaderEpoch) => source.endOffsetForEpoch(topicPartition, leaderEpoch),
    describePartition: (topicPartition) => source.describePartition(topicPartition),
    listGroupOffsets: () => source.listGroupOffsets(),
    listHostedMirrors: (filter) => source.listHostedMirrors(filter),
    lastMirrorPositions: (sourceClusterId, partitions) => source.lastMirrorPositions(sourceClusterId, partitions),
    ...optional(source, ['transactionalIdsOf', 'writeFenceMethod', 'fenceWrites', 'unfenceWrites', 'writeFences', 'abortOpenTransactions']),
  }
}

type OptionalPower = 'transactionalIdsOf' | 'writeFenceMethod' | 'fenceWrites' | 'unfenceWrites' | 'writeFences' | 'abortOpenTransactions'

/** The source's optional powers it has, bound to it (a missing one stays missing: callers test for it). */
function optional(source: SourceCluster, names: readonly OptionalPower[]): Partial<Pick<SourceCluster, OptionalPower>> {
  const powers: Record<string, unknown> = {}
  for (const name of names) {
    const power = source[name]
    if (typeof power === 'function') powers[name] = (power as (...args: unknown[]) => unknown).bind(source)
  }
  return powers as Partial<Pick<SourceCluster, OptionalPower>>
}
