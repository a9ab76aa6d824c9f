import 'server-only'
import type { MirrorHost, SourceCluster, TopicDescription } from '@/server/cluster/ports'
import { EngineError } from './errors'
import { withTimeout } from '@/server/util/with-timeout'
import { errorMessage } from './failure-classification'
import { MirrorStateStore } from './state/state-store'

/** How the engine reaches clusters; chosen once at the composition root. */
export interface EngineClusterAccess {
  names(): string[]
  get(name: string): { source: SourceCluster; host: MirrorHost } | undefined
  /**
   * The cluster as Mirrorboard itself reads it, outside the link its mirrors fetch across (server/cluster/links.ts:
   * a cut link fails the mirrors, not the operator's view); without, the same as `get`.
   */
  observe?(name: string): SourceCluster | undefined
}

/** Calls to a source that may be down are bounded, so a disaster never hangs the engine or a request. */
const SOURCE_REQUEST_TIMEOUT_MS = 10_000

/**
 * The engine's view of its clusters: each by name (NOT_FOUND when unknown), one `__mirror_state` store per
 * destination, and the destination topic configs the transition guards read.
 */
export class EngineClusters {
  private readonly stateStores = new Map<string, MirrorStateStore>()
  /** Destination topic configs as last described; the guards read `mirror.support.unclean.leader.election` from it. */
  private readonly destinationTopicConfigs = new Map<string, Record<string, string>>()

  constructor(private readonly access: EngineClusterAccess) {}

  names(): string[] {
    return this.access.names()
  }

  /** A cluster by name, or the source side of one and the host side of another. */
  cluster(name: string): { source: SourceCluster; host: MirrorHost }
  cluster(sourceName: string, destinationName: string): { source: SourceCluster; host: MirrorHost }
  cluster(first: string, second?: string): { source: SourceCluster; host: MirrorHost } {
    const source = this.access.get(first)
    if (!source) throw new EngineError('NOT_FOUND', `cluster ${first} not found`)
    if (second === undefined) return source
    const destination = this.access.get(second)
    if (!destination) throw new EngineError('NOT_FOUND', `cluster ${second} not found`)
    return { source: source.source, host: destination.host }
  }

  /**
   * The source as Mirrorboard reads it for its own figures (records at risk, lower bounds of lag) when the mirror's
   * link to it does not answer; undefined when the cluster is not there.
   */
  observer(name: string): SourceCluster | undefined {
    return this.access.observe ? this.access.observe(name) : this.access.get(name)?.source
  }

  /** A cluster by name, or undefined: the replay walks every configured cluster, known or not. */
  find(name: string): { source: SourceCluster; host: MirrorHost } | undefined {
    return this.access.get(name)
  }

  /** One store per destination cluster, so concurrent state writes share appends. */
  stateStore(clusterName: string): MirrorStateStore {
    let store = this.stateStores.get(clusterName)
    if (!store) this.stateStores.set(clusterName, (store = new MirrorStateStore(this.cluster(clusterName).host)))
    return store
  }

  /**
   * A request's call to a source: bounded in time, and a source that cannot be reached is SOURCE_UNAVAILABLE
   * (503), not a 500; the source's own NOT_FOUND and VALIDATION_FAILED pass through.
   */
  async reachSource<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(call(), SOURCE_REQUEST_TIMEOUT_MS)
    } catch (error) {
      if (error instanceof EngineError) throw error
      const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : ''
      if (code === 'NOT_FOUND' || code === 'VALIDATION_FAILED') throw error
      throw new EngineError('SOURCE_UNAVAILABLE', `source cluster unreachable: ${errorMessage(error)}`, { cause: error })
    }
  }

  rememberDestinationTopics(clusterName: string, topics: TopicDescription[]): void {
    for (const topic of topics) this.destinationTopicConfigs.set(`${clusterName}\u0000${topic.name}`, topic.configs)
  }

  destinationTopicConfig(clusterName: string, topic: string): Record<string, string> {
    return this.destinationTopicConfigs.get(`${clusterName}\u0000${topic}`) ?? {}
  }
}
